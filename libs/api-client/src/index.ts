import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

export type { paths, components, operations } from './schema';

export interface ApiClientOptions {
  /** The gateway origin, for example http://127.0.0.1:8080 */
  baseUrl: string;
  /** An API key, sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
}

/** JSON in and out; the services also speak text/plain and multipart/form-data. */
export type ApiClient = Client<paths, 'application/json'>;

/** A typed client for every operation of the committed OpenAPI document. */
export function createApiClient(opts: ApiClientOptions): ApiClient {
  const client = createClient<paths, 'application/json'>({ baseUrl: opts.baseUrl, headers: opts.headers, fetch: opts.fetch });
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
