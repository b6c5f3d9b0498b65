import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BlobStore } from '@mdstore/core';
import { createS3BlobStore } from '@mdstore/s3';
import { startS3rver } from '@mdstore/s3/testing';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRuntime, TOKENS } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';

const POSTGRES_URL = process.env.MDSTORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const { hostname, port } = new URL(POSTGRES_URL);
  const socket = new Socket();
  socket.setTimeout(1000);
  const reachable = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(false));
    socket.connect(Number(port || 5432), hostname);
  });
  socket.destroy();
  return reachable;
}

const postgresUp = await postgresReachable();
const skipPostgres = !postgresUp && process.env.CI !== 'true';
if (skipPostgres) console.log(`Skipping the PostgreSQL runtime test: nothing listens at ${POSTGRES_URL}`);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mdstore-runtime-ext-'));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(skipPostgres)('createRuntime on PostgreSQL', () => {
  const schema = `mdstore_server_${randomUUID().replaceAll('-', '')}`;
  afterEach(async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  });

  it('keeps records in the configured schema and is shared by two runtimes', async () => {
    const config = loadConfig({
      MDSTORE_DATA_DIR: dir,
      MDSTORE_DATABASE_URL: POSTGRES_URL,
      MDSTORE_POSTGRES_SCHEMA: schema,
    });
    expect(config.database.kind).toBe('postgres');
    const first = await createRuntime(config, { logger: silentLogger });
    const second = await createRuntime(config, { logger: silentLogger });
    try {
      const created = await first.store.accounts.create({ name: 'acme' });
      expect((await second.store.accounts.list()).map((a) => a.id)).toEqual([created.account.id]);
      await first.store.maintenance.heartbeat();
      await second.store.maintenance.heartbeat();
      const report = await first.store.maintenance.reconcile();
      expect(report.failures).toBe(0);
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe('createRuntime on S3 (s3rver)', () => {
  it('keeps buckets in S3 through the configured endpoint, in both layouts', async () => {
    const s3 = await startS3rver();
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'S3RVER');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'S3RVER');
    const observer = createS3BlobStore({ ...s3.s3ClientOptions });
    const sharedObserver = createS3BlobStore({
      ...s3.s3ClientOptions,
      layout: { kind: 'single-bucket', bucket: 'mdstore-shared' },
    });
    try {
      await observer.createBucket({ bucket: 'mdstore-shared' });
      for (const [layout, seenBy] of [
        [{}, observer],
        [{ MDSTORE_S3_BUCKET: 'mdstore-shared' }, sharedObserver],
      ] as const) {
        const dataDir = path.join(dir, randomUUID());
        const config = loadConfig({
          MDSTORE_DATA_DIR: dataDir,
          MDSTORE_BLOB_STORE: 's3',
          MDSTORE_S3_ENDPOINT: s3.endpoint,
          MDSTORE_S3_FORCE_PATH_STYLE: 'true',
          MDSTORE_S3_CHECKSUM: 'WHEN_REQUIRED',
          ...layout,
        });
        const runtime = await createRuntime(config, { logger: silentLogger });
        try {
          const { bucketName } = (await runtime.store.accounts.create({ name: 'acme' })).defaultProject;
          expect(runtime.container.resolve<BlobStore>(TOKENS.blobs).scheme).toBe('s3');
          expect(await seenBy.bucketExists({ bucket: bucketName })).toBe(true);
          await expect(stat(path.join(dataDir, 'blobs'))).rejects.toMatchObject({ code: 'ENOENT' });
        } finally {
          await runtime.close();
        }
      }
    } finally {
      await observer.close();
      await sharedObserver.close();
      await s3.stop();
    }
  });
});
