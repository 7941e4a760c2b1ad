import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

// The workspace's tools are no Nx project: loaded by path (the boundary rule refuses relative imports).
const ROOT = path.resolve(__dirname, '../..');
const { closure, projectGraph } = require(path.join(ROOT, 'tools/ci/graph')) as typeof import('../../tools/ci/graph');
const { IMAGE_APPS, plans, render, SHARED_PATHS } = require(path.join(ROOT, 'tools/ci/workflows')) as typeof import('../../tools/ci/workflows');

interface Workflow {
  file: string;
  on: { pull_request: { paths: string[] }; push: { branches: string[]; paths: string[] } };
  jobs: { check: { steps: { run?: string }[] } };
}

const graph = projectGraph();
const dir = path.join(ROOT, '.github', 'workflows');
const workflows: Workflow[] = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.yml'))
  .map((file) => ({ file, ...(parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Omit<Workflow, 'file'>) }));
const regenerate = 'run `npx tsx tools/ci/workflows.ts` after changing a project or its dependencies';

/** The projects a workflow checks: its affected step's --only list. */
const projectsOf = (w: Workflow): string[] => {
  const run = w.jobs.check.steps.map((s) => s.run ?? '').find((r) => r.includes('tools/ci/affected.sh'))!;
  return /--only (\S+)/.exec(run)![1].split(',');
};
/** GitHub's path filter: the workflow runs when a changed file matches one of its patterns. */
const triggers = (w: Workflow, file: string): boolean => w.on.pull_request.paths.some((p) => path.posix.matchesGlob(file, p));
/** The workflows a change to `file` starts (each then checks those of its projects nx affected names). */
const triggeredBy = (file: string): string[] =>
  workflows
    .filter((w) => triggers(w, file))
    .map((w) => w.file)
    .sort();
/** The workflows that check at least one of these projects. */
const workflowsOf = (projects: string[]): string[] =>
  workflows
    .filter((w) => projectsOf(w).some((p) => projects.includes(p)))
    .map((w) => w.file)
    .sort();
/** Every project that depends on `name`, directly or not, and the project itself: what nx affected runs when it changes. */
const dependents = (name: string): string[] => [...graph.keys()].filter((p) => closure(graph, p).has(name)).sort();
const sourceFileOf = (project: string): string => `${graph.get(project)!.root}/src/changed.ts`;

describe('the per-service workflows', () => {
  it('check every Nx project exactly once: one workflow per app, one for the libs', () => {
    const checked = workflows.flatMap(projectsOf).sort();
    expect(checked).toEqual([...graph.keys()].sort());
    const apps = [...graph.values()].filter((p) => p.type === 'app').map((p) => `${p.name}.yml`);
    expect(workflows.map((w) => w.file)).toEqual(expect.arrayContaining([...apps, 'libs.yml']));
  });

  it.each(workflows.map((w) => [w.file, w] as const))("%s filters on its projects' folders and those of every project they depend on, nothing else", (_file, w) => {
    const expected = new Set(
      projectsOf(w)
        .flatMap((p) => [...closure(graph, p)])
        .map((p) => `${graph.get(p)!.root}/**`),
    );
    const projectPaths = w.on.pull_request.paths.filter((p) => [...graph.values()].some((q) => p.startsWith(`${q.root}/`)) && !p.startsWith('deploy/docker/'));
    expect({ file: w.file, paths: projectPaths.sort() }).toEqual({ file: w.file, paths: [...expected].sort() });
    expect(w.on.push.paths).toEqual(w.on.pull_request.paths);
    expect(w.on.push.branches).toEqual(['main']);
    expect(w.on.pull_request.paths).toEqual(expect.arrayContaining(SHARED_PATHS));
  });

  it('run exactly for the projects nx affected names, whichever project changes', () => {
    for (const project of graph.keys()) {
      expect({ changed: project, runs: triggeredBy(sourceFileOf(project)) }).toEqual({ changed: project, runs: workflowsOf(dependents(project)) });
    }
  });

  it.each(['libs/redis/src/index.ts', 'libs/db/src/index.ts', 'apps/node-agent/src/main.ts'])('agree with `nx show projects --affected` for a change to %s', (file) => {
    const out = execFileSync('npx', ['nx', 'show', 'projects', '--affected', `--files=${file}`], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    });
    expect(triggeredBy(file)).toEqual(workflowsOf(out.split('\n').filter(Boolean)));
  });

  it('build a service whose lib changed and leave an unrelated service alone', () => {
    const ran = triggeredBy('libs/db/src/data-source.ts');
    expect(ran).toEqual(expect.arrayContaining(['client-manager.yml', 'host-manager.yml', 'deployment-manager.yml', 'libs.yml']));
    expect(ran).not.toContain('node-agent.yml');
    expect(ran).not.toContain('gateway.yml');
    // The CLI's and e2e's tests run the services and a node agent: a change to one runs them too.
    expect(triggeredBy('apps/node-agent/src/agent.ts')).toEqual(['cli.yml', 'deploy.yml', 'e2e.yml', 'node-agent.yml']);
    expect(triggeredBy('package-lock.json')).toEqual(workflows.map((w) => w.file).sort());
  });

  it('build and publish an image for each service, from main only', () => {
    for (const app of IMAGE_APPS) {
      const w = workflows.find((x) => x.file === `${app}.yml`)!;
      const step = w.jobs.check.steps.find((s) => s.run?.includes('tools/ci/affected.sh')) as { run: string; env: Record<string, string> };
      expect(step.run).toContain('--images $PUSH');
      expect(step.env.PUSH).toContain("github.ref == 'refs/heads/main'");
      expect(triggers(w, `deploy/docker/${app}.Dockerfile`)).toBe(true);
    }
  });

  it('are what tools/ci/workflows.ts makes of the current graph (' + regenerate + ')', () => {
    for (const plan of plans(graph)) expect({ file: plan.file, text: fs.readFileSync(path.join(dir, plan.file), 'utf8') }).toEqual({ file: plan.file, text: render(plan) });
  });
});
