export * from './errors';
export * from './scopes';
export * from './auth';
export * from './health';
