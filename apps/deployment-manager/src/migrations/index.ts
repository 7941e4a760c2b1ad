import { Jobs1760000000100 } from './1760000000100-jobs';
import { PageData1760000000200 } from './1760000000200-page-data';
import { SealedContent1760000003500 } from './1760000003500-sealed-content';

/** Every migration of deployment-manager's schema, in order. */
export const migrations: (new () => unknown)[] = [Jobs1760000000100, PageData1760000000200, SealedContent1760000003500];
