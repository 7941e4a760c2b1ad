/** Every migration of deployment-manager's schema, in order. */
export const migrations: (new () => unknown)[] = [];
