import { strykerConfig } from '../../stryker.base.mjs';

const root = 'apps/deployment-manager';
const base = strykerConfig({
  project: 'deployment-manager',
  root,
  // Money and state (see the README's "Mutation testing"): holds, their release, settlement and its arithmetic, job states, content ids.
  mutate: [
    `${root}/src/cas/cid.ts`,
    `${root}/src/jobs/state.ts`,
    `${root}/src/jobs/settlement.service.ts`,
    `${root}/src/jobs/hold.repository.ts`,
    `${root}/src/jobs/loose-holds.ts`,
  ],
});

export default {
  ...base,
  // The specs of that code, which run against client-manager and host-manager as processes (so both go into the
  // sandbox, unmutated) and need no Docker; the others need the gateway, a node agent or Docker.
  jest: {
    ...base.jest,
    config: {
      testMatch: ['cid', 'state', 'billing', 'settlement', 'holds', 'jobs.extend', 'jobs.short-balance'].map((name) => `<rootDir>/test/${name}.spec.ts`),
    },
  },
  ignorePatterns: [...base.ignorePatterns, '!/apps/client-manager', '!/apps/host-manager'],
};
