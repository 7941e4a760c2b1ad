import { Jobs1760000000100 } from './1760000000100-jobs';

/** Every migration of deployment-manager's schema, in order. */
export const migrations: (new () => unknown)[] = [Jobs1760000000100];
