import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { renderLite } from './kustomize-lite';

export const repoRoot = path.resolve(__dirname, '../../..');
export const kubernetesDir = path.join(repoRoot, 'deploy/kubernetes');

/** A Kubernetes object as rendered: only the fields the checks read are typed. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: any;
}

/** The kubectl to render with; KUBECTL=none renders with kustomize-lite as on a machine without one. */
const kubectl = process.env.KUBECTL ?? 'kubectl';

/** Whether kubectl is on the PATH (deploy's checks then render with it). */
export const hasKubectl = (): boolean => {
  try {
    execFileSync(kubectl, ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Renders a kustomization (the base or an overlay) with `kubectl kustomize`, as `kubectl apply -k` would. */
export function renderWithKubectl(dir: string): K8sObject[] {
  let text: string;
  try {
    text = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    throw new Error(`kubectl kustomize ${dir} failed (kubectl 1.21 or later is needed): ${e.stderr ?? e.message}`);
  }
  return parseAllDocuments(text).map((doc) => doc.toJSON() as K8sObject);
}

/** Renders with kubectl where it is installed, else with kustomize-lite (checked to agree with kubectl where both run). */
export const render = (dir: string): K8sObject[] => (hasKubectl() ? renderWithKubectl(dir) : renderLite(dir));

/** Problems the Kubernetes API schemas (kubernetes-models) find in the objects; [] when valid. */
export function schemaProblems(objects: K8sObject[]): string[] {
  const out = execFileSync(process.execPath, [path.join(__dirname, 'k8s-validate.mjs')], { input: JSON.stringify(objects), encoding: 'utf8', cwd: repoRoot });
  return JSON.parse(out) as string[];
}

export type LoadConfig = (env: NodeJS.ProcessEnv) => Record<string, unknown>;

/**
 * The service's own config parser (apps/<app>/src/config.ts), so the checks use
 * the schema the service starts with. Loaded by path: the deploy project reads
 * the apps' config (an implicit dependency in its project.json), no app imports it.
 */
export function loadConfigOf(app: string): LoadConfig {
  return (require(path.join(repoRoot, 'apps', app, 'src', 'config')) as { loadConfig: LoadConfig }).loadConfig;
}

/** The variables the service refuses to start without, given `env` (the schema's required ones and its cross-field rules). */
export function missingSettings(load: LoadConfig, env: NodeJS.ProcessEnv): string[] {
  try {
    load(env);
    return [];
  } catch (err) {
    const problems = (err as { problems?: { variable: string; message: string }[] }).problems;
    if (!problems) throw err;
    return problems.filter((p) => p.message === 'is required but not set').map((p) => p.variable);
  }
}
