/**
 * Object storage through the S3 API: one location (`url`, optionally with
 * `files`), a whole bucket (`bucket`), or several (`buckets`). A URL is
 * `s3://<bucket>/<prefix>` (the node's RESOURCE_S3_ENDPOINT, else AWS) or
 * `http(s)://<endpoint>/<bucket>/<prefix>` (path-style addressing). Signed
 * with the definition's `IAM` when given, unsigned otherwise: the node's
 * own credentials are never used.
 */
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { S3Bucket, S3Buckets, S3Location } from '@ocg/job-definition';
import { guardedS3Handler, urlRefusal, type ResourcePolicy } from './network';
import { ResourceError, type RemoteFile, type ResourceSource } from './source';

export type S3Resource = S3Location | S3Bucket | S3Buckets;

export interface S3Settings {
  /** Where `s3://` URLs go; absent: AWS. */
  endpoint?: string;
  policy: ResourcePolicy;
  /** A request that sends nothing this long fails (timeout). */
  idleTimeoutMs: number;
  /** Files listed (HEAD) at once when `files` names them. */
  concurrency?: number;
}

/** A file as S3 lists it: the ETag is a plain MD5 of the bytes unless multipart (`-n`) or encrypted. */
export interface S3File extends RemoteFile {
  md5?: string;
}

interface Location {
  endpoint: string | undefined;
  bucket: string;
  /** Without leading or trailing '/'; '' for the whole bucket. */
  prefix: string;
  files: string[] | undefined;
}

interface Placed {
  location: Location;
  key: string;
}

/** An unsigned request: anonymous access, and no reach for the node's own credentials. */
const ANONYMOUS: Pick<S3ClientConfig, 'httpAuthSchemes' | 'httpAuthSchemeProvider'> = {
  httpAuthSchemes: [{ schemeId: 'smithy.api#noAuth', identityProvider: () => async () => ({}), signer: { sign: async (request) => request } }],
  httpAuthSchemeProvider: () => [{ schemeId: 'smithy.api#noAuth' }],
};

export class S3Source implements ResourceSource {
  readonly kind = 's3';
  readonly label: string;
  private readonly locations: Location[];
  private readonly clients = new Map<string, S3Client>();
  private readonly placed = new Map<string, Placed>();

  constructor(
    private readonly resource: S3Resource,
    private readonly settings: S3Settings,
  ) {
    this.locations = locationsOf(resource);
    this.label = `s3 ${this.locations.map((l) => `${l.endpoint ? `${new URL(l.endpoint).host}/` : 's3://'}${l.bucket}${l.prefix ? `/${l.prefix}` : ''}`).join(', ')}`;
    for (const l of this.locations) {
      const endpoint = l.endpoint ?? settings.endpoint;
      const why = endpoint ? urlRefusal(new URL(endpoint), settings.policy) : undefined;
      if (why) throw new ResourceError('refused', `${this.label}: ${why} (RESOURCE_ALLOW lists what the operator allows)`);
    }
  }

  async resolve(signal: AbortSignal): Promise<{ key: string[]; files: S3File[] }> {
    const files: S3File[] = [];
    const key = ['s3'];
    for (const location of this.locations) {
      key.push(location.endpoint ?? this.settings.endpoint ?? 'aws', location.bucket, location.prefix);
      const listed = location.files ? await this.head(location, signal) : await this.list(location, signal);
      for (const { path, file, object } of listed) {
        if (this.placed.has(path)) throw new ResourceError('invalid', `${this.label}: two objects land at ${path}`);
        this.placed.set(path, { location, key: object });
        files.push(file);
        key.push(`${path}\t${file.size ?? ''}\t${file.md5 ?? ''}`);
      }
    }
    return { key, files };
  }

  async open(file: RemoteFile, offset: number, signal: AbortSignal): Promise<Readable> {
    const placed = this.placed.get(file.path);
    if (!placed) throw new ResourceError('invalid', `${this.label}: ${file.path} was not listed`);
    const out = await this.call(
      placed.location,
      (c, o) => c.send(new GetObjectCommand({ Bucket: placed.location.bucket, Key: placed.key, Range: offset > 0 ? `bytes=${offset}-` : undefined }), o),
      signal,
      file.path,
    );
    return out.Body as Readable;
  }

  /** Writes one file back (allowWrite): to where it came from, or under the first location. */
  async upload(path: string, body: Readable, size: number, signal: AbortSignal): Promise<void> {
    const placed = this.placed.get(path);
    const location = placed?.location ?? this.locations[0];
    const key = placed?.key ?? joinKey(location.prefix, path);
    await this.call(location, (c, o) => c.send(new PutObjectCommand({ Bucket: location.bucket, Key: key, Body: body, ContentLength: size }), o), signal, path);
  }

  /** Deletes the object a listed file came from (allowWrite: the op deleted the file). */
  async remove(path: string, signal: AbortSignal): Promise<void> {
    const placed = this.placed.get(path);
    if (!placed) return;
    await this.call(placed.location, (c, o) => c.send(new DeleteObjectCommand({ Bucket: placed.location.bucket, Key: placed.key }), o), signal, path);
  }

  private async list(location: Location, signal: AbortSignal): Promise<{ path: string; file: S3File; object: string }[]> {
    const out: { path: string; file: S3File; object: string }[] = [];
    const prefix = location.prefix ? `${location.prefix}/` : '';
    let token: string | undefined;
    do {
      const page = await this.call(location, (c, o) => c.send(new ListObjectsV2Command({ Bucket: location.bucket, Prefix: prefix, ContinuationToken: token }), o), signal);
      for (const object of page.Contents ?? []) {
        if (!object.Key || object.Key.endsWith('/')) continue;
        const path = checkedPath(object.Key.slice(prefix.length), this.label);
        out.push({ path, file: { path, size: object.Size, md5: plainMd5(object.ETag) }, object: object.Key });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    // The URL may name one object rather than a folder.
    if (out.length === 0 && location.prefix) return this.head({ ...location, prefix: parentOf(location.prefix), files: [baseOf(location.prefix)] }, signal);
    if (out.length === 0) throw new ResourceError('not-found', `${this.label}: no objects`);
    return out;
  }

  private async head(location: Location, signal: AbortSignal): Promise<{ path: string; file: S3File; object: string }[]> {
    const names = location.files ?? [];
    const out: { path: string; file: S3File; object: string }[] = [];
    const queue = [...names];
    const worker = async (): Promise<void> => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const path = checkedPath(name.replace(/^\/+/, ''), this.label);
        const object = joinKey(location.prefix, path);
        const h = await this.call(location, (c, o) => c.send(new HeadObjectCommand({ Bucket: location.bucket, Key: object }), o), signal, path);
        out.push({ path, file: { path, size: h.ContentLength, md5: h.ServerSideEncryption === 'aws:kms' ? undefined : plainMd5(h.ETag) }, object });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.settings.concurrency ?? 8, names.length) }, worker));
    return out.sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  private client(location: Location): S3Client {
    const endpoint = location.endpoint ?? this.settings.endpoint;
    const id = endpoint ?? 'aws';
    let client = this.clients.get(id);
    if (!client) {
      const iam = this.resource.IAM;
      const signed = iam && iam.ACCESS_KEY_ID !== '';
      client = new S3Client({
        endpoint,
        forcePathStyle: endpoint !== undefined,
        region: iam?.REGION || 'us-east-1',
        requestHandler: guardedS3Handler(this.settings.policy, this.settings.idleTimeoutMs),
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 1,
        ...(signed ? { credentials: { accessKeyId: iam.ACCESS_KEY_ID, secretAccessKey: iam.SECRET_ACCESS_KEY } } : ANONYMOUS),
      });
      this.clients.set(id, client);
    }
    return client;
  }

  /** Every command's errors as failures that name the resource. */
  private async call<T>(location: Location, send: (client: S3Client, options: { abortSignal: AbortSignal }) => Promise<T>, signal: AbortSignal, what?: string): Promise<T> {
    try {
      return await send(this.client(location), { abortSignal: signal });
    } catch (err) {
      throw s3Failure(err, `${this.label}${what ? ` ${what}` : ''}`);
    }
  }
}

function locationsOf(resource: S3Resource): Location[] {
  if ('buckets' in resource) return resource.buckets.map((b) => ({ ...parseUrl(b.url, resource.url), files: b.files }));
  if ('bucket' in resource) {
    const base = resource.url ? parseUrl(resource.url, undefined, resource.bucket) : { endpoint: undefined, bucket: resource.bucket, prefix: '' };
    const prefix = base.bucket === resource.bucket ? base.prefix : '';
    return [{ endpoint: base.endpoint, bucket: resource.bucket, prefix, files: undefined }];
  }
  if (!resource.url) throw new ResourceError('invalid', 's3 resource without url or bucket');
  return [{ ...parseUrl(resource.url), files: resource.files }];
}

/**
 * `s3://bucket/prefix` or `http(s)://endpoint/bucket/prefix`; an s3:// URL of
 * several buckets takes the resource's `url` as its endpoint. With `bucket`
 * known (the whole-bucket form), the URL may be the endpoint alone.
 */
function parseUrl(text: string, endpointUrl?: string, bucket?: string): Omit<Location, 'files'> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ResourceError('invalid', `s3 resource: ${JSON.stringify(text)} is not a URL`);
  }
  if (url.username || url.password) throw new ResourceError('invalid', `s3 resource ${url.host}: URLs must not carry credentials (use IAM)`);
  const parts = decodeURIComponent(url.pathname).split('/').filter(Boolean);
  if (url.protocol === 's3:') {
    const endpoint = endpointUrl && /^https?:/.test(endpointUrl) ? new URL(endpointUrl).origin : undefined;
    return { endpoint, bucket: url.hostname, prefix: parts.join('/') };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ResourceError('invalid', `s3 resource ${text}: s3, http or https URLs only`);
  if (parts.length === 0 && bucket) return { endpoint: url.origin, bucket, prefix: '' };
  if (parts.length === 0) throw new ResourceError('invalid', `s3 resource ${url.host}: the URL names no bucket (path-style: <endpoint>/<bucket>/<prefix>)`);
  return { endpoint: url.origin, bucket: parts[0], prefix: parts.slice(1).join('/') };
}

function checkedPath(path: string, label: string): string {
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) throw new ResourceError('invalid', `${label}: ${JSON.stringify(path)} is not a plain relative path`);
  return path;
}

const joinKey = (prefix: string, path: string): string => (prefix ? `${prefix}/${path}` : path);
const parentOf = (key: string): string => key.split('/').slice(0, -1).join('/');
const baseOf = (key: string): string => key.split('/').pop() ?? key;

function plainMd5(etag: string | undefined): string | undefined {
  const bare = etag?.replace(/"/g, '').toLowerCase();
  return bare && /^[0-9a-f]{32}$/.test(bare) ? bare : undefined;
}

/** The SDK's error as a failure kind; the message names the resource, never a credential. */
export function s3Failure(err: unknown, label: string): ResourceError {
  if (err instanceof ResourceError) return err;
  const e = err as Error & { $metadata?: { httpStatusCode?: number }; code?: string; Code?: string; cause?: { code?: string; message?: string } };
  const status = e.$metadata?.httpStatusCode;
  const name = e.Code ?? e.name;
  const code = e.code ?? e.cause?.code;
  if (code === 'EADDRREFUSED_POLICY') return new ResourceError('refused', `${label}: ${e.message} (RESOURCE_ALLOW lists what the operator allows)`);
  if (name === 'AbortError') return new ResourceError('timeout', `${label}: cancelled`);
  if (status === 404 || name === 'NoSuchKey' || name === 'NoSuchBucket' || name === 'NotFound') return new ResourceError('not-found', `${label}: not found (${name})`);
  if (status === 401 || status === 403 || /AccessDenied|InvalidAccessKeyId|SignatureDoesNotMatch|Forbidden/.test(name))
    return new ResourceError('denied', `${label}: access denied (${name})`);
  if (code === 'ETIMEDOUT' || name === 'TimeoutError' || /timed? ?out/i.test(e.message)) return new ResourceError('timeout', `${label}: timed out`);
  if (status === 400) return new ResourceError('invalid', `${label}: ${name}`);
  return new ResourceError('unavailable', `${label}: ${status ? `HTTP ${status} ` : ''}${code ?? name}: ${e.message}`);
}
