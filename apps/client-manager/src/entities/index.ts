export { ApiKeyEntity, type ApiKeyRow } from './api-key.entity';
export { SessionEntity, type SessionRow } from './session.entity';
export { UserEntity, type UserRow } from './user.entity';
import { ApiKeyEntity } from './api-key.entity';
import { SessionEntity } from './session.entity';
import { UserEntity } from './user.entity';

/**
 * Every TypeORM entity of client-manager. Plain EntitySchema objects: no
 * decorators, so tsx, swc and tsc all read them alike. The credits ledger is
 * SQL of its own (it is all row locks).
 */
export const entities = [UserEntity, ApiKeyEntity, SessionEntity];
