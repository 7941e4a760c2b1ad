/** The source of each kind of resource the definition names. */
import type { HfRepository, OllamaModel } from '@ocg/job-definition';
import { hfSource } from './hf';
import type { ResourcePolicy } from './network';
import { ollamaSource } from './ollama';
import { S3Source, type S3Resource } from './s3';
import { ResourceError, type ResourceSource, type SourceContext } from './source';

export type RemoteResource = S3Resource | HfRepository | OllamaModel;

export interface SourceSettings {
  policy: ResourcePolicy;
  /** Where `s3://` URLs go; absent: AWS. */
  s3Endpoint?: string;
  /** The model hub's base URL. */
  hubUrl: string;
  /** The model runner's registry (OCI distribution). */
  registryUrl: string;
  /** A request that sends nothing this long fails. */
  idleTimeoutMs: number;
}

export function sourceFor(resource: RemoteResource, ctx: SourceContext, settings: SourceSettings): ResourceSource {
  switch (resource.type) {
    case 'S3':
      return new S3Source(resource, { endpoint: settings.s3Endpoint, policy: settings.policy, idleTimeoutMs: settings.idleTimeoutMs });
    case 'HF':
      return hfSource(resource, ctx, { hubUrl: settings.hubUrl });
    case 'Ollama':
      return ollamaSource(resource, ctx, { registryUrl: settings.registryUrl });
    default:
      throw new ResourceError('invalid', `unknown resource type ${JSON.stringify((resource as { type?: unknown }).type)}`);
  }
}
