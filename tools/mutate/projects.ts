/** The projects with a `mutate` target, and where their state and reports live. */
export const MUTATED_PROJECTS = [
  { name: 'auth', root: 'libs/auth' },
  { name: 'job-definition', root: 'libs/job-definition' },
  { name: 'deployment-manager', root: 'apps/deployment-manager' },
  { name: 'gateway', root: 'apps/gateway' },
  { name: 'client-manager', root: 'apps/client-manager' },
  { name: 'http', root: 'libs/http' },
] as const;

export const THRESHOLD = 90;
export const reportFile = (project: string): string => `tmp/stryker/${project}-report.json`;
