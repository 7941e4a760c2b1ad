import { Identity1760000000000 } from './1760000000000-identity';
import { Credits1760000000001 } from './1760000000001-credits';
import { GrantRequests1760000000330 } from './1760000000330-grant-requests';
import { BootstrapKeys1760000003600 } from './1760000003600-bootstrap-keys';
import { HoldFunction1760000007400 } from './1760000007400-hold-function';

/** Every migration of client-manager's schema, in order. */
export const migrations: (new () => unknown)[] = [Identity1760000000000, Credits1760000000001, GrantRequests1760000000330, BootstrapKeys1760000003600, HoldFunction1760000007400];
