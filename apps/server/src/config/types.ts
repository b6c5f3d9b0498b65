import type { BackupSchedule } from '../backup/schedule.js';
import type { ContentWorkConfig } from '../content-work/defaults.js';
import type { LogLevel } from '../logger.js';

export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly connectionString: string; readonly schema?: string };

export type ChecksumMode = 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';

export type BlobStoreConfig =
  | { readonly kind: 'fs'; readonly root: string }
  | {
      readonly kind: 's3';
      readonly endpoint?: string;
      readonly region?: string;
      readonly forcePathStyle?: boolean;
      readonly checksum?: ChecksumMode;
      /** Set: every project lives under a prefix of this one bucket. Unset: one bucket per project. */
      readonly bucket?: string;
    };

/** The S3 settings of `s3://` backup targets: the server's own `MDSTORE_S3_*` (but the bucket). */
export interface BackupS3Config {
  readonly endpoint?: string;
  readonly region?: string;
  readonly forcePathStyle?: boolean;
  readonly checksum?: ChecksumMode;
}

/** Extensions §16: backups the server takes itself, and where `s3://` targets connect. */
export interface BackupConfig {
  /** `MDSTORE_BACKUP_SCHEDULE` (backup/schedule.ts); null: no scheduled backups. */
  readonly schedule: BackupSchedule | null;
  /** `MDSTORE_BACKUP_DIR`: an absolute folder path or `s3://bucket/prefix`; set with a schedule. */
  readonly to: string | null;
  /** `MDSTORE_BACKUP_KEEP`: how many complete scheduled backups are kept (the newest). */
  readonly keep: number;
  readonly s3: BackupS3Config;
}

export interface MetricsConfig {
  readonly host: string;
  readonly port: number;
  /** Required bearer token; always set when `host` is not a loopback address. */
  readonly token: string | null;
}

/** The validated configuration of the server and the admin CLI. Paths are absolute. */
export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly database: DatabaseConfig;
  readonly blobStore: BlobStoreConfig;
  readonly bucketPrefix: string;
  readonly rateLimits: { readonly standard: number; readonly premium: number };
  readonly maxFileBytes: number;
  /** Extensions §12: the largest attachment, `MDSTORE_MAX_ATTACHMENT_BYTES` (100 MiB by default). */
  readonly maxAttachmentBytes: number;
  /** Content up to this size is stored inline in the records store; 0 turns inlining off. */
  readonly inlineMaxBytes: number;
  /** Cap of a project's current, history and trash bytes together. */
  readonly maxProjectBytes: number;
  /** Extensions §10: the largest total uncompressed size of an imported archive. */
  readonly maxImportBytes: number;
  /** The worker pool of parses too costly for the thread serving requests (`MDSTORE_CONTENT_WORK_*`). */
  readonly contentWork: ContentWorkConfig;
  /**
   * The byte budget of content work in flight (`MDSTORE_CONTENT_WORK_BUDGET_MB`; the core's
   * `contentBudgetBytes`): work on whole texts past it waits up to the pool's deadline, then 503.
   */
  readonly contentBudgetBytes: number;
  /**
   * `MDSTORE_WORKERS`: serving processes sharing the port and the stores (default: the cores Node may
   * use); 1 serves from this one process, without a cluster primary.
   */
  readonly workers: number;
  /** Days an audit entry is kept (extensions §8). */
  readonly auditRetentionDays: number;
  /**
   * The change feed (extensions §7): `MDSTORE_CHANGES_RETENTION_DAYS`, and the bounds on held requests
   * (streams and long polls) per key, per account and per instance: `MDSTORE_CHANGES_MAX_STREAMS_PER_KEY`,
   * `…_PER_ACCOUNT`, `MDSTORE_CHANGES_MAX_STREAMS`.
   */
  readonly changes: {
    readonly retentionDays: number;
    readonly maxStreamsPerKey: number;
    readonly maxStreamsPerAccount: number;
    readonly maxStreams: number;
  };
  /**
   * Requests of one account running and waiting at once on an instance (issue 34's fair share,
   * `REQUEST_SHARE_LIMITS`): `MDSTORE_MAX_REQUESTS_PER_ACCOUNT`, `MDSTORE_MAX_QUEUED_REQUESTS_PER_ACCOUNT`.
   */
  readonly accountShare: { readonly running: number; readonly waiting: number };
  /** Share pages per client address and minute (extensions §11). */
  readonly shareRateLimit: number;
  /**
   * `MDSTORE_WEBHOOK_ALLOW_PRIVATE`: webhook targets may resolve to loopback, private, link-local,
   * unique-local or metadata addresses (extensions §7). Off by default: only for tests and closed labs.
   */
  readonly webhookAllowPrivate: boolean;
  /**
   * `MDSTORE_WEBHOOK_TIME_SCALE` (0 < scale ≤ 1, default 1): multiplies every webhook delivery timing
   * (retry schedule, attempt timeout, lease, sweep), so that test rigs see retries and crash recovery in
   * seconds. 1 in production.
   */
  readonly webhookTimeScale: number;
  /** PEM file paths; the files are read at start-up by `readTlsFiles`. */
  readonly tls: { readonly certPath: string; readonly keyPath: string } | null;
  readonly httpRedirectPort: number | null;
  readonly trustProxy: boolean;
  /**
   * `MDSTORE_PUBLIC_ORIGINS`: the origins (`https://host[:port]`) browsers reach this server under,
   * besides the loopback names of its port; `/mcp` refuses an `Origin` naming anything else.
   */
  readonly publicOrigins: readonly string[];
  /** Extensions §16: `MDSTORE_BACKUP_SCHEDULE`, `MDSTORE_BACKUP_DIR`, `MDSTORE_BACKUP_KEEP`. */
  readonly backup: BackupConfig;
  /** The Prometheus listener (`MDSTORE_METRICS_*`), or null when `MDSTORE_METRICS_PORT` is unset. */
  readonly metrics: MetricsConfig | null;
  /**
   * `MDSTORE_CURSOR_SECRET`: the secret list and search cursors are signed with, shared by every instance of one
   * store; null for the one kept in the store (created once by the first instance, shared by all).
   */
  readonly cursorSecret: string | null;
  /** Extensions §15: the embeddings of search by meaning (`MDSTORE_EMBEDDINGS*`); off by default. */
  readonly embeddings: EmbeddingsConfig;
  readonly logLevel: LogLevel;
  /** Settings that were given but have no effect (e.g. S3 options with the fs blob store). */
  readonly warnings: readonly string[];
}

/**
 * `MDSTORE_EMBEDDINGS`: off, the deterministic `hashed` provider, the `builtin` model (shipped in an npm
 * package, run in a thread of its own), or an OpenAI-compatible endpoint.
 */
export type EmbeddingsConfig =
  | { readonly kind: 'off' }
  | { readonly kind: 'hashed' }
  | { readonly kind: 'builtin' }
  | { readonly kind: 'openai'; readonly url: string; readonly model: string; readonly key: string | null };
