import type { EntityManager } from 'typeorm';
import { apiKeyLookupHash, generateApiKey, isRandomId, randomId } from '@ocg/auth';
import {
  ErrorCodes,
  USER_SCOPES,
  type ApiKeyRecord,
  type CreateApiKeyRequest,
  type CreateApiKeyResponse,
  type DeleteApiKeyResponse,
  type ListApiKeysResponse,
  type UpdateApiKeyRequest,
} from '@ocg/contracts';
import { HttpError, NotFoundError, QuotaExceededError } from '@ocg/http';
import type { UserRepository } from '../users/user.repository';
import type { ApiKeyEntity } from './api-key.entity';
import type { ApiKeyRepository } from './api-key.repository';
import type { Principal } from '../auth/principal';
import type { ApiKeyCache } from '../validation/api-key-cache';
import type { Clock } from '../shared/clock';
import type { Secrets } from '../shared/secrets';
import { toApiKeyRecord, toCreateResponse } from '../shared/records';

export interface NewKey {
  userId: string;
  name: string;
  scopes: readonly string[];
  llmModels?: string[] | null;
  /** Seconds from creation; none: never expires. */
  expiresIn?: number;
  system?: boolean;
  /** The operator's ADMIN_API_KEY. */
  bootstrap?: boolean;
  /** A given key text (the bootstrap admin key); default a fresh one. */
  text?: string;
}

/** A user's API keys. Another user's key id answers 404, never 403: ids do not leak. */
export class ApiKeyService {
  constructor(
    private readonly repo: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly secrets: Secrets,
    private readonly cache: ApiKeyCache,
    private readonly clock: Clock,
    /** MAX_API_KEYS_PER_USER: keys a user may hold (their system key aside). */
    private readonly maxKeysPerUser = 100,
  ) {}

  async create(caller: Principal, req: CreateApiKeyRequest): Promise<CreateApiKeyResponse> {
    const scopes = req.scopes ?? [...caller.scopes];
    assertHeldBy(caller, scopes);
    const { row, text } = await this.repo.transaction(async (m) => {
      await this.users.lock(m, caller.userId); // the count and the insert do not interleave
      const count = await this.repo.countOrdinary(m, caller.userId);
      if (count >= this.maxKeysPerUser) {
        throw new QuotaExceededError(`API key limit reached: a user holds at most ${this.maxKeysPerUser} keys (MAX_API_KEYS_PER_USER); delete one first`, [
          { path: '', message: `over the limit of ${this.maxKeysPerUser} API keys per user` },
        ]);
      }
      return this.mint(m, { userId: caller.userId, name: req.name, scopes, llmModels: req.llmModels, expiresIn: req.expiresIn });
    });
    return toCreateResponse(row, text);
  }

  /** The operator's bootstrap key is in no list (ADR 0037). */
  async list(caller: Principal): Promise<ListApiKeysResponse> {
    const rows = await this.repo.listOwned(caller.userId);
    return { keys: rows.map((row) => this.record(row, caller)), total: rows.length };
  }

  async get(caller: Principal, id: string): Promise<ApiKeyRecord> {
    const row = await this.owned(caller, id);
    if (row.bootstrap) throw new NotFoundError(`No API key ${id}`);
    return this.record(row, caller);
  }

  async update(caller: Principal, id: string, req: UpdateApiKeyRequest): Promise<ApiKeyRecord> {
    const row = await this.owned(caller, id);
    const changes: Partial<ApiKeyEntity> = { updatedAt: new Date(this.clock()) };
    if (req.name !== undefined) changes.name = req.name;
    if (req.status !== undefined) changes.status = req.status;
    if (req.llmModels !== undefined) changes.llmModels = req.llmModels;
    await this.repo.update(row.id, changes);
    await this.cache.invalidate(row.id, row.lookupHash);
    return this.record({ ...row, ...changes }, caller);
  }

  /** A deleted bootstrap key is remembered by its hash: the same ADMIN_API_KEY does not bring it back. */
  async remove(caller: Principal, id: string): Promise<DeleteApiKeyResponse> {
    const row = await this.owned(caller, id);
    await this.repo.transaction(async (m) => {
      await this.repo.remove(m, row.id, caller.userId);
      if (row.bootstrap) await this.repo.rememberDeletedBootstrap(m, row.lookupHash);
    });
    await this.cache.invalidate(row.id, row.lookupHash);
    return { success: true };
  }

  /** Stores a new key: sealed text plus lookup hash. The text is returned once, to the caller. */
  async mint(manager: EntityManager, spec: NewKey): Promise<{ row: ApiKeyEntity; text: string }> {
    const id = randomId('key');
    const text = spec.text ?? generateApiKey();
    const now = new Date(this.clock()); // one reading: expiresAt - createdAt is exactly expiresIn
    const row: ApiKeyEntity = {
      id,
      userId: spec.userId,
      name: spec.name,
      keySealed: this.secrets.sealApiKey(id, text),
      lookupHash: apiKeyLookupHash(text),
      status: 'active',
      scopes: [...spec.scopes],
      llmModels: spec.llmModels ?? null,
      system: spec.system ?? false,
      bootstrap: spec.bootstrap ?? false,
      expiresAt: spec.expiresIn === undefined ? null : new Date(now.getTime() + spec.expiresIn * 1000),
      lastUsedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.repo.insert(manager, row);
    return { row, text };
  }

  /**
   * The user's system key (session validation hands it to the dashboard),
   * created on first use. A disabled or expired one is left as an ordinary key
   * and a fresh one takes its place, so revoking it works and sessions go on.
   */
  async systemKeyFor(userId: string): Promise<string> {
    const current = await this.repo.findSystemKey(userId);
    if (current && this.usable(current)) return this.secrets.openApiKey(current.id, current.keySealed);
    return this.repo.transaction(async (m) => {
      await this.users.lock(m, userId); // one creator per user at a time
      const row = await this.repo.findSystemKey(userId, m);
      if (row && this.usable(row)) return this.secrets.openApiKey(row.id, row.keySealed);
      if (row) await this.repo.update(row.id, { system: false }, m);
      return (await this.mint(m, { userId, name: 'system', scopes: USER_SCOPES, system: true })).text;
    });
  }

  private usable(row: ApiKeyEntity): boolean {
    return row.status === 'active' && (row.expiresAt === null || row.expiresAt.getTime() > this.clock());
  }

  private async owned(caller: Principal, id: string): Promise<ApiKeyEntity> {
    // Stryker disable next-line ConditionalExpression: a malformed id finds no row either way (text column); the check only spares the query
    const row = isRandomId('key', id) ? await this.repo.findOwned(id, caller.userId) : null;
    if (!row) throw new NotFoundError(`No API key ${id}`);
    return row;
  }

  /** The full text only to a credential holding every scope of the key: a narrow key must not read a broader one. */
  private record(row: ApiKeyEntity, caller: Principal): ApiKeyRecord {
    const covered = row.scopes.every((scope) => caller.scopes.includes(scope));
    const text = this.secrets.openApiKey(row.id, row.keySealed);
    return toApiKeyRecord(row, covered ? text : maskApiKey(text), !covered);
  }
}

/** `ocg_AbCd…wXyZ`: enough to recognise a key, not to use it. */
export function maskApiKey(text: string): string {
  return `${text.slice(0, 8)}…${text.slice(-4)}`;
}

/** A key may only carry scopes its creator holds; the first one missing is named. */
function assertHeldBy(caller: Principal, scopes: readonly string[]): void {
  const index = scopes.findIndex((scope) => !caller.scopes.includes(scope));
  if (index < 0) return;
  const message = `The calling credential does not hold the scope ${scopes[index]}; a new key may only hold scopes its creator holds`;
  throw new HttpError(403, ErrorCodes.FORBIDDEN, message, [{ path: `/scopes/${index}`, message: 'is not held by the calling credential' }]);
}
