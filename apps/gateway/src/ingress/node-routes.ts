/**
 * What a node host (`<node address>.<node domain>`) reaches: the node API's
 * routes (apps/node-agent README, "Node API") and its health checks, nothing
 * else. A node chose its own ingress URL, so an open path list would let
 * whoever registers a node use the gateway to fetch any path there.
 */
const SEGMENT = '[^/?#]+';
const NODE_API: [method: string, pattern: RegExp][] = [
  ['GET', new RegExp(`^/job/${SEGMENT}/ops$`)],
  ['GET', new RegExp(`^/job/${SEGMENT}/results$`)],
  ['GET', new RegExp(`^/job/${SEGMENT}/ops/${SEGMENT}/logs$`)],
  ['POST', new RegExp(`^/job/${SEGMENT}/group/${SEGMENT}/(?:stop|restart)$`)],
  ['POST', new RegExp(`^/job/${SEGMENT}/group/${SEGMENT}/operation/${SEGMENT}/(?:stop|restart)$`)],
  ['GET', /^\/(?:healthz|readyz)$/],
];

/** A segment that is, once decoded, a dot segment or hides a separator could climb out of the route. */
function plainSegments(path: string): boolean {
  // The path's leading '' (before the first '/') passes like any plain segment.
  return path.split('/').every((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return false;
    }
    return decoded !== '.' && decoded !== '..' && !/[/\\\0]/.test(decoded);
  });
}

/** True when method and path are a node API route (the query string is the node's to judge). */
export function isNodeApiRoute(method: string | undefined, url: string | undefined): boolean {
  if (url === undefined) return false;
  const path = url.split('?')[0];
  const m = method === 'HEAD' ? 'GET' : method;
  return plainSegments(path) && NODE_API.some(([routeMethod, pattern]) => routeMethod === m && pattern.test(path));
}
