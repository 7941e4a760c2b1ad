// Shared StrykerJS settings; each covered project's stryker.config.mjs adds its
// name and sources (see tools/mutate/README.md). Run from the workspace root.
/** @param {{ project: string, root: string, mutate?: string[] }} p */
export function strykerConfig({ project, root, mutate }) {
  // CI's changed-files mode (tools/mutate/changed.ts) names the files; it keeps its own state and report.
  const only = process.env.STRYKER_MUTATE?.split(',').filter(Boolean);
  const state = only ? `${project}-changed` : project;
  // Property tests run once per mutant they cover: fewer runs, and a fixed seed so verdicts repeat
  // (the test workers inherit this environment; see propertyRuns in the projects' test helpers).
  process.env.PROPERTY_RUNS_SCALE ??= '0.1';
  process.env.PROPERTY_SEED ??= '22';
  return {
    $schema: '../../node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    testRunner: 'jest',
    jest: { configFile: `${root}/jest.config.cjs`, enableFindRelatedTests: true },
    coverageAnalysis: 'perTest',
    // With an explicit list (an app's files, or line ranges `file:from-to`, in scope), CI's changed files are
    // mutated only where the list names them.
    mutate: only
      ? mutate
        ? only.flatMap((file) => mutate.filter((m) => m === file || m.startsWith(`${file}:`)))
        : only
      : (mutate ?? [`${root}/src/**/*.ts`, `!${root}/src/**/index.ts`]),
    // 2 cores shared by several runs: at most 2 jest workers.
    concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
    thresholds: { high: 95, low: 90, break: 90 },
    // Only re-test mutants whose code or covering tests changed since the last run.
    incremental: true,
    incrementalFile: `tmp/stryker/${state}.json`,
    reporters: ['clear-text', 'progress-append-only', 'json'],
    jsonReporter: { fileName: `tmp/stryker/${state}-report.json` },
    clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
    // The sandbox needs the libraries and the shared jest/ts settings, and of the apps only the one under test.
    ignorePatterns: ['/apps/*', ...(root.startsWith('apps/') ? [`!/${root}`] : []), '/e2e', '/docs', '/examples', '/tmp', '/.nx', '/.data', '/coverage', '/dist'],
    tempDirName: `tmp/stryker/sandbox-${state}`,
    cleanTempDir: 'always',
    disableTypeChecks: `${root}/src/**/*.ts`,
  };
}
