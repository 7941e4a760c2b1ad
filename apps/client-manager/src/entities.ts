import { ApiKeyEntity } from './api-keys/api-key.entity';
import { DeletedBootstrapKeyEntity } from './api-keys/deleted-bootstrap-key.entity';
import { CreditBalanceEntity } from './credits/credit-balance.entity';
import { CreditEntryEntity } from './credits/credit-entry.entity';
import { CreditGrantRequestEntity } from './credits/credit-grant-request.entity';
import { CreditHoldEntity } from './credits/credit-hold.entity';
import { CreditTransactionEntity } from './credits/credit-transaction.entity';
import { SessionEntity } from './sessions/session.entity';
import { UserEntity } from './users/user.entity';

/** Every entity of client-manager's schema: one per table the migrations create. */
export const entities = [
  UserEntity,
  ApiKeyEntity,
  DeletedBootstrapKeyEntity,
  SessionEntity,
  CreditBalanceEntity,
  CreditHoldEntity,
  CreditTransactionEntity,
  CreditEntryEntity,
  CreditGrantRequestEntity,
];
