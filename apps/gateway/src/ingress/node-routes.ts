import { nodeOpenApiDocument, routeTableFrom } from '@ocg/api-spec';

/**
 * What a node host (`<node address>.<node domain>`) reaches: the operations
 * of the node API's document (libs/api-spec/node-openapi.json: the job
 * routes and the health checks), nothing else. A node chose its own ingress
 * URL, so an open path list would let whoever registers a node use the
 * gateway to fetch any path there.
 */
const NODE_API = routeTableFrom(nodeOpenApiDocument as Parameters<typeof routeTableFrom>[0]);

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
  // A '#' is no part of a request target: the document's `{job}` would take it as part of a value.
  return method !== undefined && !path.includes('#') && plainSegments(path) && NODE_API.match(method, path) !== undefined;
}
