import type { JobLogLine, NodeResourceProgress } from '@ocg/contracts';
import type { JobState } from './state';

/** A row of `jobs` as node-pg returns it (bigint as text, timestamptz as Date). */
export interface JobRow {
  seq: string;
  address: string;
  user_id: string;
  poster_address: string;
  market_address: string;
  node_address: string | null;
  status: JobState;
  end_reason: string | null;
  definition_cid: string;
  /** Sealed (a string; ContentSeal); an object only in rows from before sealing. */
  definition: Record<string, unknown> | string;
  exposes: boolean;
  result_cid: string | null;
  price_per_second: string;
  duration_seconds: number;
  max_duration_seconds: number;
  billed_seconds: number | null;
  cost: string | null;
  settled_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  ends_at: Date | null;
  finished_at: Date | null;
  last_seen_at: Date | null;
  /** When its node first named it after the claim (report, sync, finish); null: the claim is provisional. */
  acked_at: Date | null;
}

export interface OpRow {
  op_id: string;
  op_index: number;
  grp: string | null;
  status: 'pending' | 'running' | 'completed' | 'failed' | 'stopped';
  exit_code: number | null;
  reason: string | null;
  restarts: number;
  started_at: Date | null;
  ended_at: Date | null;
  /** The last lines of output the node reported; null before any. */
  log_tail: JobLogLine[] | null;
  activity: 'fetching resources' | null;
  resources: NodeResourceProgress[] | null;
}

export interface EndpointRow {
  op_id: string;
  port: number;
  host_label: string;
  status: 'PENDING' | 'ONLINE' | 'OFFLINE';
  forward: string | null;
  hosts: string[] | null;
  updated_at: Date;
}

/** What a new job row holds; the rest starts empty. */
export interface NewJob {
  address: string;
  userId: string;
  poster: string;
  market: string;
  definitionCid: string;
  definition: object;
  exposes: boolean;
  pricePerSecond: number;
  durationSeconds: number;
  maxDurationSeconds: number;
}
