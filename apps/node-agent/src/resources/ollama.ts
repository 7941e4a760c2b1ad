/**
 * A model runner model (type `Ollama`) pulled over the OCI distribution
 * protocol into the runner's on-disk layout: `manifests/<host>/<ns>/<name>/<tag>`
 * holds the manifest's bytes, `blobs/sha256-<hex>` each layer and the config.
 * A runner started on that directory finds the model without pulling it.
 * `<host>` is the one in the model's name (the runner's default registry when
 * none), even when the bytes come from a configured mirror, so the runner's
 * name for the model stays the one the job wrote.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { OllamaModel } from '@ocg/job-definition';
import { registryGet, type RegistryAuth } from './registry-auth';
import { bodyFrom, bytesOf, expectOk } from './remote-http';
import { ResourceError, type RemoteFile, type ResourceSource, type SourceContext } from './source';

/** Where the runner's image keeps its models: the default target of a model-runner resource. */
export const OLLAMA_MODELS_PATH = '/root/.ollama/models';
/** The runner's own registry: model names without a host are this one's. */
const OLLAMA_REGISTRY_HOST = 'registry.ollama.ai';

const MANIFEST_TYPES = ['application/vnd.docker.distribution.manifest.v2+json', 'application/vnd.oci.image.manifest.v1+json'];
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const HOST = /^[A-Za-z0-9][A-Za-z0-9.-]*(:\d{1,5})?$/;
const DIGEST = /^sha256:([0-9a-f]{64})$/;

const descriptor = z.object({ digest: z.string().regex(DIGEST), size: z.number().int().nonnegative() });
const manifestSchema = z.object({ schemaVersion: z.literal(2), config: descriptor, layers: z.array(descriptor) });

export interface ModelName {
  host: string;
  namespace: string;
  name: string;
  tag: string;
}

/** `name[:tag]`, `ns/name[:tag]` or `host/ns/name[:tag]`; namespace `library` and tag `latest` by default. */
export function parseModelName(model: string): ModelName | undefined {
  const parts = model.split('/');
  if (parts.length > 3) return undefined;
  const last = parts.pop() as string;
  const colon = last.lastIndexOf(':');
  const name = colon < 0 ? last : last.slice(0, colon);
  const tag = colon < 0 ? 'latest' : last.slice(colon + 1);
  const namespace = parts.pop() ?? 'library';
  const host = parts.pop() ?? OLLAMA_REGISTRY_HOST;
  if (![name, tag, namespace].every((s) => SEGMENT.test(s)) || !HOST.test(host)) return undefined;
  return { host, namespace, name, tag };
}

export function ollamaSource(resource: OllamaModel, ctx: SourceContext, options: { registryUrl: string }): ResourceSource {
  const label = `ollama ${resource.model}`;
  const parsed = parseModelName(resource.model);
  const base = parsed ? registryBase(parsed.host, options.registryUrl) : '';
  const auth: RegistryAuth = { ctx, label, repository: parsed ? `${parsed.namespace}/${parsed.name}` : '' };
  let manifest: { path: string; bytes: Buffer } | undefined;

  return {
    kind: 'ollama',
    label,
    async resolve(signal) {
      if (!parsed) throw new ResourceError('invalid', `${label}: not a model name ([host/][namespace/]name[:tag])`);
      const { host, namespace, name, tag } = parsed;
      const url = `${base}/v2/${namespace}/${name}/manifests/${tag}`;
      const res = await registryGet(auth, url, { accept: MANIFEST_TYPES.join(', ') }, signal);
      const bytes = await bytesOf(await expectOk(res, label, `tag ${tag}`), label, signal, MAX_MANIFEST_BYTES);
      const layers = parseManifest(bytes, label);
      manifest = { path: `manifests/${host}/${namespace}/${name}/${tag}`, bytes };
      const digest = createHash('sha256').update(bytes).digest('hex');
      const blobs = new Map(layers.map((d) => [d.digest, d.size]));
      const files: RemoteFile[] = [{ path: manifest.path, size: bytes.length, sha256: digest }];
      for (const [d, size] of blobs) files.push({ path: `blobs/sha256-${hexOf(d)}`, size, sha256: hexOf(d) });
      return { key: ['ollama', base, `${host}/${namespace}/${name}:${tag}`, `sha256:${digest}`], files };
    },
    async open(file, offset, signal) {
      if (!manifest) throw new ResourceError('invalid', `${label}: open before resolve`);
      if (file.path === manifest.path) return Readable.from([manifest.bytes.subarray(offset)]);
      const hex = /^blobs\/sha256-([0-9a-f]{64})$/.exec(file.path)?.[1];
      if (!hex) throw new ResourceError('invalid', `${label}: ${file.path} is not a file of this model`);
      const url = `${base}/v2/${auth.repository}/blobs/sha256:${hex}`;
      const res = await registryGet(auth, url, offset > 0 ? { range: `bytes=${offset}-` } : {}, signal);
      return bodyFrom(await expectOk(res, label, `blob sha256:${hex.slice(0, 12)}`), offset, label, `blob sha256:${hex.slice(0, 12)}`);
    },
  };
}

/** The configured registry serves the runner's own names and its own host; another host in a name is asked directly. */
function registryBase(host: string, registryUrl: string): string {
  const configured = new URL(registryUrl);
  if (host === OLLAMA_REGISTRY_HOST || host === configured.host) return configured.origin;
  return `https://${host}`;
}

function parseManifest(bytes: Buffer, label: string): z.infer<typeof descriptor>[] {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ResourceError('invalid', `${label}: the manifest is not JSON`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new ResourceError('invalid', `${label}: not a model manifest (schema 2 with a config and layers)`);
  return [parsed.data.config, ...parsed.data.layers];
}

function hexOf(digest: string): string {
  return (DIGEST.exec(digest) as RegExpExecArray)[1];
}
