/** The source of each kind of resource the definition names. */
import type { HfRepository, OllamaModel } from '@ocg/job-definition';
import type { ResourcePolicy } from './network';
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
      // TODO(merge): return hfSource(resource, ctx, { hubUrl: settings.hubUrl }) from './hf'.
      throw new ResourceError('invalid', `hf ${resource.repo}: model hub resources are not wired yet`);
    case 'Ollama':
      // TODO(merge): return ollamaSource(resource, ctx, { registryUrl: settings.registryUrl }) from './ollama'.
      throw new ResourceError('invalid', `ollama ${resource.model}: model runner resources are not wired yet`);
    default:
      throw new ResourceError('invalid', `unknown resource type ${JSON.stringify((resource as { type?: unknown }).type)}`);
  }
}
