import { availableParallelism } from 'node:os';
import path from 'node:path';
import { REQUEST_SHARE_LIMITS } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { ConfigError, type Environment, loadConfig, type ServerConfig } from '../../src/config/index.js';

const CWD = '/srv/mdstore';
const load = (env: Environment): ServerConfig => loadConfig(env, { cwd: CWD });

/** The ConfigError a configuration raises (fails the test when it is accepted). */
function refusal(env: Environment): ConfigError {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).not.toMatch(/[\r\n]/);
    return error as ConfigError;
  }
  throw new Error(`configuration accepted: ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  it('gives the documented defaults when nothing is set', () => {
    expect(load({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      dataDir: '/srv/mdstore/data',
      database: { kind: 'sqlite', path: '/srv/mdstore/data/mdstore.db' },
      blobStore: { kind: 'fs', root: '/srv/mdstore/data/blobs' },
      bucketPrefix: 'mdstore-',
      rateLimits: { standard: 1000, premium: 10000 },
      maxFileBytes: 10485760,
      maxAttachmentBytes: 104857600,
      inlineMaxBytes: 65536,
      maxProjectBytes: 107374182400,
      maxImportBytes: 1073741824,
      contentWork: { threads: 1, deadlineMs: 10000, memoryMb: 256, queue: 8, perAccount: 3 },
      contentBudgetBytes: 67108864,
      workers: availableParallelism(),
      auditRetentionDays: 90,
      changes: { retentionDays: 30, maxStreamsPerKey: 5, maxStreamsPerAccount: 20, maxStreams: 1000 },
      accountShare: { running: 4, waiting: 64 },
      shareRateLimit: 600,
      webhookAllowPrivate: false,
      webhookTimeScale: 1,
      tls: null,
      httpRedirectPort: null,
      trustProxy: false,
      publicOrigins: [],
      backup: { schedule: null, to: null, keep: 7, s3: {} },
      metrics: null,
      logLevel: 'info',
      cursorSecret: null,
      embeddings: { kind: 'off' },
      warnings: [],
    });
  });

  it('runs one serving process per core unless MDSTORE_WORKERS says how many (1 to 256)', () => {
    expect(load({}).workers).toBe(Math.min(256, availableParallelism()));
    expect(load({ MDSTORE_WORKERS: '1' }).workers).toBe(1);
    expect(load({ MDSTORE_WORKERS: ' 7 ' }).workers).toBe(7);
    expect(load({ MDSTORE_WORKERS: '256' }).workers).toBe(256);
    for (const bad of ['0', '257', '-1', '1.5', 'auto', '2e1'])
      expect(refusal({ MDSTORE_WORKERS: bad }).message).toBe(
        `MDSTORE_WORKERS: must be a whole number of serving processes from 1 to 256 (got "${bad}")`,
      );
  });

  it('lets webhook targets resolve to private addresses only when MDSTORE_WEBHOOK_ALLOW_PRIVATE is true', () => {
    expect(load({ MDSTORE_WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate).toBe(true);
    expect(load({ MDSTORE_WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookAllowPrivate).toBe(false);
    expect(() => load({ MDSTORE_WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(/MDSTORE_WEBHOOK_ALLOW_PRIVATE/);
  });

  it('scales webhook timings by MDSTORE_WEBHOOK_TIME_SCALE, a number in (0, 1]', () => {
    expect(load({ MDSTORE_WEBHOOK_TIME_SCALE: '0.05' }).webhookTimeScale).toBe(0.05);
    expect(load({ MDSTORE_WEBHOOK_TIME_SCALE: '1' }).webhookTimeScale).toBe(1);
    for (const bad of ['0', '1.5', '-0.1', 'fast', '1e-3'])
      expect(() => load({ MDSTORE_WEBHOOK_TIME_SCALE: bad })).toThrow(/MDSTORE_WEBHOOK_TIME_SCALE/);
  });

  it('takes MDSTORE_BACKUP_SCHEDULE as cron (UTC) and refuses an invalid expression at start-up, naming it', () => {
    const withDir = { MDSTORE_BACKUP_DIR: '/backups' };
    for (const [text, kind] of [
      ['*/15 * * * *', 'cron'],
      ['30 2 * * 1-5', 'cron'],
      ['@weekly', 'cron'],
      ['6h', 'interval'],
    ] as const)
      expect(load({ ...withDir, MDSTORE_BACKUP_SCHEDULE: text }).backup.schedule, text).toMatchObject({
        text,
        kind,
      });
    for (const [bad, reason] of [
      ['61 * * * *', /minute/],
      ['0 0 * * * *', /5 parts/], // a seconds field: not the 5-field form
      ['* * *', /five, six, or seven/],
      ['0 0 30 2 *', /never runs/],
      ['@reboot', /@reboot is not a schedule/],
      ['5/15 * * * *', /numeric prefix/],
      ['daily 02:30', /cron expression/],
    ] as const) {
      const error = refusal({ ...withDir, MDSTORE_BACKUP_SCHEDULE: bad });
      expect(error.variable, bad).toBe('MDSTORE_BACKUP_SCHEDULE');
      expect(error.message, bad).toMatch(/^MDSTORE_BACKUP_SCHEDULE: /);
      expect(error.message, bad).toMatch(reason);
      // What it should be is said too.
      expect(error.message, bad).toMatch(/@hourly, @daily, @weekly, @monthly/);
    }
  });

  it('treats empty and blank values as unset and trims the others', () => {
    const config = load({ HOST: '', PORT: '  ', MDSTORE_RATE_LIMIT_STANDARD: ' 5 ' });
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8080);
    expect(config.rateLimits.standard).toBe(5);
  });

  it('ignores variables it does not know', () => {
    expect(load({ MDSTORE_UNKNOWN: 'x', PATH: '/bin' }).port).toBe(8080);
  });

  it('uses process.cwd() when no cwd is given', () => {
    expect(loadConfig({}).dataDir).toBe(path.resolve('data'));
  });
});

describe('HOST and PORT', () => {
  it('accepts loopback hosts in plain HTTP', () => {
    for (const host of [
      '127.0.0.1',
      '127.1.2.3',
      'localhost',
      'LOCALHOST',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
    ]) {
      expect(load({ HOST: host }).host).toBe(host.replace(/^\[(.*)\]$/, '$1'));
    }
  });

  it('refuses a non-loopback host in plain HTTP with a message naming HOST', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com', '128.0.0.1']) {
      const error = refusal({ HOST: host });
      expect(error.variable).toBe('HOST');
      expect(error.message).toMatch(/^HOST: refusing to serve plain HTTP on the non-loopback address/);
      expect(error.message).toContain('MDSTORE_TLS_CERT');
      expect(error.message).toContain('MDSTORE_TRUST_PROXY');
    }
  });

  it('allows a non-loopback host with TLS or behind a trusted proxy', () => {
    expect(load({ HOST: '0.0.0.0', MDSTORE_TLS_CERT: 'c.pem', MDSTORE_TLS_KEY: 'k.pem' }).host).toBe(
      '0.0.0.0',
    );
    expect(load({ HOST: '0.0.0.0', MDSTORE_TRUST_PROXY: 'true' }).host).toBe('0.0.0.0');
  });

  it('refuses a host with spaces or slashes', () => {
    expect(refusal({ HOST: 'a b' }).message).toBe('HOST: must be a host name or an IP address (got "a b")');
    expect(refusal({ HOST: 'http://x' }).variable).toBe('HOST');
  });

  it('parses PORT from 0 to 65535', () => {
    expect(load({ PORT: '0' }).port).toBe(0);
    expect(load({ PORT: '65535' }).port).toBe(65535);
    expect(load({ PORT: '3000' }).port).toBe(3000);
  });

  it('refuses a PORT that is not a port number', () => {
    for (const port of ['65536', '-1', 'http', '80.5', '1e3', '0x50']) {
      expect(refusal({ PORT: port }).message).toBe(
        `PORT: must be a port number from 0 to 65535 (got ${JSON.stringify(port)})`,
      );
    }
  });
});

describe('MDSTORE_DATA_DIR and MDSTORE_DATABASE_URL', () => {
  it('resolves the data dir against cwd and puts the default database and blobs in it', () => {
    const config = load({ MDSTORE_DATA_DIR: 'var/store' });
    expect(config.dataDir).toBe('/srv/mdstore/var/store');
    expect(config.database).toEqual({ kind: 'sqlite', path: '/srv/mdstore/var/store/mdstore.db' });
    expect(config.blobStore).toEqual({ kind: 'fs', root: '/srv/mdstore/var/store/blobs' });
    expect(load({ MDSTORE_DATA_DIR: '/abs/dir' }).database).toEqual({
      kind: 'sqlite',
      path: '/abs/dir/mdstore.db',
    });
  });

  it('reads sqlite:PATH in its relative and absolute spellings', () => {
    expect(load({ MDSTORE_DATABASE_URL: 'sqlite:db/x.db' }).database).toEqual({
      kind: 'sqlite',
      path: '/srv/mdstore/db/x.db',
    });
    expect(load({ MDSTORE_DATABASE_URL: 'sqlite:/var/x.db' }).database).toEqual({
      kind: 'sqlite',
      path: '/var/x.db',
    });
    expect(load({ MDSTORE_DATABASE_URL: 'sqlite:///var/x.db' }).database).toEqual({
      kind: 'sqlite',
      path: '/var/x.db',
    });
  });

  it('reads postgres:// and postgresql:// URLs, with an optional schema', () => {
    const url = 'postgres://user:secret@db.internal:5432/mdstore';
    expect(load({ MDSTORE_DATABASE_URL: url }).database).toEqual({ kind: 'postgres', connectionString: url });
    expect(
      load({ MDSTORE_DATABASE_URL: 'postgresql://h/db', MDSTORE_POSTGRES_SCHEMA: 'tenant_a' }).database,
    ).toEqual({ kind: 'postgres', connectionString: 'postgresql://h/db', schema: 'tenant_a' });
  });

  it('refuses other database URLs without echoing them (they may hold a password)', () => {
    for (const url of [
      'mysql://user:secret@h/db',
      'sqlite:',
      'sqlite::memory:',
      'postgres://user:secret@[bad',
    ]) {
      const error = refusal({ MDSTORE_DATABASE_URL: url });
      expect(error.message).toBe(
        'MDSTORE_DATABASE_URL: must be sqlite:PATH or postgres://user:password@host:port/database',
      );
      expect(error.message).not.toContain('secret');
    }
  });

  it('refuses a bad schema name and warns about a schema without PostgreSQL', () => {
    expect(refusal({ MDSTORE_POSTGRES_SCHEMA: 'Drop Table' }).variable).toBe('MDSTORE_POSTGRES_SCHEMA');
    expect(load({ MDSTORE_POSTGRES_SCHEMA: 'x' }).warnings).toEqual([
      'MDSTORE_POSTGRES_SCHEMA is ignored: the database is not PostgreSQL',
    ]);
  });
});

describe('MDSTORE_BLOB_STORE and the S3 settings', () => {
  it('defaults to bucket-per-project S3 with the AWS defaults', () => {
    expect(load({ MDSTORE_BLOB_STORE: 's3' }).blobStore).toEqual({ kind: 's3' });
    expect(load({ MDSTORE_BLOB_STORE: 'S3' }).blobStore).toEqual({ kind: 's3' });
    expect(load({ MDSTORE_BLOB_STORE: 'fs' }).blobStore.kind).toBe('fs');
  });

  it('reads every S3 setting', () => {
    const config = load({
      MDSTORE_BLOB_STORE: 's3',
      MDSTORE_S3_ENDPOINT: 'http://127.0.0.1:9000',
      MDSTORE_S3_REGION: 'eu-west-3',
      MDSTORE_S3_FORCE_PATH_STYLE: 'yes',
      MDSTORE_S3_CHECKSUM: 'when_required',
      MDSTORE_S3_BUCKET: 'my.bucket-1',
    });
    expect(config.blobStore).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-3',
      forcePathStyle: true,
      checksum: 'WHEN_REQUIRED',
      bucket: 'my.bucket-1',
    });
  });

  it('refuses bad S3 values, naming the variable', () => {
    const base = { MDSTORE_BLOB_STORE: 's3' };
    expect(refusal({ MDSTORE_BLOB_STORE: 'gcs' }).message).toBe(
      'MDSTORE_BLOB_STORE: must be fs or s3 (got "gcs")',
    );
    expect(refusal({ ...base, MDSTORE_S3_ENDPOINT: 'ftp://x' }).message).toBe(
      'MDSTORE_S3_ENDPOINT: must be an http(s) URL (got "ftp://x")',
    );
    expect(refusal({ ...base, MDSTORE_S3_ENDPOINT: 'not a url' }).variable).toBe('MDSTORE_S3_ENDPOINT');
    expect(refusal({ ...base, MDSTORE_S3_REGION: 'eu west' }).variable).toBe('MDSTORE_S3_REGION');
    expect(refusal({ ...base, MDSTORE_S3_FORCE_PATH_STYLE: 'maybe' }).message).toBe(
      'MDSTORE_S3_FORCE_PATH_STYLE: must be true or false (or 1/0, yes/no, on/off) (got "maybe")',
    );
    expect(refusal({ ...base, MDSTORE_S3_CHECKSUM: 'ALWAYS' }).message).toBe(
      'MDSTORE_S3_CHECKSUM: must be WHEN_SUPPORTED or WHEN_REQUIRED (got "ALWAYS")',
    );
    for (const bucket of ['ab', 'Upper', '-start', 'end-', 'a'.repeat(64), 'under_score']) {
      expect(refusal({ ...base, MDSTORE_S3_BUCKET: bucket }).variable).toBe('MDSTORE_S3_BUCKET');
    }
  });

  it('warns about S3 settings that have no effect with the fs blob store', () => {
    expect(load({ MDSTORE_S3_BUCKET: 'bucket', MDSTORE_S3_REGION: 'us-east-1' }).warnings).toEqual([
      'MDSTORE_S3_REGION is ignored: MDSTORE_BLOB_STORE is fs',
      'MDSTORE_S3_BUCKET is ignored: MDSTORE_BLOB_STORE is fs',
    ]);
  });
});

describe('MDSTORE_BUCKET_PREFIX', () => {
  it('accepts a prefix that keeps bucket names valid', () => {
    expect(load({ MDSTORE_BUCKET_PREFIX: 'acme-docs-' }).bucketPrefix).toBe('acme-docs-');
    expect(load({ MDSTORE_BUCKET_PREFIX: 'a'.repeat(27) }).bucketPrefix).toBe('a'.repeat(27));
  });

  it('refuses a prefix that would make invalid bucket names', () => {
    for (const prefix of ['Upper-', '-lead', 'a'.repeat(28), 'under_score', 'dot.']) {
      expect(refusal({ MDSTORE_BUCKET_PREFIX: prefix }).message).toMatch(
        /^MDSTORE_BUCKET_PREFIX: must be 1-27/,
      );
    }
  });
});

describe('limits', () => {
  it('reads the rate limits and the file size limit', () => {
    const config = load({
      MDSTORE_RATE_LIMIT_STANDARD: '10',
      MDSTORE_RATE_LIMIT_PREMIUM: '20',
      MDSTORE_MAX_FILE_BYTES: '1',
    });
    expect(config.rateLimits).toEqual({ standard: 10, premium: 20 });
    expect(config.maxFileBytes).toBe(1);
  });

  it('reads the attachment size limit, 100 MiB by default (extensions §12)', () => {
    expect(load({}).maxAttachmentBytes).toBe(100 * 1024 * 1024);
    expect(load({ MDSTORE_MAX_ATTACHMENT_BYTES: '2048' }).maxAttachmentBytes).toBe(2048);
  });

  it('refuses limits that are not positive whole numbers', () => {
    for (const name of [
      'MDSTORE_RATE_LIMIT_STANDARD',
      'MDSTORE_RATE_LIMIT_PREMIUM',
      'MDSTORE_MAX_FILE_BYTES',
      'MDSTORE_MAX_ATTACHMENT_BYTES',
      'MDSTORE_MAX_PROJECT_BYTES',
    ]) {
      for (const value of ['0', '-5', '1.5', 'many', '9007199254740993']) {
        expect(refusal({ [name]: value }).message).toBe(
          `${name}: must be a whole number of at least 1 (got ${JSON.stringify(value)})`,
        );
      }
    }
  });
});

describe('storage', () => {
  it('reads the inline threshold (0 turns inlining off) and the project storage cap', () => {
    expect(load({ MDSTORE_INLINE_MAX_BYTES: '0' }).inlineMaxBytes).toBe(0);
    expect(load({ MDSTORE_INLINE_MAX_BYTES: '16384' }).inlineMaxBytes).toBe(16384);
    expect(load({ MDSTORE_SHARE_RATE_LIMIT: '30' }).shareRateLimit).toBe(30);
    expect(load({ MDSTORE_AUDIT_RETENTION_DAYS: '7' }).auditRetentionDays).toBe(7);
    expect(load({ MDSTORE_MAX_PROJECT_BYTES: '1000' }).maxProjectBytes).toBe(1000);
    expect(load({ MDSTORE_MAX_IMPORT_BYTES: '4096' }).maxImportBytes).toBe(4096);
    expect(() => load({ MDSTORE_MAX_IMPORT_BYTES: '0' })).toThrow(/MDSTORE_MAX_IMPORT_BYTES/);
  });

  it('reads the content work budget in megabytes and refuses values out of range', () => {
    expect(load({ MDSTORE_CONTENT_WORK_BUDGET_MB: '16' }).contentBudgetBytes).toBe(16 * 1024 * 1024);
    for (const value of ['0', '1.5', 'lots', '2000000']) {
      expect(refusal({ MDSTORE_CONTENT_WORK_BUDGET_MB: value }).message).toMatch(
        /^MDSTORE_CONTENT_WORK_BUDGET_MB: must be a whole number of megabytes from 1 to 1048576/,
      );
    }
  });

  it('reads the change feed settings (extensions §7) and refuses values out of range', () => {
    expect(
      load({
        MDSTORE_CHANGES_RETENTION_DAYS: '7',
        MDSTORE_CHANGES_MAX_STREAMS_PER_KEY: '2',
        MDSTORE_CHANGES_MAX_STREAMS_PER_ACCOUNT: '8',
        MDSTORE_CHANGES_MAX_STREAMS: '300',
      }).changes,
    ).toEqual({ retentionDays: 7, maxStreamsPerKey: 2, maxStreamsPerAccount: 8, maxStreams: 300 });
    expect(refusal({ MDSTORE_CHANGES_MAX_STREAMS_PER_KEY: '0' }).message).toMatch(
      /^MDSTORE_CHANGES_MAX_STREAMS_PER_KEY: must be a whole number of streams from 1 to 1000/,
    );
    expect(refusal({ MDSTORE_CHANGES_RETENTION_DAYS: '0' }).message).toMatch(
      /^MDSTORE_CHANGES_RETENTION_DAYS:/,
    );
  });

  it("reads each account's share of running requests (issue 34), defaults from the core, and refuses values out of range", () => {
    expect(load({}).accountShare).toEqual({
      running: REQUEST_SHARE_LIMITS.defaultRunningPerAccount,
      waiting: REQUEST_SHARE_LIMITS.defaultWaitingPerAccount,
    });
    expect(
      load({ MDSTORE_MAX_REQUESTS_PER_ACCOUNT: '2', MDSTORE_MAX_QUEUED_REQUESTS_PER_ACCOUNT: '0' })
        .accountShare,
    ).toEqual({ running: 2, waiting: 0 });
    expect(refusal({ MDSTORE_MAX_REQUESTS_PER_ACCOUNT: '0' }).message).toMatch(
      /^MDSTORE_MAX_REQUESTS_PER_ACCOUNT: must be a whole number of requests from 1 to 10000/,
    );
    expect(refusal({ MDSTORE_MAX_QUEUED_REQUESTS_PER_ACCOUNT: '-1' }).message).toMatch(
      /^MDSTORE_MAX_QUEUED_REQUESTS_PER_ACCOUNT: must be a whole number of requests from 0 to 100000/,
    );
  });

  it('refuses an inline threshold that is negative, fractional or above 16 MiB', () => {
    for (const value of ['-1', '1.5', 'lots', '16777217']) {
      expect(refusal({ MDSTORE_INLINE_MAX_BYTES: value }).message).toBe(
        `MDSTORE_INLINE_MAX_BYTES: must be a whole number of bytes from 0 (off) to 16777216 (got ${JSON.stringify(value)})`,
      );
    }
  });
});

describe('TLS, redirect port and trusted proxy', () => {
  const TLS = { MDSTORE_TLS_CERT: 'tls/cert.pem', MDSTORE_TLS_KEY: '/etc/key.pem' };

  it('resolves the PEM paths', () => {
    expect(load(TLS).tls).toEqual({ certPath: '/srv/mdstore/tls/cert.pem', keyPath: '/etc/key.pem' });
  });

  it('needs both the certificate and the key', () => {
    expect(refusal({ MDSTORE_TLS_CERT: 'c.pem' }).message).toBe(
      'MDSTORE_TLS_KEY: must be set together with MDSTORE_TLS_CERT',
    );
    expect(refusal({ MDSTORE_TLS_KEY: 'k.pem' }).message).toBe(
      'MDSTORE_TLS_CERT: must be set together with MDSTORE_TLS_KEY',
    );
  });

  it('reads the redirect port with TLS only, and never equal to PORT', () => {
    expect(load({ ...TLS, MDSTORE_HTTP_REDIRECT_PORT: '8081' }).httpRedirectPort).toBe(8081);
    expect(refusal({ MDSTORE_HTTP_REDIRECT_PORT: '8081' }).message).toMatch(
      /^MDSTORE_HTTP_REDIRECT_PORT: needs MDSTORE_TLS_CERT and MDSTORE_TLS_KEY/,
    );
    expect(refusal({ ...TLS, PORT: '8443', MDSTORE_HTTP_REDIRECT_PORT: '8443' }).message).toBe(
      'MDSTORE_HTTP_REDIRECT_PORT: must differ from PORT (both are 8443)',
    );
    expect(refusal({ ...TLS, MDSTORE_HTTP_REDIRECT_PORT: '70000' }).variable).toBe(
      'MDSTORE_HTTP_REDIRECT_PORT',
    );
  });

  it('reads MDSTORE_TRUST_PROXY as a boolean-ish word', () => {
    for (const word of ['true', 'TRUE', '1', 'yes', 'on'])
      expect(load({ MDSTORE_TRUST_PROXY: word }).trustProxy).toBe(true);
    for (const word of ['false', '0', 'no', 'Off'])
      expect(load({ MDSTORE_TRUST_PROXY: word }).trustProxy).toBe(false);
    expect(refusal({ MDSTORE_TRUST_PROXY: 'sometimes' }).variable).toBe('MDSTORE_TRUST_PROXY');
  });
});

describe('MDSTORE_LOG_LEVEL', () => {
  it('reads a level in any case and refuses others', () => {
    expect(load({ MDSTORE_LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
    expect(load({ MDSTORE_LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
    expect(refusal({ MDSTORE_LOG_LEVEL: 'verbose' }).message).toBe(
      'MDSTORE_LOG_LEVEL: must be one of debug, info, warn, error, silent (got "verbose")',
    );
  });
});

describe('MDSTORE_CURSOR_SECRET', () => {
  it('is taken when long enough, refused (without echoing it) when short', () => {
    const secret = 'a'.repeat(32);
    expect(loadConfig({ MDSTORE_CURSOR_SECRET: secret }).cursorSecret).toBe(secret);
    expect(() => loadConfig({ MDSTORE_CURSOR_SECRET: 'short-secret' })).toThrow(/MDSTORE_CURSOR_SECRET/);
    expect(() => loadConfig({ MDSTORE_CURSOR_SECRET: 'short-secret' })).not.toThrow(/short-secret/);
  });
});

describe('MDSTORE_PUBLIC_ORIGINS', () => {
  it('is a comma-separated list of origins, spelled as browsers send them', () => {
    const config = load({
      MDSTORE_PUBLIC_ORIGINS:
        ' https://MDStore.example.com/ , http://10.0.0.5:8080,https://mdstore.example.com:443',
    });
    expect(config.publicOrigins).toEqual(['https://mdstore.example.com', 'http://10.0.0.5:8080']);
  });

  it('refuses anything that is not an http(s) origin, naming the variable', () => {
    for (const value of [
      'mdstore.example.com',
      'https://a.example/path',
      'ftp://a.example',
      'https://a.example,*',
    ]) {
      const error = refusal({ MDSTORE_PUBLIC_ORIGINS: value });
      expect(error.message, value).toMatch(/^MDSTORE_PUBLIC_ORIGINS/);
    }
  });
});
