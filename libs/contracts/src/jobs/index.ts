// deployment-manager's DTOs: jobs, node-facing job routes, the content-addressed store.
export * from './jobs';
export * from './node-jobs';
export * from './cas';
export * from './job-events';
