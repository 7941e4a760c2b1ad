import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deploymentProblems, edgeProblems, services } from './support/k8s-checks';
import { renderLite } from './support/kustomize-lite';
import { hasKubectl, kubernetesDir, loadConfigOf, missingSettings, render, renderWithKubectl, schemaProblems, type K8sObject } from './support/manifests';

/** The Kubernetes API version the manifests are checked against: the schemas kubernetes-models 5 ships (1.36). */
const kustomizations = ['base', 'overlays/staging', 'overlays/production'];
const rendered = new Map(kustomizations.map((k) => [k, render(path.join(kubernetesDir, k))]));
const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const configOf = (objects: K8sObject[], app: string): Record<string, string> => objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith(`${app}-config`))!.data!;
const clone = (objects: K8sObject[]): K8sObject[] => JSON.parse(JSON.stringify(objects)) as K8sObject[];

describe.each(kustomizations)('deploy/kubernetes/%s', (kustomization) => {
  const objects = rendered.get(kustomization)!;

  it('is valid against the Kubernetes 1.36 API schemas', () => {
    expect(objects.length).toBeGreaterThan(0);
    expect(schemaProblems(objects)).toEqual([]);
  });

  it.each(services)('runs %s with the image, port, probes and settings its config schema asks for', (app) => {
    expect(deploymentProblems(objects, app)).toEqual([]);
  });

  it('references Secrets and never inlines one; Postgres and Redis are outside the cluster', () => {
    expect(ofKind(objects, 'Secret')).toEqual([]);
    expect(ofKind(objects, 'StatefulSet')).toEqual([]);
    const images = ofKind(objects, 'Deployment').flatMap((d) => d.spec.template.spec.containers.map((c: { image: string }) => c.image));
    expect(images.filter((i) => /postgres|redis/.test(i))).toEqual([]);
    expect(ofKind(objects, 'Ingress').flatMap((i) => i.spec.tls.map((t: { secretName: string }) => t.secretName))).toEqual(['ocg-tls']);
  });

  it('sends the API host and every job and node host under the node domain to the gateway, over TLS', () => {
    const [ingress] = ofKind(objects, 'Ingress');
    const nodeDomain = configOf(objects, 'gateway').NODE_DOMAIN;
    const apiHost = new URL(configOf(objects, 'deployment-manager').PUBLIC_URL).hostname;
    expect(configOf(objects, 'deployment-manager').NODE_DOMAIN).toBe(nodeDomain);
    const hosts = ingress.spec.rules.map((r: { host: string }) => r.host);
    expect(hosts).toEqual([apiHost, `*.${nodeDomain}`]);
    expect(ingress.spec.tls[0].hosts).toEqual(hosts);
    for (const rule of ingress.spec.rules) {
      expect(rule.http.paths).toEqual([{ path: '/', pathType: 'Prefix', backend: { service: { name: 'gateway', port: { name: 'http' } } } }]);
    }
    const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'gateway')!;
    expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain('http');
  });

  it("serves job hosts at the gateway's edge: its port in the pod, a load balancer, the port job URLs name, a writable directory", () => {
    expect(configOf(objects, 'gateway').EDGE_PORT).toBeDefined();
    expect(edgeProblems(objects)).toEqual([]);
  });
});

describe('the overlays', () => {
  it.each(['overlays/staging', 'overlays/production'])('%s pins a tag on every image and sets a namespace', (overlay) => {
    const objects = rendered.get(overlay)!;
    for (const d of ofKind(objects, 'Deployment')) {
      for (const c of d.spec.template.spec.containers) expect(c.image).toMatch(/:[\w.-]+$/);
    }
    const namespaces = new Set(objects.filter((o) => o.kind !== 'Namespace').map((o) => o.metadata.namespace));
    expect([...namespaces]).toEqual([ofKind(objects, 'Namespace')[0].metadata.name]);
  });
});

describe('the checks themselves', () => {
  const base = rendered.get('base')!;
  const gateway = (objects: K8sObject[]) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')!.spec.template.spec.containers[0];
  const managerConfig = (objects: K8sObject[]) => objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('client-manager-config'))!;

  it('find a probe on the wrong path or port, a wrong port and an unknown setting', () => {
    const objects = clone(base);
    gateway(objects).readinessProbe.httpGet.path = '/health';
    gateway(objects).livenessProbe.httpGet.port = 9000;
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('gateway-config'))!.data!.UPSTREAM_TIMEOUT = '5';
    expect(deploymentProblems(objects, 'gateway')).toEqual([
      "gateway: UPSTREAM_TIMEOUT is not a setting of gateway's config",
      'gateway: readinessProbe asks /health, not /readyz',
      'gateway: livenessProbe asks port 9000, not the configured 8080',
    ]);
    gateway(objects).ports[0].containerPort = 8000;
    expect(deploymentProblems(objects, 'gateway')).toContain('gateway: container port is not the configured PORT 8080');
    objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')!.spec.replicas = 2;
    expect(deploymentProblems(objects, 'gateway')).toContain("gateway: spec.replicas would reset the autoscaler's count at every apply");
  });

  it('find a required setting left out, a secret inlined and a service URL to nowhere', () => {
    const objects = clone(base);
    const manager = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'client-manager')!.spec.template.spec.containers[0];
    manager.env = manager.env.filter((e: { name: string }) => e.name !== 'DATABASE_URL');
    managerConfig(objects).data!.MASTER_KEY = 'ab'.repeat(32);
    manager.env = manager.env.filter((e: { name: string }) => e.name !== 'MASTER_KEY');
    expect(deploymentProblems(objects, 'client-manager')).toEqual(
      expect.arrayContaining([
        'client-manager: MASTER_KEY is inlined in ConfigMap ' + managerConfig(objects).metadata.name + '; reference the Secret',
        'client-manager: DATABASE_URL is required by the config and not provided',
      ]),
    );
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('host-manager-config'))!.data!.CLIENT_MANAGER_URL = 'http://client-mgr:8081';
    expect(deploymentProblems(objects, 'host-manager')).toEqual(['host-manager: CLIENT_MANAGER_URL=http://client-mgr:8081 names no Service of the manifests']);
  });

  it('find the edge out of reach, job URLs on another port, probes and the Ingress over the wrong scheme, and files on no volume', () => {
    const objects = clone(base);
    const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')!;
    const edgeService = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'gateway-edge')!;
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('deployment-manager-config'))!.data!.NODE_PUBLIC_PORT = '8443';
    expect(edgeProblems(objects)).toEqual(["deployment-manager: job URLs name port 8443 (NODE_PUBLIC_PORT), the edge's Service listens on 443"]);
    delete edgeService.spec.type;
    delete edgeService.spec.externalTrafficPolicy;
    ofKind(objects, 'Ingress')[0].metadata.annotations!['nginx.ingress.kubernetes.io/backend-protocol'] = 'HTTPS';
    gateway(objects).volumeMounts = gateway(objects).volumeMounts.filter((m: { name: string }) => m.name !== 'tmp');
    expect(edgeProblems(objects)).toEqual([
      'Ingress gateway: backend-protocol HTTPS, the gateway serves HTTP',
      "gateway: the edge's Service gateway-edge is not reachable from outside the cluster (type ClusterIP)",
      "gateway: the edge's directory /tmp/ocg-edge-8443 (EDGE_DIR) is on a read-only filesystem",
    ]);
    gateway(objects).ports = gateway(objects).ports.filter((p: { name: string }) => p.name !== 'edge');
    expect(edgeProblems(objects)).toEqual(expect.arrayContaining(['gateway: no container port is EDGE_PORT 8443', "gateway: no Service targets the edge's port 8443"]));
    gateway(objects).readinessProbe.httpGet.scheme = 'HTTPS';
    gateway(objects).volumeMounts = [];
    expect(deploymentProblems(objects, 'gateway')).toEqual([
      'gateway: readinessProbe asks over HTTPS, the port serves HTTP',
      'gateway: EDGE_TLS_CERT_FILE=/run/ocg-tls/tls.crt is on no volume the container mounts',
      'gateway: EDGE_TLS_KEY_FILE=/run/ocg-tls/tls.key is on no volume the container mounts',
    ]);
    expect(deployment.spec.template.spec.volumes.map((v: { name: string }) => v.name)).toContain('tls');
  });

  it('derive the required settings from the schema', () => {
    expect(missingSettings(loadConfigOf('host-manager'), {})).toEqual(['DATABASE_URL', 'REDIS_URL']);
    expect(missingSettings(loadConfigOf('gateway'), {})).toEqual(['REDIS_URL']);
  });

  it('reject an object the API schemas refuse', () => {
    const objects = clone(base).filter((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway');
    objects[0].spec.replicas = 'two';
    expect(schemaProblems(objects)).toEqual([expect.stringContaining('Deployment/gateway: data/spec/replicas must be integer')]);
    expect(schemaProblems([{ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'postgres' } }])).toEqual([
      expect.stringContaining('is not a kind these manifests are checked for'),
    ]);
  });
});

describe('a node joining from outside the cluster', () => {
  it('deploy/kubernetes/node/node-agent.env is a configuration node-agent accepts once its blanks are filled', () => {
    const text = readFileSync(path.join(kubernetesDir, 'node/node-agent.env'), 'utf8');
    const env = Object.fromEntries(
      text
        .split('\n')
        .filter((l) => /^[A-Z]/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).replace(/<[^>]+>/, 'filled-in')]),
    );
    expect(env.CONTROL_PLANE_URL).toMatch(/^https:\/\//);
    const config = loadConfigOf('node-agent')(env);
    for (const name of Object.keys(env)) expect(config).toHaveProperty(name);
    const gatewayDomain = configOf(rendered.get('overlays/production')!, 'gateway').NODE_DOMAIN;
    expect(config.NODE_DOMAIN).toBe(gatewayDomain);
  });
});

describe('kustomize-lite, the renderer for machines without kubectl', () => {
  /** Objects in a stable order, generated ConfigMaps' content hashes left out (kubectl's hash is its own). */
  const canonical = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(/^([a-z-]+-config)-[a-z0-9]{10}$/, '$1');
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, x]) => [k, canonical(x)]),
      );
    return v;
  };
  const normalized = (objects: K8sObject[]): string[] => objects.map((o) => JSON.stringify(canonical(o))).sort();

  (hasKubectl() ? it.each(kustomizations) : it.skip.each(kustomizations))('renders %s as kubectl kustomize does', (kustomization) => {
    const dir = path.join(kubernetesDir, kustomization);
    expect(normalized(renderLite(dir))).toEqual(normalized(renderWithKubectl(dir)));
  });

  it('gives a changed ConfigMap a new name, and the Deployment follows', () => {
    const before = renderLite(path.join(kubernetesDir, 'overlays/staging'));
    const production = renderLite(path.join(kubernetesDir, 'overlays/production'));
    const name = (objects: K8sObject[]) => objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('gateway-config'))!.metadata.name;
    expect(name(before)).not.toBe(name(production));
    const ref = before.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway')!.spec.template.spec.containers[0].envFrom[0].configMapRef.name;
    expect(ref).toBe(name(before));
  });
});
