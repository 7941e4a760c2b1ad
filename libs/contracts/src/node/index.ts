// node-agent's DTOs: the node API a job's poster calls.
export * from './node-api';
