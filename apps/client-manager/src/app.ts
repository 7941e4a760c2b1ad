import type express from 'express';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { ControllerRegistry, buildServiceApp, insufficientBalanceHandler, type Logger, type Metrics, type Tracing } from '@ocg/http';
import { pingDb } from '@ocg/db';
import { pingRedis, RateLimiter } from '@ocg/redis';
import { RegisterRoutes } from './generated/routes';
import { masterKeyOf, type ClientManagerConfig } from './config';
import { AccessTokenVerifier } from './auth/access-tokens';
import { Authenticator } from './auth/authenticator';
import { InternalCredential } from './auth/internal-credential';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { CreditHoldsController } from './credits/credit-holds.controller';
import { CreditsController } from './credits/credits.controller';
import { ScopesController } from './scopes/scopes.controller';
import { SessionsController } from './sessions/sessions.controller';
import { SigningController } from './signing/signing.controller';
import { UsersController } from './users/users.controller';
import { ValidationController } from './validation/validation.controller';
import { ApiKeyCache } from './validation/api-key-cache';
import { KeyMemory } from './validation/key-memory';
import { ApiKeyRepository } from './api-keys/api-key.repository';
import { ApiKeyService } from './api-keys/api-key.service';
import { ApiKeyValidator } from './validation/api-key-validator';
import { systemClock, type Clock } from './shared/clock';
import { CreditHoldRepository } from './credits/credit-hold.repository';
import { CreditsService } from './credits/credits.service';
import { CreditMetrics } from './credits/credit-metrics';
import { GrantRequestRepository } from './credits/grant-request.repository';
import { LedgerRepository } from './credits/ledger.repository';
import { LastUsedTracker } from './validation/last-used';
import { ScopeService } from './scopes/scope.service';
import { Secrets } from './shared/secrets';
import { SessionRepository } from './sessions/session.repository';
import { SessionService } from './sessions/session.service';
import { SigningService } from './signing/signing.service';
import { UserRepository } from './users/user.repository';
import { UserService } from './users/user.service';
import { ValidationService } from './validation/validation.service';
import { WalletSigners } from './signing/wallet-signers';

export interface ClientManagerDeps {
  logger: Logger;
  db: DataSource;
  redis: Redis;
  config: ClientManagerConfig;
  /** Tests pass their own to move time; default Date.now. */
  clock?: Clock;
  /** Records a span per request when OTEL_TRACES_EXPORTER is set (runService makes it). */
  tracing?: Tracing;
  /** The service's Prometheus registry (main makes it when METRICS_PORT is set). */
  metrics?: Metrics;
}

export type ClientManagerServices = ReturnType<typeof composeServices>;

/** Builds every service object once; main.ts and tests share it. */
export function composeServices({ logger, db, redis, config, clock = systemClock, metrics }: ClientManagerDeps) {
  const secrets = new Secrets(masterKeyOf(config));
  const memory = new KeyMemory(redis, config.API_KEY_MEMORY_TTL_SECONDS, clock);
  const cache = new ApiKeyCache(redis, config.API_KEY_CACHE_TTL_SECONDS, logger, memory);
  const perMinute = (scope: string, limit: number) => new RateLimiter(redis, scope, { limit, windowSeconds: 60 }, logger);
  const userRows = new UserRepository(db);
  const keyRows = new ApiKeyRepository(db);
  const signers = new WalletSigners(userRows, secrets);
  const validator = new ApiKeyValidator(keyRows, cache, new LastUsedTracker(keyRows, redis, clock, logger), clock, memory);
  const keys = new ApiKeyService(keyRows, userRows, secrets, cache, clock, config.MAX_API_KEYS_PER_USER);
  const users = new UserService(userRows, keyRows, secrets, keys, cache, clock, logger);
  const internal = new InternalCredential(config.INTERNAL_TOKEN);
  const ledger = new LedgerRepository(db);
  return {
    users,
    keys,
    internal,
    memory,
    authenticator: new Authenticator(validator, new AccessTokenVerifier(config), users, internal),
    sessions: new SessionService(
      new SessionRepository(db),
      userRows,
      keys,
      signers,
      perMinute('login', config.RATE_LIMIT_LOGIN_PER_MINUTE),
      { ttlSeconds: config.SESSION_TTL_SECONDS },
      clock,
    ),
    signing: new SigningService(signers, clock),
    validation: new ValidationService(validator, perMinute('validate-api-key', config.RATE_LIMIT_VALIDATE_PER_MINUTE), clock),
    credits: new CreditsService(ledger, new CreditHoldRepository(db), new GrantRequestRepository(db), userRows, metrics && new CreditMetrics(metrics, ledger)),
  };
}

/** The services plus start-up work (the bootstrap admin key); main.ts and tests both call it. */
export async function startServices(deps: ClientManagerDeps): Promise<ClientManagerServices> {
  const services = composeServices(deps);
  const { ADMIN_API_KEY, ADMIN_EMAIL } = deps.config;
  if (ADMIN_API_KEY) await services.users.ensureBootstrapAdmin(ADMIN_API_KEY, ADMIN_EMAIL);
  return services;
}

/** The composition of client-manager's HTTP app; main.ts and tests both call it. */
export function buildApp(deps: ClientManagerDeps, services: ClientManagerServices = composeServices(deps)): express.Express {
  const s = services;
  const controllers = new ControllerRegistry()
    .register(ScopesController, new ScopesController(new ScopeService()))
    .register(ApiKeysController, new ApiKeysController(s.keys))
    .register(UsersController, new UsersController(s.users))
    .register(SessionsController, new SessionsController(s.sessions, s.internal))
    .register(SigningController, new SigningController(s.signing))
    .register(ValidationController, new ValidationController(s.validation, s.sessions, s.internal))
    .register(CreditsController, new CreditsController(s.credits))
    .register(CreditHoldsController, new CreditHoldsController(s.credits));
  return buildServiceApp({
    service: 'client-manager',
    logger: deps.logger,
    tracing: deps.tracing,
    metrics: deps.metrics,
    checks: { postgres: () => pingDb(deps.db), redis: () => pingRedis(deps.redis) },
    controllers,
    register: (app) => {
      // Read by auth/authentication.ts at request time.
      app.locals.authenticator = s.authenticator;
      RegisterRoutes(app);
      app.use(insufficientBalanceHandler);
    },
  });
}
