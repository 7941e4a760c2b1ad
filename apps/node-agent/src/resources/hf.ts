/**
 * A model hub repository (type `HF`) over the hub's HTTP API: the revision
 * resolves to a commit, the commit's file list gives sizes and, for LFS
 * files, sha256; files download from `/{repo}/resolve/{commit}/{path}`,
 * which redirects LFS files to a CDN. Files keep their repository paths
 * under the target.
 */
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { HfRepository } from '@ocg/job-definition';
import { bodyFrom, expectOk, jsonOf, rangeFrom, remoteGet, safeRelativePath } from './remote-http';
import { ResourceError, type RemoteFile, type ResourceSource, type SourceContext } from './source';

/** `name` or `namespace/name`, as the hub allows them. */
const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;
const COMMIT = /^[0-9a-f]{40}$/;
const SHA256 = /^[0-9a-f]{64}$/;

const revisionInfo = z.object({
  sha: z.string().regex(COMMIT),
  siblings: z.array(
    z.object({
      rfilename: z.string(),
      size: z.number().int().nonnegative().optional(),
      lfs: z.object({ sha256: z.string().regex(SHA256), size: z.number().int().nonnegative().optional() }).optional(),
    }),
  ),
});

export function hfSource(resource: HfRepository, ctx: SourceContext, options: { hubUrl: string }): ResourceSource {
  const hub = options.hubUrl.replace(/\/+$/, '');
  const revision = resource.revision || 'main';
  const label = `hf ${resource.repo}@${revision}`;
  const auth: Record<string, string> = resource.accessToken ? { authorization: `Bearer ${resource.accessToken}` } : {};
  let commit: string | undefined;

  return {
    kind: 'hf',
    label,
    async resolve(signal) {
      if (!REPO.test(resource.repo)) throw new ResourceError('invalid', `${label}: not a repository name (namespace/name)`);
      const wanted = wantedPaths(resource.files, label);
      const url = `${hub}/api/models/${resource.repo}/revision/${encodeURIComponent(revision)}?blobs=true`;
      const res = await expectOk(await remoteGet(ctx, label, { url, headers: auth, signal }), label, `repository or revision ${revision}`);
      const parsed = revisionInfo.safeParse(await jsonOf(res, label, 'the revision', signal));
      if (!parsed.success) throw new ResourceError('invalid', `${label}: the hub's answer is not a revision with a file list`);
      commit = parsed.data.sha;
      const files = selected(parsed.data.siblings.map(toRemoteFile), wanted, label);
      return { key: ['hf', hub, resource.repo, commit, ...(wanted ?? ['*'])], files };
    },
    async open(file: RemoteFile, offset: number, signal: AbortSignal): Promise<Readable> {
      if (!commit) throw new ResourceError('invalid', `${label}: open before resolve`);
      const url = `${hub}/${resource.repo}/resolve/${commit}/${file.path.split('/').map(encodeURIComponent).join('/')}`;
      const res = await remoteGet(ctx, label, { url, headers: auth, anyHost: rangeFrom(offset), signal });
      return bodyFrom(await expectOk(res, label, `file ${file.path}`), offset, label, `file ${file.path}`);
    },
  };
}

function toRemoteFile(s: z.infer<typeof revisionInfo>['siblings'][number]): RemoteFile {
  return { path: s.rfilename, size: s.lfs?.size ?? s.size, sha256: s.lfs?.sha256 };
}

/** The listed files, sorted and without a trailing `/` (a listed directory takes everything under it). */
function wantedPaths(files: string[] | undefined, label: string): string[] | undefined {
  if (!files?.length) return undefined;
  const paths = files.map((f) => f.replace(/\/+$/, ''));
  const bad = paths.find((p) => !safeRelativePath(p));
  if (bad !== undefined) throw new ResourceError('invalid', `${label}: ${JSON.stringify(bad)} is not a relative path in the repository`);
  return [...new Set(paths)].sort();
}

function selected(all: RemoteFile[], wanted: string[] | undefined, label: string): RemoteFile[] {
  const unsafe = all.find((f) => !safeRelativePath(f.path));
  if (unsafe) throw new ResourceError('invalid', `${label}: the hub lists an unsafe path ${JSON.stringify(unsafe.path)}`);
  if (!wanted) return all;
  const missing = wanted.filter((w) => !all.some((f) => f.path === w || f.path.startsWith(`${w}/`)));
  if (missing.length) throw new ResourceError('not-found', `${label}: not in the repository: ${missing.join(', ')}`);
  return all.filter((f) => wanted.some((w) => f.path === w || f.path.startsWith(`${w}/`)));
}
