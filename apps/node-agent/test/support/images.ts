/** The test images and the private registry, from @ocg/testing (built offline, no Docker Hub). */
import type Docker from 'dockerode';
import { BUSYBOX_IMAGE, ensureBusyboxImage as buildBusybox, startRegistry } from '@ocg/testing';

export { BUSYBOX_IMAGE };

/** Fails with what to do when no Docker engine answers: these tests run real containers. */
export async function requireDocker(docker: Docker): Promise<void> {
  try {
    await docker.ping();
  } catch {
    throw new Error(
      'Docker engine not reachable at /var/run/docker.sock. The node-agent tests run real containers: start it ' +
        '(as root: `dockerd > /tmp/dockerd.log 2>&1 &`, or run `npm test`, which starts it) and run them again.',
    );
  }
}

export async function ensureBusyboxImage(_docker: Docker): Promise<void> {
  await buildBusybox();
}

export interface TestRegistry {
  host: string;
  username: string;
  password: string;
  /** Local image → the reference it was pushed as. */
  pushed: Record<string, string>;
  stop(): Promise<void>;
}

/** A private registry with bcrypt htpasswd, with `push` (local image → repository) already pushed. */
export async function startTestRegistry(push: Record<string, string>): Promise<TestRegistry> {
  const registry = await startRegistry();
  const pushed: Record<string, string> = {};
  try {
    for (const [local, repository] of Object.entries(push)) pushed[local] = await registry.push(local, repository);
  } catch (err) {
    await registry.stop();
    throw err;
  }
  return {
    host: registry.host,
    username: registry.username,
    password: registry.password,
    pushed,
    stop: async () => {
      await registry.removePushed();
      await registry.stop();
    },
  };
}
