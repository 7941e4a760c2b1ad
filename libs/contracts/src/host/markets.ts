/**
 * Markets: pools of nodes with one price. Prices are integer credit units
 * per second; 1 credit = 1,000,000 units (CREDIT_UNITS), so the cheapest
 * non-zero price is one millionth of a credit per second and no price is
 * ever a float.
 */
export const CREDIT_UNITS = 1_000_000;

/**
 * What one job may take of a node, per market: checked when a job is posted
 * (op and volume counts) and applied by the node to every container. The
 * per-job sums are shared out: each of a job's N containers gets at most
 * the per-job figure / N, and never more than the per-container figure.
 */
export interface MarketJobLimits {
  /**
   * Most ops (of any type) in one job. Default 64; at most 1000, the most a node reports on at once.
   * @isInt
   * @minimum 1
   * @maximum 1000
   */
  maxOps: number;
  /**
   * Most `container/create-volume` ops in one job. Default 16.
   * @isInt
   * @minimum 0
   * @maximum 1000
   */
  maxVolumes: number;
  /**
   * CPUs per container (fractions allowed; a node also caps it at its own CPU count). Default 4.
   * @minimum 0.01
   * @maximum 4096
   */
  cpusPerContainer: number;
  /**
   * CPUs of all of a job's containers together. Default 16.
   * @minimum 0.01
   * @maximum 65536
   */
  cpusPerJob: number;
  /**
   * Memory per container, in bytes (no swap on top). Default 8 GiB.
   * @isLong
   * @minimum 8388608
   */
  memoryBytesPerContainer: number;
  /**
   * Memory of all of a job's containers together, in bytes. Default 32 GiB.
   * @isLong
   * @minimum 8388608
   */
  memoryBytesPerJob: number;
  /**
   * Processes per container. Default 1024.
   * @isInt
   * @minimum 16
   * @maximum 4194304
   */
  pidsPerContainer: number;
  /**
   * Processes of all of a job's containers together. Default 8192.
   * @isInt
   * @minimum 16
   * @maximum 4194304
   */
  pidsPerJob: number;
  /**
   * Size of a container's writable layer, in bytes: set as a size where the node's storage driver supports one
   * (overlay2 on xfs with pquota, btrfs, zfs), and measured by the node every few seconds on any driver (a job
   * with a container over it fails). Default 20 GiB.
   * @isLong
   * @minimum 104857600
   */
  diskBytesPerContainer: number;
  /**
   * Size of all of a job's volumes together, in bytes: measured by the node every few seconds (any storage
   * driver); a job over it fails. Default 50 GiB.
   * @isLong
   * @minimum 1048576
   */
  volumeBytesPerJob: number;
  /**
   * Size of one remote resource (`args.resources`) a node fetches for the market's jobs, in bytes, checked on the
   * listed sizes before any byte moves (a node's own RESOURCE_MAX_GB may be lower). Default 100 GiB.
   * @isLong
   * @minimum 1048576
   */
  bytesPerResource: number;
  /**
   * Size of all of one job's remote resources together, in bytes (a node's own RESOURCE_JOB_MAX_GB may be lower).
   * Default 200 GiB.
   * @isLong
   * @minimum 1048576
   */
  resourceBytesPerJob: number;
}

/** Members left out keep their value (at creation: the default). */
export interface MarketJobLimitsUpdate {
  /**
   * @isInt
   * @minimum 1
   * @maximum 1000
   */
  maxOps?: number;
  /**
   * @isInt
   * @minimum 0
   * @maximum 1000
   */
  maxVolumes?: number;
  /**
   * @minimum 0.01
   * @maximum 4096
   */
  cpusPerContainer?: number;
  /**
   * @minimum 0.01
   * @maximum 65536
   */
  cpusPerJob?: number;
  /**
   * @isLong
   * @minimum 8388608
   */
  memoryBytesPerContainer?: number;
  /**
   * @isLong
   * @minimum 8388608
   */
  memoryBytesPerJob?: number;
  /**
   * @isInt
   * @minimum 16
   * @maximum 4194304
   */
  pidsPerContainer?: number;
  /**
   * @isInt
   * @minimum 16
   * @maximum 4194304
   */
  pidsPerJob?: number;
  /**
   * @isLong
   * @minimum 104857600
   */
  diskBytesPerContainer?: number;
  /**
   * @isLong
   * @minimum 1048576
   */
  volumeBytesPerJob?: number;
  /**
   * @isLong
   * @minimum 1048576
   */
  bytesPerResource?: number;
  /**
   * @isLong
   * @minimum 1048576
   */
  resourceBytesPerJob?: number;
}

/** How the node runs every container of the market's jobs. */
export interface MarketContainerPolicy {
  /**
   * Run containers as this user instead of the image's: `uid` or `uid:gid` (numeric, so no image
   * needs the name); null: the image's user (often root).
   * @pattern ^[0-9]{1,10}(?::[0-9]{1,10})?$
   */
  user: string | null;
  /** Mount the image's root filesystem read-only (`/tmp` and the job's volumes stay writable). Default false. */
  readOnlyRootFilesystem: boolean;
}

/** Members left out keep their value. */
export interface MarketContainerPolicyUpdate {
  /** @pattern ^[0-9]{1,10}(?::[0-9]{1,10})?$ */
  user?: string | null;
  readOnlyRootFilesystem?: boolean;
}

export interface MarketRecord {
  /** Base58 of 32 random bytes; never changes. */
  address: string;
  /** Unique, compared case-insensitively; often a GPU model such as `RTX 4090`. */
  name: string;
  /** Credit units per second (1 credit = 1,000,000 units). */
  pricePerSecond: number;
  /** Nodes of this market must report at least one GPU, and jobs may ask for one. */
  gpuRequired: boolean;
  /** A job posted without a timeout runs this long. */
  defaultDurationSeconds: number;
  /** The longest duration a job may ask for. */
  maxDurationSeconds: number;
  jobLimits: MarketJobLimits;
  containerPolicy: MarketContainerPolicy;
  /** Remote resources the market's nodes keep in their caches, fetched before any job asks (in the order given). */
  warmResources: WarmResource[];
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

export interface CreateMarketRequest {
  /**
   * Letters, digits, spaces and `. _ + -`, starting and ending with a letter or digit; must not look like a market address.
   * @minLength 1
   * @maxLength 64
   * @pattern ^[A-Za-z0-9](?:[A-Za-z0-9\x20._+-]*[A-Za-z0-9])?$
   */
  name: string;
  /**
   * Credit units per second (1 credit = 1,000,000 units). At most 1,000,000,000 (1,000 credits per second),
   * so price x maximum duration always fits a safe integer.
   * @isInt
   * @minimum 0
   * @maximum 1000000000
   */
  pricePerSecond: number;
  /** Default false. */
  gpuRequired?: boolean;
  /**
   * Default 7200 (two hours).
   * @isInt
   * @minimum 60
   * @maximum 2592000
   */
  defaultDurationSeconds?: number;
  /**
   * Default 86400 (one day); at least `defaultDurationSeconds`, at most 30 days.
   * @isInt
   * @minimum 60
   * @maximum 2592000
   */
  maxDurationSeconds?: number;
  /** What one job may take of a node; members left out take their default. */
  jobLimits?: MarketJobLimitsUpdate;
  /** How containers run; members left out take their default. */
  containerPolicy?: MarketContainerPolicyUpdate;
}

export interface CreateMarketResponse extends MarketRecord {
  /** The secret nodes present to join this market. Shown only here and by the rotate operation. */
  joinToken: string;
}

/** Members left out keep their value. */
export interface UpdateMarketRequest {
  /**
   * @minLength 1
   * @maxLength 64
   * @pattern ^[A-Za-z0-9](?:[A-Za-z0-9\x20._+-]*[A-Za-z0-9])?$
   */
  name?: string;
  /**
   * @isInt
   * @minimum 0
   * @maximum 1000000000
   */
  pricePerSecond?: number;
  gpuRequired?: boolean;
  /**
   * @isInt
   * @minimum 60
   * @maximum 2592000
   */
  defaultDurationSeconds?: number;
  /**
   * @isInt
   * @minimum 60
   * @maximum 2592000
   */
  maxDurationSeconds?: number;
  jobLimits?: MarketJobLimitsUpdate;
  containerPolicy?: MarketContainerPolicyUpdate;
  /**
   * Replaces the list of resources the market's nodes keep warm (an empty list: none). Each item is a resource object
   * of a job definition's `args.resources` without credentials (`IAM`, `accessToken`) and without `allowWrite`.
   * @maxItems 32
   */
  warmResources?: WarmResource[];
}

/**
 * One remote resource as a job definition's `args.resources` names it (S3, HF or Ollama; the definition's schema
 * validates it), kept warm by the market's nodes.
 */
export type WarmResource = { [member: string]: unknown };

/** The most resources a market keeps warm. */
export const MAX_WARM_RESOURCES = 32;

export interface ListMarketsResponse {
  /** Every market, by name. */
  markets: MarketRecord[];
  total: number;
}

export interface RotateJoinTokenRequest {
  /** Also remove every node registered with the old token (their jobs are stopped and settled). Default false. */
  revokeNodes?: boolean;
}

export interface RotateJoinTokenResponse {
  /** The market's address. */
  address: string;
  /** The new join token; the previous one stops working at once (registered nodes stay registered unless revoked). */
  joinToken: string;
  /** Addresses of the nodes removed with `revokeNodes`. */
  revokedNodes: string[];
}

/** A market's job limits where it sets none (see MarketJobLimits). */
export const DEFAULT_JOB_LIMITS: MarketJobLimits = {
  maxOps: 64,
  maxVolumes: 16,
  cpusPerContainer: 4,
  cpusPerJob: 16,
  memoryBytesPerContainer: 8 * 1024 ** 3,
  memoryBytesPerJob: 32 * 1024 ** 3,
  pidsPerContainer: 1024,
  pidsPerJob: 8192,
  diskBytesPerContainer: 20 * 1024 ** 3,
  volumeBytesPerJob: 50 * 1024 ** 3,
  bytesPerResource: 100 * 1024 ** 3,
  resourceBytesPerJob: 200 * 1024 ** 3,
};

export const DEFAULT_CONTAINER_POLICY: MarketContainerPolicy = { user: null, readOnlyRootFilesystem: false };
