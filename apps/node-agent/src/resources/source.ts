import type { Readable } from 'node:stream';

/** One file of a remote resource as its source lists it. */
export interface RemoteFile {
  /** Path under the resource's root in the volume: '/'-separated, relative, no '..' or empty segments. */
  path: string;
  /** Bytes, when the source says. */
  size?: number;
  /** Hex sha256 the bytes must match, when the source gives one. */
  sha256?: string;
}

/** What a source needs from the node: fetch that applies the operator's address policy on every connection and redirect. */
export interface SourceContext {
  fetch: typeof fetch;
}

/** Where one resource's files come from. */
export interface ResourceSource {
  /** 's3', 'hf' or 'ollama': for messages and the cache key. */
  readonly kind: string;
  /** Names the resource in reasons and progress; never holds credentials. */
  readonly label: string;
  /** Resolves what the resource is now (e.g. a branch to a commit) and lists its files. `key`: the cache key's parts (source, resolved revision, file list; never credentials). */
  resolve(signal: AbortSignal): Promise<{ key: string[]; files: RemoteFile[] }>;
  /** The bytes of one listed file from `offset` (to resume after a failure). */
  open(file: RemoteFile, offset: number, signal: AbortSignal): Promise<Readable>;
}

export type ResourceFailure = 'not-found' | 'denied' | 'timeout' | 'too-large' | 'refused' | 'unavailable' | 'invalid';

/** A resource that cannot be fetched: `failure` says why, the message names the resource and the cause. */
export class ResourceError extends Error {
  constructor(
    readonly failure: ResourceFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ResourceError';
  }
}
