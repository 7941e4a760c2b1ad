import { strykerConfig } from '../../stryker.base.mjs';

const root = 'apps/deployment-manager';
// Money and state (see the README's "Mutation testing"): holds, their release, settlement and its arithmetic, job states, content ids.
const files = [
  `${root}/src/cas/cid.ts`,
  `${root}/src/jobs/state.ts`,
  `${root}/src/jobs/settlement.service.ts`,
  `${root}/src/jobs/hold.repository.ts`,
  `${root}/src/jobs/loose-holds.ts`,
];
const base = strykerConfig({ project: 'deployment-manager', root, mutate: files });

export default {
  ...base,
  // The focused specs of that code: pure ones, and holds.spec.ts against client-manager as a process (so it goes
  // into the sandbox, unmutated). Each mutant re-runs its covering tests with their setup, so the specs that start
  // both managers, the gateway, a node agent or Docker stay out: they cover the same code at many times the cost.
  jest: {
    ...base.jest,
    config: {
      testMatch: ['cid', 'state', 'billing', 'holds'].map((name) => `<rootDir>/test/${name}.spec.ts`),
    },
  },
  ignorePatterns: [...base.ignorePatterns, '!/apps/client-manager'],
};
