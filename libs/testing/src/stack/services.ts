/** The processes of the local stack, in start order. */
export interface StackService {
  name: string;
  entry: string;
  port: number;
  /** Variables this service needs beyond the common ones. */
  env?: (urls: Record<string, string>) => Record<string, string>;
}

export const STACK_SERVICES: StackService[] = [
  { name: 'client-manager', entry: 'apps/client-manager/src/main.ts', port: 8081 },
  {
    name: 'host-manager',
    entry: 'apps/host-manager/src/main.ts',
    port: 8082,
    env: (urls) => ({ CLIENT_MANAGER_URL: urls['client-manager'], ...(urls['deployment-manager'] ? { DEPLOYMENT_MANAGER_URL: urls['deployment-manager'] } : {}) }),
  },
  {
    name: 'deployment-manager',
    entry: 'apps/deployment-manager/src/main.ts',
    port: 8083,
    env: (urls) => ({ CLIENT_MANAGER_URL: urls['client-manager'], HOST_MANAGER_URL: urls['host-manager'] }),
  },
  {
    name: 'gateway',
    entry: 'apps/gateway/src/main.ts',
    port: 8080,
    env: (urls) => ({
      CLIENT_MANAGER_URL: urls['client-manager'],
      HOST_MANAGER_URL: urls['host-manager'],
      DEPLOYMENT_MANAGER_URL: urls['deployment-manager'],
    }),
  },
];
