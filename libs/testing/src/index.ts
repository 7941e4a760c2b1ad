// Real Postgres, Redis and Docker for tests and the local stack; no mocks of these.
export { testDatabase, testRedis, startEphemeralPostgres, startEphemeralRedis, withDatabase } from './fixtures';
export type { TestDatabase, TestRedis, EphemeralServer } from './fixtures';
export { startPostgresServer, postgresBinDir } from './postgres-server';
export type { PostgresServer, PostgresServerOptions } from './postgres-server';
export { startRedisServer, REDIS_INSTALL_HINT } from './redis-server';
export type { RedisServer, RedisServerOptions } from './redis-server';
export { dockerAvailable, ensureDocker, DOCKER_INSTALL_HINT } from './docker';
export type { DockerHandle, EnsureDockerOptions } from './docker';
export { spawnKept, findExecutable, processAlive } from './process';
export type { KeepOptions, KeptProcess } from './process';
export { freePort, portOpen } from './ports';
export { waitFor, sleep } from './wait';
export type { WaitOptions } from './wait';
export { captureLogs } from './logs';
export type { CapturedLogs } from './logs';
export { launchServices } from './stack/launch';
export type { LaunchOptions, LaunchedStack } from './stack/launch';
export { STACK_SERVICES } from './stack/services';
