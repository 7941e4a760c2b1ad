import type express from 'express';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { ControllerRegistry, buildServiceApp, insufficientBalanceHandler, type Logger } from '@ocg/http';
import { pingDb } from '@ocg/db';
import { pingRedis, RateLimiter } from '@ocg/redis';
import { RegisterRoutes } from './generated/routes';
import { masterKeyOf, type ClientManagerConfig } from './config';
import { AccessTokenVerifier } from './auth/access-tokens';
import { Authenticator } from './auth/authenticator';
import { InternalCredential } from './auth/internal-credential';
import { ApiKeysController } from './controllers/api-keys.controller';
import { CreditHoldsController } from './controllers/credit-holds.controller';
import { CreditsController } from './controllers/credits.controller';
import { ScopesController } from './controllers/scopes.controller';
import { SessionsController } from './controllers/sessions.controller';
import { SigningController } from './controllers/signing.controller';
import { UsersController } from './controllers/users.controller';
import { ValidationController } from './controllers/validation.controller';
import { ApiKeyCache } from './services/api-key-cache';
import { ApiKeyService } from './services/api-key.service';
import { ApiKeyValidator } from './services/api-key-validator';
import { systemClock, type Clock } from './services/clock';
import { CreditsService } from './services/credits.service';
import { LastUsedTracker } from './services/last-used';
import { ScopeService } from './services/scope.service';
import { Secrets } from './services/secrets';
import { SessionService } from './services/session.service';
import { SigningService } from './services/signing.service';
import { UserService } from './services/user.service';
import { ValidationService } from './services/validation.service';
import { WalletSigners } from './services/wallet-signers';

export interface ClientManagerDeps {
  logger: Logger;
  db: DataSource;
  redis: Redis;
  config: ClientManagerConfig;
  /** Tests pass their own to move time; default Date.now. */
  clock?: Clock;
}

export type ClientManagerServices = ReturnType<typeof composeServices>;

/** Builds every service object once; main.ts and tests share it. */
export function composeServices({ logger, db, redis, config, clock = systemClock }: ClientManagerDeps) {
  const secrets = new Secrets(masterKeyOf(config));
  const cache = new ApiKeyCache(redis, config.API_KEY_CACHE_TTL_SECONDS, logger);
  const perMinute = (scope: string, limit: number) => new RateLimiter(redis, scope, { limit, windowSeconds: 60 }, logger);
  const signers = new WalletSigners(db, secrets);
  const validator = new ApiKeyValidator(db, cache, new LastUsedTracker(db, redis, clock, logger), clock);
  const keys = new ApiKeyService(db, secrets, cache, clock, config.MAX_API_KEYS_PER_USER);
  const users = new UserService(db, secrets, keys, cache, clock, logger);
  const internal = new InternalCredential(config.INTERNAL_TOKEN);
  return {
    users,
    keys,
    internal,
    authenticator: new Authenticator(validator, new AccessTokenVerifier(config), users, internal),
    sessions: new SessionService(db, keys, signers, perMinute('login', config.RATE_LIMIT_LOGIN_PER_MINUTE), { ttlSeconds: config.SESSION_TTL_SECONDS }, clock),
    signing: new SigningService(signers, clock),
    validation: new ValidationService(validator, perMinute('validate-api-key', config.RATE_LIMIT_VALIDATE_PER_MINUTE)),
    credits: new CreditsService(db),
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
