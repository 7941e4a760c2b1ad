import { z } from 'zod';
import { parseConfig, serviceConfigShape } from '@ocg/http';

const schema = z.object({
  ...serviceConfigShape(8082),
});

export type HostManagerConfig = z.infer<typeof schema>;

/** The only place host-manager reads process.env. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): HostManagerConfig => parseConfig(schema, env);
