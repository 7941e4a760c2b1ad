import { MarketsAndNodes1760100000000 } from './1760100000000-markets-and-nodes';
import { Benchmarks1760100000001 } from './1760100000001-benchmarks';
import { NodeAddressLower1760100000002 } from './1760100000002-node-address-lower';
import { JobLimitsAndNodeControl1760100000025 } from './1760100000025-job-limits-and-node-control';
import { WarmResources1760100000026 } from './1760100000026-warm-resources';

/** Every migration of host-manager's schema, in order. */
export const migrations = [MarketsAndNodes1760100000000, Benchmarks1760100000001, NodeAddressLower1760100000002, JobLimitsAndNodeControl1760100000025, WarmResources1760100000026];
