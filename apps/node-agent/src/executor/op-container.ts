import type Docker from 'dockerode';
import type { ExposeType, HealthCheck, NormalizedOp, NormalizedRunOp } from '@ocg/job-definition';
import { statusOf } from '../docker/client';
import { containerSpec, type ContainerSpecInput } from '../docker/container-spec';
import { LABEL } from '../docker/labels';
import { assertOurs } from '../docker/objects';

/** An exposed port as the op runs it. */
export interface OpPort {
  port: number;
  type: ExposeType;
  checks: HealthCheck[];
}

/** The ports known before the op starts (spreads and literals resolve at start). */
export function knownPorts(op: NormalizedOp): OpPort[] {
  return op.type === 'container/run' ? resolvedPorts(op) : [];
}

export function resolvedPorts(op: NormalizedRunOp): OpPort[] {
  const ports: OpPort[] = [];
  for (const entry of op.args.expose) {
    if ('__spread__' in entry) continue;
    const port = typeof entry.port === 'number' ? entry.port : Number.NaN;
    if (Number.isInteger(port)) ports.push({ port, type: entry.type, checks: entry.health_checks });
  }
  return ports;
}

export function readPortsLabel(labels: Record<string, string> | undefined): OpPort[] | undefined {
  const text = labels?.[LABEL.ports];
  return text ? (JSON.parse(text) as OpPort[]) : undefined;
}

/** Creates the op's container; a leftover of the same name (a crash mid-start) is replaced. */
export async function createOpContainer(docker: Docker, input: ContainerSpecInput, ports: OpPort[]): Promise<Docker.Container> {
  const spec = containerSpec(input);
  spec.Labels = { ...spec.Labels, [LABEL.ports]: JSON.stringify(ports) };
  try {
    return await docker.createContainer(spec);
  } catch (err) {
    if (statusOf(err) !== 409 || !spec.name) throw err;
    await assertOurs(docker.getContainer(spec.name).inspect(), input.node, `container ${spec.name}`);
    await docker.getContainer(spec.name).remove({ force: true });
    return docker.createContainer(spec);
  }
}
