export { ApiKeyEntity, type ApiKeyRow } from './api-keys/api-key.entity';
export { SessionEntity, type SessionRow } from './sessions/session.entity';
export { UserEntity, type UserRow } from './users/user.entity';
import { ApiKeyEntity } from './api-keys/api-key.entity';
import { SessionEntity } from './sessions/session.entity';
import { UserEntity } from './users/user.entity';

/**
 * Every TypeORM entity of client-manager. Plain EntitySchema objects: no
 * decorators, so tsx, swc and tsc all read them alike. The credits ledger is
 * SQL of its own (it is all row locks).
 */
export const entities = [UserEntity, ApiKeyEntity, SessionEntity];
