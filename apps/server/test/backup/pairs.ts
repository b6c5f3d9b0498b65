import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BlobStore, createMdStore, type MdStore, type RecordsArchive } from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { openSqliteStore } from '@mdstore/sqlite';
import { dropSchema, fileS3rver, freshSchemaName, TEST_POSTGRES_URL } from '../support/adapters.js';

export type PairName = 'sqlite-fs' | 'postgres-s3';

/** One store of an adapter pair: its archive and blob store (for backups) and the core on them. */
export interface Pair {
  readonly name: PairName;
  readonly archive: RecordsArchive;
  readonly blobs: BlobStore;
  readonly pair: { readonly database: string; readonly blob_store: string };
  readonly store: MdStore;
  close(): Promise<void>;
}

/** Contents up to 48 bytes are inline, larger ones go to the blob store: both forms are backed up. */
const SETTINGS = { inlineMaxBytes: 48 } as const;

export async function openPair(name: PairName): Promise<Pair> {
  if (name === 'sqlite-fs') {
    const dir = await mkdtemp(join(tmpdir(), 'mdstore-backup-'));
    const sqlite = await openSqliteStore({ path: join(dir, 'mdstore.db') });
    const blobs = createFsBlobStore({ root: join(dir, 'blobs') });
    return {
      name,
      archive: sqlite.archive,
      blobs,
      pair: { database: 'sqlite', blob_store: 'fs' },
      store: createMdStore({
        records: sqlite.records,
        blobs,
        rateLimiter: sqlite.rateLimiter,
        settings: SETTINGS,
      }),
      async close() {
        await blobs.close();
        await sqlite.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const s3 = await fileS3rver();
  const [{ openPostgresStore }, { createS3BlobStore }] = await Promise.all([
    import('@mdstore/postgres'),
    import('@mdstore/s3'),
  ]);
  const schema = freshSchemaName();
  const postgres = await openPostgresStore({ connectionString: TEST_POSTGRES_URL, schema, poolMax: 4 });
  const blobs = createS3BlobStore({ ...s3.s3ClientOptions, layout: { kind: 'bucket-per-project' } });
  return {
    name,
    archive: postgres.archive,
    blobs,
    pair: { database: 'postgres', blob_store: 's3' },
    store: createMdStore({
      records: postgres.records,
      blobs,
      rateLimiter: postgres.rateLimiter,
      settings: SETTINGS,
    }),
    async close() {
      await blobs.close();
      await postgres.close();
      await dropSchema(schema);
    },
  };
}

export const text = (value: string): AsyncIterable<Uint8Array> =>
  (async function* () {
    yield new TextEncoder().encode(value);
  })();

export async function bytesOf(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
