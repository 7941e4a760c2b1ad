import { loadConfigOf, missingSettings, type K8sObject, type LoadConfig } from './manifests';

/** The stateless services the cluster runs (nodes run outside it). */
export const services = ['gateway', 'client-manager', 'host-manager', 'deployment-manager'] as const;

/** Settings that hold credentials: only ever from the Secret, never inline. */
const secretSettings = ['DATABASE_URL', 'REDIS_URL', 'MASTER_KEY', 'INTERNAL_TOKEN', 'ADMIN_API_KEY'];
export const secretName = 'ocg-secrets';

/** Stand-ins for the Secret's values, shaped as the schemas want them. */
const secretStandIns: Record<string, string> = {
  DATABASE_URL: 'postgres://ocg:secret@postgres.example.com:5432/ocg',
  REDIS_URL: 'rediss://:secret@redis.example.com:6380',
  MASTER_KEY: 'ab'.repeat(32),
  INTERNAL_TOKEN: 'internal-token-of-32-characters!',
};

interface EnvResult {
  env: Record<string, string>;
  problems: string[];
}

const find = (objects: K8sObject[], kind: string, name: string): K8sObject | undefined => objects.find((o) => o.kind === kind && o.metadata.name === name);

/** The container's environment as the kubelet would give it (Secret values by stand-ins; optional secret keys left out). */
function environmentOf(objects: K8sObject[], where: string, container: any): EnvResult {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) problems.push(`${where}: envFrom secretRef hides which settings come from ${from.secretRef.name}; name them in env`);
    const map = from.configMapRef && find(objects, 'ConfigMap', from.configMapRef.name);
    if (from.configMapRef && !map) problems.push(`${where}: ConfigMap ${from.configMapRef.name} is not in the manifests`);
    for (const [name, value] of Object.entries(map?.data ?? {})) {
      if (secretSettings.includes(name)) problems.push(`${where}: ${name} is inlined in ConfigMap ${map!.metadata.name}; reference the Secret`);
      env[name] = String(value);
    }
  }
  for (const item of container.env ?? []) {
    const name: string = item.name;
    const secret = item.valueFrom?.secretKeyRef;
    const mapRef = item.valueFrom?.configMapKeyRef;
    if (secret) {
      if (secret.name !== secretName) problems.push(`${where}: ${name} comes from Secret ${secret.name}, not ${secretName}`);
      if (secret.optional) continue;
      env[name] = secretStandIns[name] ?? `stand-in-for-${name}`;
    } else if (mapRef) {
      const value = find(objects, 'ConfigMap', mapRef.name)?.data?.[mapRef.key];
      if (value === undefined) problems.push(`${where}: ${name} names ConfigMap key ${mapRef.name}/${mapRef.key}, which is not there`);
      else env[name] = value;
    } else {
      if (secretSettings.includes(name)) problems.push(`${where}: ${name} is inlined; reference the Secret`);
      env[name] = String(item.value ?? '');
    }
  }
  return { env, problems };
}

/** Resolves a named or numbered container port. */
const portOf = (container: any, port: unknown): number | undefined => (typeof port === 'number' ? port : container.ports?.find((p: any) => p.name === port)?.containerPort);

/** The probes ask the configured port, over HTTPS when the service serves TLS (TLS_CERT_FILE). */
function probeProblems(where: string, container: any, port: number, tls: boolean): string[] {
  const expected: Record<string, string> = { readinessProbe: '/readyz', livenessProbe: '/healthz', startupProbe: '/healthz' };
  const scheme = tls ? 'HTTPS' : 'HTTP';
  const problems: string[] = [];
  for (const [probe, path] of Object.entries(expected)) {
    const get = container[probe]?.httpGet;
    if (!get) {
      if (probe !== 'startupProbe') problems.push(`${where}: no ${probe} (httpGet ${path})`);
      continue;
    }
    if (get.path !== path) problems.push(`${where}: ${probe} asks ${get.path}, not ${path}`);
    if (portOf(container, get.port) !== port) problems.push(`${where}: ${probe} asks port ${get.port}, not the configured ${port}`);
    if ((get.scheme ?? 'HTTP') !== scheme) problems.push(`${where}: ${probe} asks over ${get.scheme ?? 'HTTP'}, the port serves ${scheme}`);
  }
  return problems;
}

/** The mount of the container that holds `path`, if any (the longest prefix). */
const mountOf = (container: any, path: string): any =>
  (container.volumeMounts ?? [])
    .filter((m: any) => path === m.mountPath || path.startsWith(`${String(m.mountPath).replace(/\/$/, '')}/`))
    .sort((a: any, b: any) => b.mountPath.length - a.mountPath.length)[0];

/** Files the config names (`*_FILE`) are on a volume of the pod: the root filesystem holds none of the operator's. */
function fileProblems(where: string, container: any, config: Record<string, unknown>): string[] {
  return Object.entries(config)
    .filter(([name, value]) => name.endsWith('_FILE') && typeof value === 'string' && value.startsWith('/'))
    .filter(([, value]) => !mountOf(container, value as string))
    .map(([name, value]) => `${where}: ${name}=${String(value)} is on no volume the container mounts`);
}

/** Service URLs in the config (http://<service>:<port>) must name a Service of the manifests and its port. */
function serviceUrlProblems(objects: K8sObject[], where: string, config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(config)) {
    if (typeof value !== 'string' || !/^https?:\/\/[^./:]+(:\d+)?(\/|$)/.test(value)) continue;
    const url = new URL(value);
    const service = find(objects, 'Service', url.hostname);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (!service) problems.push(`${where}: ${name}=${value} names no Service of the manifests`);
    else if (!service.spec.ports.some((p: any) => p.port === port)) problems.push(`${where}: ${name}=${value}: Service ${url.hostname} has no port ${port}`);
  }
  return problems;
}

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>): boolean =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

function companionProblems(objects: K8sObject[], app: string, deployment: K8sObject, port: number): string[] {
  const labels: Record<string, string> = deployment.spec.template.metadata.labels ?? {};
  const problems: string[] = [];
  const service = objects.find((o) => o.kind === 'Service' && selects(o.spec.selector, labels));
  const container = deployment.spec.template.spec.containers[0];
  if (!service) problems.push(`${app}: no Service selects its pods`);
  else if (!service.spec.ports.some((p: any) => portOf(container, p.targetPort ?? p.port) === port))
    problems.push(`${app}: Service ${service.metadata.name} does not target port ${port}`);
  if (!objects.some((o) => o.kind === 'PodDisruptionBudget' && selects(o.spec.selector?.matchLabels, labels))) problems.push(`${app}: no PodDisruptionBudget covers its pods`);
  const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef?.kind === 'Deployment' && o.spec.scaleTargetRef.name === deployment.metadata.name);
  if (!hpa) problems.push(`${app}: no HorizontalPodAutoscaler scales it`);
  else if (deployment.spec.replicas !== undefined) problems.push(`${app}: spec.replicas would reset the autoscaler's count at every apply`);
  return problems;
}

/** Everything that does not agree between one service's Deployment and its config schema. */
export function deploymentProblems(objects: K8sObject[], app: string, load: LoadConfig = loadConfigOf(app)): string[] {
  const deployment = find(objects, 'Deployment', app);
  if (!deployment) return [`${app}: no Deployment`];
  const container = deployment.spec.template.spec.containers.find((c: any) => c.name === app);
  if (!container) return [`${app}: no container named ${app}`];
  const where = `${app}`;
  const problems: string[] = [];
  if (!new RegExp(`(^|/)ocg/${app}(:[\\w.-]+)?$`).test(container.image)) problems.push(`${where}: image ${container.image} is not ocg/${app}`);
  const { env, problems: envProblems } = environmentOf(objects, where, container);
  problems.push(...envProblems);
  for (const name of missingSettings(load, env)) problems.push(`${where}: ${name} is required by the config and not provided`);
  let config: Record<string, unknown>;
  try {
    config = load(env);
  } catch (err) {
    return [...problems, `${where}: the config refuses the environment: ${(err as Error).message}`];
  }
  for (const name of Object.keys(env)) if (!(name in config)) problems.push(`${where}: ${name} is not a setting of ${app}'s config`);
  const port = config.PORT as number;
  if (!container.ports?.some((p: any) => p.containerPort === port)) problems.push(`${where}: container port is not the configured PORT ${port}`);
  if (config.HOST !== '0.0.0.0' && config.HOST !== '::') problems.push(`${where}: HOST=${String(config.HOST)} is not reachable from other pods`);
  if (!container.resources?.requests?.cpu || !container.resources?.requests?.memory || !container.resources?.limits?.memory)
    problems.push(`${where}: resources need cpu and memory requests and a memory limit`);
  problems.push(
    ...probeProblems(where, container, port, Boolean(config.TLS_CERT_FILE)),
    ...fileProblems(where, container, config),
    ...serviceUrlProblems(objects, where, config),
    ...companionProblems(objects, app, deployment, port),
  );
  return problems;
}

/** The config a Deployment's container starts with (undefined when it refuses it: deploymentProblems says why). */
function configOf(objects: K8sObject[], app: string, load: LoadConfig): { container: any; deployment: K8sObject; config: Record<string, unknown> } | undefined {
  const deployment = find(objects, 'Deployment', app);
  const container = deployment?.spec.template.spec.containers.find((c: any) => c.name === app);
  if (!deployment || !container) return undefined;
  try {
    return { deployment, container, config: load(environmentOf(objects, app, container).env) };
  } catch {
    return undefined;
  }
}

/**
 * The gateway's edge (EDGE_PORT, ADR 0093) as the manifests run it: a
 * container port, a Service that takes it outside the cluster, the port job
 * URLs name (deployment-manager's NODE_PUBLIC_PORT, 443 when unset) equal to
 * that Service's, and the edge's directory (EDGE_DIR, default
 * /tmp/ocg-edge-<port>) writable and short enough for its sockets. Also: a
 * gateway that serves TLS is the Ingress's HTTPS backend. [] when the edge is
 * off and the gateway serves plain HTTP.
 */
export function edgeProblems(objects: K8sObject[], load: (app: string) => LoadConfig = loadConfigOf): string[] {
  const gateway = configOf(objects, 'gateway', load('gateway'));
  if (!gateway) return ['gateway: no Deployment whose config loads (see its own checks)'];
  const { deployment, container, config } = gateway;
  const problems: string[] = [];
  const backendProtocol = (i: K8sObject) => i.metadata.annotations?.['nginx.ingress.kubernetes.io/backend-protocol'] ?? 'HTTP';
  const scheme = config.TLS_CERT_FILE ? 'HTTPS' : 'HTTP';
  for (const ingress of objects.filter((o) => o.kind === 'Ingress' && backendProtocol(o) !== scheme))
    problems.push(`Ingress ${ingress.metadata.name}: backend-protocol ${backendProtocol(ingress)}, the gateway serves ${scheme}`);
  const port = config.EDGE_PORT as number | undefined;
  if (port === undefined) return problems;
  if (port === 0) return [...problems, 'gateway: EDGE_PORT=0 (any free port) cannot be published'];
  if (!container.ports?.some((p: any) => p.containerPort === port)) problems.push(`gateway: no container port is EDGE_PORT ${port}`);
  const labels: Record<string, string> = deployment.spec.template.metadata.labels ?? {};
  const edgePorts = objects
    .filter((o) => o.kind === 'Service' && selects(o.spec.selector, labels))
    .flatMap((service) =>
      service.spec.ports
        .filter((p: any) => portOf(container, p.targetPort ?? p.port) === port)
        // The port clients reach: a NodePort Service's on every node, else the Service's own (a load balancer's).
        .map((p: any) => ({ service, port: (service.spec.type === 'NodePort' ? p.nodePort : p.port) as number })),
    );
  const outside = edgePorts.filter((e) => e.service.spec.type === 'LoadBalancer' || e.service.spec.type === 'NodePort');
  if (edgePorts.length === 0) problems.push(`gateway: no Service targets the edge's port ${port}`);
  else if (outside.length === 0)
    problems.push(
      `gateway: the edge's Service ${edgePorts[0].service.metadata.name} is not reachable from outside the cluster (type ${edgePorts[0].service.spec.type ?? 'ClusterIP'})`,
    );
  const manager = configOf(objects, 'deployment-manager', load('deployment-manager'));
  const publicPort = (manager?.config.NODE_PUBLIC_PORT as number | undefined) ?? 443;
  if (outside.length > 0 && !outside.some((e) => e.port === publicPort))
    problems.push(`deployment-manager: job URLs name port ${publicPort} (NODE_PUBLIC_PORT), the edge's Service listens on ${outside.map((e) => e.port).join(', ')}`);
  const dir = (config.EDGE_DIR as string | undefined) ?? `/tmp/ocg-edge-${port}`;
  const mount = mountOf(container, dir);
  if (container.securityContext?.readOnlyRootFilesystem && (!mount || mount.readOnly))
    problems.push(`gateway: the edge's directory ${dir} (EDGE_DIR) is on a read-only filesystem`);
  if (dir.length >= 90) problems.push(`gateway: the edge's directory ${dir} (EDGE_DIR) is too long for its sockets (under 90 characters)`);
  return problems;
}
