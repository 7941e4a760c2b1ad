// host-manager's DTOs: markets, nodes, benchmarks and benchmark templates.
export * from './markets';
export * from './nodes';
export * from './benchmarks';
export * from './benchmark-file';
