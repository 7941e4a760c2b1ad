/** The node's remote resources: the cache and the fetch stage, from the agent's settings. */
import type { Logger } from 'pino';
import { validateResources } from '@ocg/job-definition';
import type { AgentConfig } from '../config';
import { ResourceCache } from './cache';
import { resourcePolicy } from './network';
import { ResourceStage } from './stage';

const GB = 1e9;

/** Undefined when the cache cannot be opened (e.g. a directory the agent may not write): that costs the node its resources, not its jobs. */
export async function resourceStage(config: AgentConfig, logger: Logger): Promise<ResourceStage | undefined> {
  const keep = config.RESOURCE_KEEP;
  const checked = validateResources(keep);
  if (!checked.valid) throw new Error(`RESOURCE_KEEP: ${checked.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`);
  let cache: ResourceCache;
  try {
    cache = await ResourceCache.open(config.RESOURCE_CACHE_DIR, config.RESOURCE_CACHE_GB * GB, logger);
  } catch (err) {
    logger.error({ err: (err as Error).message, dir: config.RESOURCE_CACHE_DIR }, 'the resource cache could not be opened: ops with args.resources will fail');
    return undefined;
  }
  const stage = new ResourceStage(
    cache,
    {
      concurrency: config.RESOURCE_CONCURRENCY,
      fileConcurrency: config.RESOURCE_FILE_CONCURRENCY,
      retries: config.RESOURCE_RETRIES,
      backoffMs: config.RESOURCE_RETRY_BACKOFF_MS,
      idleTimeoutMs: config.RESOURCE_IDLE_TIMEOUT_SECONDS * 1000,
      maxResourceBytes: config.RESOURCE_MAX_GB * GB,
      maxJobBytes: config.RESOURCE_JOB_MAX_GB * GB,
      policy: resourcePolicy(config.RESOURCE_ALLOW),
      s3Endpoint: config.RESOURCE_S3_ENDPOINT,
      hubUrl: config.RESOURCE_HUB_URL,
      registryUrl: config.RESOURCE_OLLAMA_REGISTRY_URL,
    },
    logger,
  );
  return stage;
}
