export interface HealthResponse {
  status: 'ok';
}

export interface ReadinessResponse {
  status: 'ready';
  /** Each dependency checked, with how long it took to answer in milliseconds. */
  checks: Record<string, { ok: boolean; ms: number }>;
}
