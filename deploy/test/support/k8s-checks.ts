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

function probeProblems(where: string, container: any, port: number): string[] {
  const expected: Record<string, string> = { readinessProbe: '/readyz', livenessProbe: '/healthz', startupProbe: '/healthz' };
  const problems: string[] = [];
  for (const [probe, path] of Object.entries(expected)) {
    const get = container[probe]?.httpGet;
    if (!get) {
      if (probe !== 'startupProbe') problems.push(`${where}: no ${probe} (httpGet ${path})`);
      continue;
    }
    if (get.path !== path) problems.push(`${where}: ${probe} asks ${get.path}, not ${path}`);
    if (portOf(container, get.port) !== port) problems.push(`${where}: ${probe} asks port ${get.port}, not the configured ${port}`);
  }
  return problems;
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
  problems.push(...probeProblems(where, container, port), ...serviceUrlProblems(objects, where, config), ...companionProblems(objects, app, deployment, port));
  return problems;
}
