/**
 * A small model hub on 127.0.0.1 speaking the parts of the hub's HTTP API a
 * node uses: revision info with the file list (`/api/models/{repo}/revision/{rev}`),
 * downloads at `/{repo}/resolve/{commit}/{path}`, Bearer tokens for private
 * repositories, and LFS files redirected to a second server on another port,
 * as the real hub sends them to its CDN. Counts the bytes both send.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HubRepo {
  /** Revision name (branch or tag) to its files; each revision gets its own commit. */
  revisions: Record<string, Record<string, Buffer | string>>;
  /** Private: only this Bearer token may read it. */
  token?: string;
  /** Its LFS files answer with headers and then never send a byte. */
  stalls?: boolean;
}

export interface ModelHub {
  url: string;
  /** The LFS server's origin (another port): redirects go there. */
  lfsUrl: string;
  /** The commit a revision resolved to. */
  commit(repo: string, revision: string): string;
  /** File bytes sent by the hub and the LFS server since the last reset (file lists not counted). */
  fileBytesSent(): number;
  /** Requests seen, as `METHOD path` (query dropped), with whether they carried an Authorization header. */
  requests: { server: 'hub' | 'lfs'; path: string; authorized: boolean; range?: string }[];
  reset(): void;
  stop(): Promise<void>;
}

/** Files above this size are LFS files: listed with sha256 and served through the redirect. */
export const LFS_THRESHOLD = 1024;

interface Commit {
  sha: string;
  files: Map<string, Buffer>;
}

export async function startModelHub(repos: Record<string, HubRepo>): Promise<ModelHub> {
  const commits = new Map<string, Map<string, Commit>>();
  const blobs = new Map<string, Buffer>();
  for (const [repo, spec] of Object.entries(repos)) {
    const byRevision = new Map<string, Commit>();
    for (const [revision, files] of Object.entries(spec.revisions)) {
      const commit: Commit = { sha: randomBytes(20).toString('hex'), files: new Map() };
      for (const [p, content] of Object.entries(files)) commit.files.set(p, Buffer.from(content));
      byRevision.set(revision, commit);
      byRevision.set(commit.sha, commit);
    }
    commits.set(repo, byRevision);
  }
  let sent = 0;
  const stalled = new Set<string>();
  const requests: ModelHub['requests'] = [];
  const lfs = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ server: 'lfs', path, authorized: !!req.headers.authorization, range: req.headers.range });
    const oid = path.replace(/^\/lfs\//, '');
    const blob = blobs.get(oid);
    if (!blob) return answer(res, 404, 'no such object');
    if (stalled.has(oid)) return res.writeHead(200, { 'content-length': blob.length }).flushHeaders();
    serveBytes(req, res, blob, (n) => (sent += n));
  });

  const hub = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({ server: 'hub', path: url.pathname, authorized: !!req.headers.authorization, range: req.headers.range });
    const info = /^\/api\/models\/(.+)\/revision\/([^/]+)$/.exec(url.pathname);
    const download = /^\/(.+?)\/resolve\/([0-9a-f]{40})\/(.+)$/.exec(url.pathname);
    const repo = info?.[1] ?? download?.[1] ?? '';
    const spec = repos[repo];
    if (!spec || !(info || download)) return answer(res, 404, 'Repository not found', 'RepoNotFound');
    if (spec.token && req.headers.authorization !== `Bearer ${spec.token}`) return answer(res, 401, 'Invalid credentials or private repository');
    const commit = commits.get(repo)?.get(decodeURIComponent(info?.[2] ?? download?.[2] ?? ''));
    if (!commit) return answer(res, 404, 'Revision not found', 'RevisionNotFound');
    if (info) {
      const body = Buffer.from(JSON.stringify({ id: repo, sha: commit.sha, siblings: [...commit.files].map(([p, b]) => sibling(p, b)) }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      return res.end(body);
    }
    const filePath = (download as RegExpExecArray)[3].split('/').map(decodeURIComponent).join('/');
    const file = commit.files.get(filePath);
    if (!file) return answer(res, 404, 'Entry not found', 'EntryNotFound');
    if (file.length <= LFS_THRESHOLD) return serveBytes(req, res, file, (n) => (sent += n));
    const oid = sha256(file);
    blobs.set(oid, file);
    if (spec.stalls) stalled.add(oid);
    res.writeHead(302, { location: `${lfs.url}/lfs/${oid}?signature=${randomBytes(8).toString('hex')}`, 'x-repo-commit': commit.sha });
    res.end();
  });

  return {
    url: hub.url,
    lfsUrl: lfs.url,
    commit: (repo, revision) => commits.get(repo)?.get(revision)?.sha ?? '',
    fileBytesSent: () => sent,
    requests,
    reset: () => {
      sent = 0;
      requests.length = 0;
    },
    stop: async () => {
      await Promise.all([hub.close(), lfs.close()]);
    },
  };
}

function sibling(p: string, bytes: Buffer): object {
  if (bytes.length <= LFS_THRESHOLD) return { rfilename: p, size: bytes.length, blobId: createHash('sha1').update(bytes).digest('hex') };
  return { rfilename: p, size: bytes.length, lfs: { sha256: sha256(bytes), size: bytes.length, pointerSize: 134 } };
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function answer(res: http.ServerResponse, status: number, message: string, code?: string): void {
  res.writeHead(status, { 'content-type': 'application/json', ...(code ? { 'x-error-code': code } : {}) });
  res.end(JSON.stringify({ error: message }));
}

/** 200, or 206 from a `bytes=N-` Range. */
export function serveBytes(req: http.IncomingMessage, res: http.ServerResponse, bytes: Buffer, count: (n: number) => void): void {
  const from = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
  const start = from ? Number(from[1]) : 0;
  if (start > bytes.length) {
    res.writeHead(416, { 'content-range': `bytes */${bytes.length}` });
    return void res.end();
  }
  const body = bytes.subarray(start);
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/octet-stream', 'content-length': body.length, 'accept-ranges': 'bytes' };
  if (from) headers['content-range'] = `bytes ${start}-${bytes.length - 1}/${bytes.length}`;
  res.writeHead(from ? 206 : 200, headers);
  count(body.length);
  res.end(body);
}

async function listen(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
