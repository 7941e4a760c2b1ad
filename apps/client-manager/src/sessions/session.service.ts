import { createHash } from 'node:crypto';
import { createAuthHeader, isRandomId, randomId } from '@ocg/auth';
import type { LoginRequest, LoginResponse, LogoutResponse, ValidateSessionResponse } from '@ocg/contracts';
import { UnauthorizedError } from '@ocg/http';
import type { UserRepository } from '../users/user.repository';

import type { ApiKeyService } from '../api-keys/api-key.service';
import type { Clock } from '../shared/clock';
import { iso } from '../shared/clock';
import { clearedSessionCookie, sessionCookie, sessionHandleFrom } from './cookies';
import type { RateLimiter } from '@ocg/redis';
import { toUserRecord } from '../shared/records';
import type { RequestContext } from '../shared/request-context';
import { verifyPassword } from '../users/passwords';
import type { WalletSigners } from '../signing/wallet-signers';
import type { SessionRepository } from './session.repository';

/** The message of the auth header session validation signs with the user's wallet. */
export const SESSION_AUTH_MESSAGE = 'ocg-session';

export interface SessionSettings {
  ttlSeconds: number;
}

export interface WithCookie<T> {
  body: T;
  cookie: string;
}

/** Browser sessions: a cookie holding a random handle; the table stores only its hash. */
export class SessionService {
  constructor(
    private readonly repo: SessionRepository,
    private readonly users: UserRepository,
    private readonly keys: ApiKeyService,
    private readonly signers: WalletSigners,
    /** Login attempts per client address. */
    private readonly loginLimit: RateLimiter,
    private readonly settings: SessionSettings,
    private readonly clock: Clock,
  ) {}

  async login(req: LoginRequest, ctx: RequestContext): Promise<WithCookie<LoginResponse>> {
    await this.loginLimit.enforce(ctx.client, `login requests from ${ctx.client}`);
    const user = await this.users.findByEmail(req.email);
    if (!(await verifyPassword(user?.passwordHash, req.password)) || !user) throw new UnauthorizedError('Email or password is incorrect');
    const handle = randomId('ses');
    const now = this.clock();
    const expiresAt = new Date(now + this.settings.ttlSeconds * 1000);
    await this.repo.insert({ handleHash: hashHandle(handle), userId: user.id, expiresAt, createdAt: new Date(now) });
    // Expired sessions of this user go now: the table stays as small as the live set.
    await this.repo.removeExpired(user.id, new Date(now));
    return { body: { user: toUserRecord(user), expiresAt: iso(expiresAt) }, cookie: sessionCookie(handle, this.settings.ttlSeconds, ctx.https) };
  }

  async logout(cookieHeader: string | undefined, ctx: RequestContext): Promise<WithCookie<LogoutResponse>> {
    const handle = sessionHandleFrom(cookieHeader);
    if (handle) await this.repo.remove(hashHandle(handle));
    return { body: { success: true }, cookie: clearedSessionCookie(ctx.https) };
  }

  async validate(cookieHeader: string): Promise<ValidateSessionResponse> {
    const handle = sessionHandleFrom(cookieHeader);
    if (!handle || !isRandomId('ses', handle)) return { valid: false };
    const found = await this.repo.findLiveWithUser(hashHandle(handle), new Date(this.clock()));
    if (!found) return { valid: false };
    const { expiresAt, user } = found;
    const authenticationHeader = createAuthHeader(this.signers.forUser(user), SESSION_AUTH_MESSAGE, { now: this.clock() }).header;
    const systemApiKey = await this.keys.systemKeyFor(user.id);
    return {
      valid: true,
      user: { ...toUserRecord(user), sessionProviderUserId: null, authenticationHeader, systemApiKey },
      session: { handle, expiresAt: iso(expiresAt) },
    };
  }
}

const hashHandle = (handle: string): string => createHash('sha256').update(handle).digest('hex');
