// Every key and channel is 'ocg:<area>:...', so one Redis can be shared with
// other software and `--scan --pattern 'ocg:auth:*'` finds one area's keys.
const PREFIX = 'ocg';

function key(area: string, ...parts: string[]): string {
  for (const part of parts) {
    if (!part || /\s/.test(part)) throw new Error(`invalid redis key part ${JSON.stringify(part)} in area ${area}`);
  }
  return [PREFIX, area, ...parts].join(':');
}

export const redisKeys = {
  /** Cached validation result of an API key, by the key's SHA-256 lookup hash. */
  apiKeyCache: (hash: string) => key('auth', 'apikey', hash),
  /** API key id -> lookup hash, so disabling or deleting a key can drop its cache entry. */
  apiKeyHashById: (keyId: string) => key('auth', 'apikey-id', keyId),
  /** Throttle marker for lastUsedAt writes of an API key. */
  apiKeyLastUsed: (keyId: string) => key('auth', 'apikey-used', keyId),
  /** Cached session, by the hash of its handle. */
  sessionCache: (hash: string) => key('auth', 'session', hash),
  /** Fixed-window rate-limit counter of one client (user id, key id, IP) in one scope (route group). */
  rateLimit: (scope: string, client: string) => key('ratelimit', scope, client),
  /** Presence of a node; expires unless heartbeats renew it. */
  nodePresence: (nodeAddress: string) => key('node', 'presence', nodeAddress),
  /** Pub/sub channel of one job's events (state changes, op states, endpoint readiness). */
  jobEvents: (jobId: string) => key('job', 'events', jobId),
  /** Redis stream of one job's events, kept (bounded) so an event stream can resume (GET /jobs/{job}/events). */
  jobEventLog: (jobId: string) => key('job', 'event-log', jobId),
  /** Sorted set of the open event streams of one job or one user (`scope` job|user), scored by lease expiry. */
  jobEventStreams: (scope: 'job' | 'user', id: string) => key('job', 'event-streams', scope, id),
  /**
   * Pub/sub channel of job route changes, `{job, status, node}` (JobRouteRecord): the gateway
   * drops a job host's route when its job leaves RUNNING (or moves) without waiting for its cache.
   */
  jobRoutes: () => key('job', 'routes'),
  /** Pub/sub channel that wakes the node pollers of a market when a job is queued. */
  marketJobsQueued: (marketAddress: string) => key('market', 'jobs-queued', marketAddress),
};
