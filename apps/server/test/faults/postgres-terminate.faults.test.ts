import { randomBytes } from 'node:crypto';
import { isMdStoreError } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter } from '@mdstore/memory';
import { openPostgresStore, type PostgresStore } from '@mdstore/postgres';
import { afterEach, describe, expect, it } from 'vitest';
import {
  adminQuery,
  createTempSchema,
  skipPostgres,
  TEST_DATABASE_URL,
} from '../../../../packages/postgres/test/support/pg-available.js';
import {
  BLOB_FORM,
  bytesOf,
  manualClock,
  pausing,
  readText,
  sceneWithOneFile,
  snapshot,
  withRecordsFaults,
} from './support.js';

/**
 * The database connection dies in the middle of a transaction: the upload's commit transaction is held
 * open (paused after its work, before COMMIT) while an admin connection runs `pg_terminate_backend` on
 * it. The upload rejects with STORE_UNAVAILABLE, nothing is committed, and the store keeps serving on
 * fresh connections. With CI=true this must run; otherwise it is skipped when Postgres is unreachable.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Our own application_name (the connection string wins over the pool's), to kill only our backend. */
const withApplicationName = (url: string, name: string) =>
  `${url}${url.includes('?') ? '&' : '?'}application_name=${name}`;

describe.skipIf(skipPostgres)('postgres: connection terminated mid-transaction', () => {
  it('rejects the upload, commits nothing, and keeps serving', async () => {
    const schema = await createTempSchema();
    cleanups.push(() => schema.drop());
    const applicationName = `mdstore_faults_${randomBytes(4).toString('hex')}`;
    const pgStore: PostgresStore = await openPostgresStore({
      connectionString: withApplicationName(TEST_DATABASE_URL, applicationName),
      schema: schema.name,
    });
    cleanups.push(() => pgStore.close());

    let terminated = 0;
    const killOurTransaction = async () => {
      const result = await adminQuery<{ killed: boolean }>(
        `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
          WHERE application_name = $1 AND state = 'idle in transaction'`,
        [applicationName],
      );
      terminated = result.rows.filter((row) => row.killed).length;
      // Let the server close the socket before the paused work goes on to COMMIT.
      await new Promise((resolve) => setTimeout(resolve, 100));
    };
    // The upload's transactions: the first notes the staged blob, the second commits the record; that
    // one is paused after its work, before COMMIT, while its connection is killed.
    let armed = false;
    let firstArmed: number | undefined;
    const records = withRecordsFaults(pgStore.records, {
      decide: (call) => {
        if (!armed || call.method !== 'withTransaction') return undefined;
        if (call.point === 'beforeWork') firstArmed ??= call.call;
        const isCommit =
          call.point === 'beforeCommit' && firstArmed !== undefined && call.call === firstArmed + 1;
        return isCommit ? pausing(killOurTransaction) : undefined;
      },
    });
    const blobs = createMemoryBlobStore({ scheme: 'file' });
    const clock = manualClock();
    const scene = await sceneWithOneFile({
      records,
      blobs,
      rateLimiter: createMemoryRateLimiter(),
      clock,
      settings: BLOB_FORM,
    });
    const { store, principal, projectId } = scene;
    const before = await snapshot(pgStore.records, blobs, projectId);

    armed = true;
    const error = await store.files
      .upload({ principal, projectId, filename: 'new.md', content: bytesOf('# new') })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    armed = false;
    expect(terminated).toBe(1);
    expect(isMdStoreError(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect(await pgStore.records.findFile({ projectId, filename: 'new.md' })).toBeNull();
    expect(await snapshot(pgStore.records, blobs, projectId)).toEqual(before);

    await store.files.upload({ principal, projectId, filename: 'new.md', content: bytesOf('# new') });
    const download = await store.files.download({ principal, projectId, filename: 'new.md' });
    expect(await readText(download.content)).toBe('# new');
    await store.files.updateContent({ principal, projectId, filename: 'keep.md', content: bytesOf('# v2') });
    clock.advance(store.settings.writeDeadlineMs + 1);
    await store.maintenance.reconcile();
    expect(await pgStore.records.listBlobIntents({ limit: 10 })).toEqual([]);
    const after = await snapshot(pgStore.records, blobs, projectId);
    expect(after.files).toEqual({ 'keep.md': '# v2', 'new.md': '# new' });
    expect(after.counters).toEqual([2, 9]);
    // keep.md's first version stays as its earlier revision (history is kept by default).
    expect(after.keys).toHaveLength(3);
  });
});
