import createClient, { type Client, type Middleware } from 'openapi-fetch';
// `.js`: the published package is ESM, whose relative imports name the emitted file.
import type { paths } from './schema.js';
import type { paths as nodePaths } from './node-schema.js';

export type { paths, components, operations } from './schema.js';
export type { paths as nodePaths, components as nodeComponents, operations as nodeOperations } from './node-schema.js';

export interface ApiClientOptions {
  /** The gateway origin, for example http://127.0.0.1:8080 */
  baseUrl: string;
  /** An API key, sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  /** In a browser: `'include'` sends the gateway's session cookie (the gateway must list the page's origin in CORS_ORIGINS). */
  credentials?: RequestInit['credentials'];
}

/** JSON in and out; the services also speak text/plain and multipart/form-data. */
export type ApiClient = Client<paths, 'application/json'>;

/** A typed client for every operation of the committed OpenAPI document. */
export function createApiClient(opts: ApiClientOptions): ApiClient {
  const client = createClient<paths, 'application/json'>({ baseUrl: opts.baseUrl, headers: opts.headers, fetch: opts.fetch, credentials: opts.credentials });
  if (opts.apiKey) {
    const auth: Middleware = {
      onRequest({ request }) {
        request.headers.set('authorization', `Bearer ${opts.apiKey}`);
        return request;
      },
    };
    client.use(auth);
  }
  return client;
}

export interface NodeApiClientOptions {
  /** The node API's origin: `https://<node address>.<node domain>` through the gateway, or the agent's API_PORT. */
  baseUrl: string;
  /**
   * The job poster's signed header for this node and job (`ocg job node-header <job>`;
   * good for 5 minutes), or a function answering a fresh one for each request.
   */
  authorization?: string | (() => string | Promise<string>);
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
}

/** JSON answers; `GET /job/{job}/ops/{opid}/logs?follow=true` streams NDJSON (read it with `parseAs: 'stream'`). */
export type NodeApiClient = Client<nodePaths, 'application/json'>;

/** A typed client for every operation of the node API's document (libs/api-spec/node-openapi.json). */
export function createNodeApiClient(opts: NodeApiClientOptions): NodeApiClient {
  const client = createClient<nodePaths, 'application/json'>({ baseUrl: opts.baseUrl, headers: opts.headers, fetch: opts.fetch });
  const { authorization } = opts;
  if (authorization) {
    const auth: Middleware = {
      async onRequest({ request }) {
        request.headers.set('authorization', typeof authorization === 'string' ? authorization : await authorization());
        return request;
      },
    };
    client.use(auth);
  }
  return client;
}
