/** Every migration of client-manager's schema, in order. */
export const migrations: (new () => unknown)[] = [];
