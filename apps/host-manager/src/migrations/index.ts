/** Every migration of host-manager's schema, in order. */
export const migrations: (new () => unknown)[] = [];
