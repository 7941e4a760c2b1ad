// The Nx project graph, as `nx graph --file` writes it: one project's root and the
// projects it depends on (imports, test imports and implicit dependencies alike).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Project {
  name: string;
  root: string;
  type: string;
  tags: string[];
  deps: string[];
}

export const ROOT = path.resolve(__dirname, '..', '..');

export function projectGraph(): Map<string, Project> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-graph-'));
  try {
    const file = path.join(dir, 'graph.json');
    execFileSync('npx', ['nx', 'graph', `--file=${file}`], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' } });
    const { graph } = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      graph: { nodes: Record<string, { type: string; data: { root: string; tags?: string[] } }>; dependencies: Record<string, { target: string }[]> };
    };
    return new Map(
      Object.entries(graph.nodes).map(([name, node]) => [
        name,
        { name, root: node.data.root, type: node.type, tags: node.data.tags ?? [], deps: (graph.dependencies[name] ?? []).map((d) => d.target).filter((t) => t in graph.nodes) },
      ]),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The project and every project it depends on, directly or not. */
export function closure(graph: Map<string, Project>, name: string): Set<string> {
  const seen = new Set<string>();
  const visit = (n: string): void => {
    if (seen.has(n)) return;
    seen.add(n);
    for (const d of graph.get(n)?.deps ?? []) visit(d);
  };
  visit(name);
  return seen;
}
