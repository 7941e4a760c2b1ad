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
export { freePort, freePorts, portOpen } from './ports';
export { removeNodeObjects, dropJobRules, sweepOrphans, testNodeId, testResourceDir } from './node-objects';
export { waitFor, sleep } from './wait';
export { seriesReadBy, notExported } from './metric-series';
export type { WaitOptions } from './wait';
export { captureLogs } from './logs';
export type { CapturedLogs } from './logs';
export { launchServices } from './stack/launch';
export type { LaunchOptions, LaunchedStack } from './stack/launch';
export { STACK_SERVICES } from './stack/services';
export { isConsoleEvent } from './stack/events';
export { DEFAULT_RESTART_POLICY, restartDelay, supervise, type RestartPolicy, type Supervisor } from './stack/supervise';
export { BUSYBOX_IMAGE, ensureBusyboxImage, imageExists } from './images/busybox';
export { startRegistry, type TestRegistry } from './images/registry';
export { ensureNginxOriginImage, NGINX_ORIGIN_BODY, NGINX_ORIGIN_IMAGE } from './images/nginx';
export { ensureLocalTls, OPENSSL_INSTALL_HINT, type LocalTls, type LocalTlsOptions } from './tls';
export { startTsProcess, type ManagedProcess, type TsProcessOptions } from './stack/process';
export { localHttpsDispatcher, localhostLookup, trustLocalCa } from './local-https';
export {
  load,
  runBench,
  verdict,
  ratioLine,
  startBareServer,
  profileEnv,
  cpuSecondsOf,
  cpuSplitOf,
  perCore,
  perCoreLine,
  interleaved,
  type Measured,
  type Load,
  type LoadOptions,
  type BareServer,
} from './bench/load';
export { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
