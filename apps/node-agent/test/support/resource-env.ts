/** Agent settings for the resource specs: the test servers on loopback allowed, a 2 MB resource limit, quick retries and timeouts. */
export const RESOURCE_TEST_ENV = {
  RESOURCE_ALLOW: '127.0.0.1',
  RESOURCE_MAX_GB: '0.002',
  RESOURCE_RETRIES: '1',
  RESOURCE_RETRY_BACKOFF_MS: '50',
  RESOURCE_IDLE_TIMEOUT_SECONDS: '1',
};
