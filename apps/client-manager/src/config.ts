import { z } from 'zod';
import { parseConfig, serviceConfigShape } from '@ocg/http';

const schema = z.object({
  ...serviceConfigShape(8081),
});

export type ClientManagerConfig = z.infer<typeof schema>;

/** The only place client-manager reads process.env. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): ClientManagerConfig => parseConfig(schema, env);
