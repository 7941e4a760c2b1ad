import { z } from 'zod';
import { parseConfig, serviceConfigShape } from '@ocg/http';

const schema = z.object({
  ...serviceConfigShape(8083),
});

export type DeploymentManagerConfig = z.infer<typeof schema>;

/** The only place deployment-manager reads process.env. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): DeploymentManagerConfig => parseConfig(schema, env);
