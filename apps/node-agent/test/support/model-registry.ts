/**
 * Debian's docker-registry holding small model-runner models, pushed over the
 * registry's HTTP API in the runner's layout (a schema 2 manifest, a config,
 * layers with the runner's media types), behind a front that asks for
 * anonymous Bearer tokens as the runner's public registry does. The front
 * counts the blob bytes it passes on.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRegistry, type TestRegistry } from '@ocg/testing';

export interface PushedModel {
  repository: string;
  tag: string;
  manifest: Buffer;
  /** Config and layers: digest (`sha256:<hex>`) to bytes. */
  blobs: Map<string, Buffer>;
}

export interface ModelRegistry {
  /** The front's origin: Bearer challenge, token realm at /token. */
  url: string;
  /** `127.0.0.1:<port>` of the front: the host part of model names. */
  host: string;
  /** The registry itself (Basic auth only). */
  directUrl: string;
  push(repository: string, tag: string): Promise<PushedModel>;
  /** Repositories the token realm refuses (private ones). */
  privateRepositories: Set<string>;
  /** Tokens given so far stop working: the next request is challenged again. */
  expireTokens(): void;
  blobBytesSent(): number;
  tokensIssued(): number;
  reset(): void;
  stop(): Promise<void>;
}

export async function startModelRegistry(): Promise<ModelRegistry> {
  const registry = await startRegistry();
  const basic = `Basic ${Buffer.from(`${registry.username}:${registry.password}`).toString('base64')}`;
  const tokens = new Set<string>();
  const privateRepositories = new Set<string>();
  let blobBytes = 0;
  let issued = 0;
  const front = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/token') {
      const repo = /^repository:(.+):pull$/.exec(url.searchParams.get('scope') ?? '')?.[1];
      if (!repo || privateRepositories.has(repo) || url.searchParams.get('service') !== 'test-registry') return void res.writeHead(401).end();
      const token = randomBytes(16).toString('hex');
      tokens.add(token);
      issued++;
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ token, expires_in: 300 }));
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !tokens.has(bearer)) {
      const repo = /^\/v2\/(.+)\/(manifests|blobs)\//.exec(url.pathname)?.[1] ?? '';
      const challenge = `Bearer realm="http://${host}/token",service="test-registry",scope="repository:${repo}:pull"`;
      res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' });
      return void res.end('{"errors":[{"code":"UNAUTHORIZED"}]}');
    }
    forward(req, res, registry.host, basic, (n) => {
      if (url.pathname.includes('/blobs/')) blobBytes += n;
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(front.address() as AddressInfo).port}`;

  return {
    url: `http://${host}`,
    host,
    directUrl: `http://${registry.host}`,
    push: (repository, tag) => pushModel(registry, basic, repository, tag),
    privateRepositories,
    expireTokens: () => tokens.clear(),
    blobBytesSent: () => blobBytes,
    tokensIssued: () => issued,
    reset: () => {
      blobBytes = 0;
      issued = 0;
    },
    stop: async () => {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
      await registry.stop();
    },
  };
}

function forward(req: http.IncomingMessage, res: http.ServerResponse, registryHost: string, basic: string, count: (n: number) => void): void {
  const [hostname, port] = registryHost.split(':');
  const headers: http.OutgoingHttpHeaders = { authorization: basic };
  for (const name of ['accept', 'range']) if (req.headers[name]) headers[name] = req.headers[name];
  const upstream = http.request({ hostname, port, path: req.url, method: req.method, headers, agent: false }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.on('data', (d: Buffer) => count(d.length));
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  upstream.end();
}

/** A model as the runner's registry holds one: a tiny weights layer, a template, parameters, a license and a config. */
async function pushModel(registry: TestRegistry, basic: string, repository: string, tag: string): Promise<PushedModel> {
  const layers = [
    { mediaType: 'application/vnd.ollama.image.model', bytes: Buffer.concat([Buffer.from('GGUF'), randomBytes(40_000)]) },
    { mediaType: 'application/vnd.ollama.image.template', bytes: Buffer.from('{{ .Prompt }}') },
    { mediaType: 'application/vnd.ollama.image.params', bytes: Buffer.from('{"stop":["</s>"]}') },
    { mediaType: 'application/vnd.ollama.image.license', bytes: Buffer.from(`test license ${randomBytes(4).toString('hex')}`) },
  ].map((l) => ({ ...l, digest: digestOf(l.bytes) }));
  const config = Buffer.from(
    JSON.stringify({ model_format: 'gguf', model_family: 'llama', model_type: '1M', file_type: 'Q4_0', rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) } }),
  );
  const blobs = new Map([[digestOf(config), config], ...layers.map((l) => [l.digest, l.bytes] as [string, Buffer])]);
  for (const [digest, bytes] of blobs) await uploadBlob(registry.host, basic, repository, digest, bytes);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
      config: { mediaType: 'application/vnd.docker.container.image.v1+json', digest: digestOf(config), size: config.length },
      layers: layers.map((l) => ({ mediaType: l.mediaType, digest: l.digest, size: l.bytes.length })),
    }),
  );
  await call(registry.host, basic, 'PUT', `/v2/${repository}/manifests/${tag}`, manifest, { 'content-type': 'application/vnd.docker.distribution.manifest.v2+json' }, 201);
  return { repository, tag, manifest, blobs };
}

async function uploadBlob(host: string, basic: string, repository: string, digest: string, bytes: Buffer): Promise<void> {
  const started = await call(host, basic, 'POST', `/v2/${repository}/blobs/uploads/`, Buffer.alloc(0), {}, 202);
  const location = new URL(String(started.location), `http://${host}`);
  location.searchParams.set('digest', digest);
  await call(host, basic, 'PUT', location.pathname + location.search, bytes, { 'content-type': 'application/octet-stream' }, 201);
}

function call(host: string, basic: string, method: string, path: string, body: Buffer, headers: http.OutgoingHttpHeaders, expected: number): Promise<http.IncomingHttpHeaders> {
  const [hostname, port] = host.split(':');
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path, method, headers: { ...headers, authorization: basic, 'content-length': body.length }, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => (res.statusCode === expected ? resolve(res.headers) : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function digestOf(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
