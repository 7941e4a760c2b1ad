import path from 'node:path';
import { strykerConfig } from '../../stryker.base.mjs';

const src = 'apps/client-manager/src';

// Who may do what (key validation, its cache, scopes, access tokens, the internal
// credential) and the money arithmetic of the credits ledger. Controllers, entities,
// migrations and wiring stay out: they decide nothing. See the README ("Mutation testing").
const mutate = [
  'validation/api-key-validator.ts',
  // The validator's lookup of a key and its user (moved here from the validator).
  'api-keys/api-key.repository.ts:59-67',
  'validation/api-key-cache.ts',
  'validation/key-memory.ts',
  'validation/validation.service.ts',
  'scopes/scope.service.ts',
  // The key parts: scopes a new key may hold and the quota (create), the hidden bootstrap key
  // (get), the expiry instant (mint), the system key, ownership, masking and assertHeldBy.
  // list, update, remove and the row of mint are plumbing, their effects tested through validation.
  'api-keys/api-key.service.ts:49-63',
  'api-keys/api-key.service.ts:71-75',
  'api-keys/api-key.service.ts:115-115',
  'api-keys/api-key.service.ts:129-171',
  'auth/authentication.ts',
  'auth/authenticator.ts',
  'auth/access-tokens.ts',
  'auth/internal-credential.ts',
  // The ledger's accounts, the balance lock and post (the unlocked balance read is plumbing).
  'credits/ledger.repository.ts:1-30',
  'credits/ledger.repository.ts:38-82',
  'credits/credit-format.ts',
].map((file) => `${src}/${file}`);
// Its 402 body with both amounts, in libs/http (deployment-manager passes it on): these specs reach it.
mutate.push('libs/http/src/insufficient-balance.ts');

const base = strykerConfig({ project: 'client-manager', root: 'apps/client-manager', mutate });

export default {
  ...base,
  // Each spec file starts the whole app: a mutant run loads only the files that reached the
  // mutant in the initial run, not every related one (see tools/mutate/file-filter.cjs), and
  // stops at the first failing file, trying the likeliest and quickest files first.
  jest: {
    ...base.jest,
    config: {
      testEnvironment: path.resolve('tools/mutate/file-coverage-environment.cjs'),
      filter: path.resolve('tools/mutate/file-filter.cjs'),
      testSequencer: path.resolve('tools/mutate/fast-first-sequencer.cjs'),
      bail: 1,
    },
  },
  // Every spec starts the app in beforeAll (the bootstrap key, a first user), which jest
  // counts outside any test: nearly every mutant here is also "static", and Stryker would
  // run the whole suite (~1 min) for each. Mutants that tests cover are still run against
  // exactly those tests (beforeAll included: the mutant is active for the whole jest run);
  // only code that runs at module load alone is left out, and the report lists it as Ignored.
  ignoreStatic: true,
};
