import path from 'node:path';
import { type BlobStore, isMdStoreError } from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { createMemoryRateLimiter } from '@mdstore/memory';
import { openSqliteStore } from '@mdstore/sqlite';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOB_FORM, bytesOf, manualClock, readText, sceneWithOneFile, snapshot, tempDir } from './support.js';

/**
 * SQLITE_BUSY: another connection holds the write lock (`BEGIN IMMEDIATE`) on the same file while an
 * upload commits. The upload fails with STORE_UNAVAILABLE once the busy budget is spent, nothing partial
 * is visible, and after the lock is released the store serves again and reconcile clears the leftovers.
 */

const BUSY_TIMEOUT_MS = 150;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('sqlite: the database is locked by another connection while an upload commits', () => {
  it('fails with STORE_UNAVAILABLE, leaves nothing partial, and serves again once the lock is gone', async () => {
    const temp = await tempDir('sqlite-busy');
    cleanups.push(temp.remove);
    const dbPath = path.join(temp.dir, 'records.db');
    const sqlite = await openSqliteStore({ path: dbPath, busyTimeoutMs: BUSY_TIMEOUT_MS });
    cleanups.push(() => sqlite.close());
    const locker = new Database(dbPath);
    cleanups.push(() => {
      locker.close();
    });
    const blobs = createFsBlobStore({ root: path.join(temp.dir, 'blobs') });

    // Once the content is stored, and before the record is committed, the other connection takes the lock.
    let lockAfterPut = false;
    const lockingBlobs: BlobStore = {
      ...blobs,
      put: async (o) => {
        const stored = await blobs.put(o);
        if (lockAfterPut) locker.exec('BEGIN IMMEDIATE');
        return stored;
      },
    };
    const clock = manualClock();
    const scene = await sceneWithOneFile({
      settings: BLOB_FORM,
      records: sqlite.records,
      blobs: lockingBlobs,
      rateLimiter: createMemoryRateLimiter(),
      clock,
    });
    const { store, principal, projectId } = scene;
    const before = await snapshot(sqlite.records, blobs, projectId);

    lockAfterPut = true;
    const error = await store.files
      .upload({ principal, projectId, filename: 'new.md', content: bytesOf('# new') })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    lockAfterPut = false;
    expect(isMdStoreError(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect(String((error as Error).message)).toMatch(/locked|busy/i);
    expect(locker.inTransaction).toBe(true);
    // Read while the lock is still held (WAL readers are not blocked): no record and unchanged counters.
    // The new blob stays, still noted as staged: with the database locked, the write cannot tell
    // whether its commit landed, so it leaves the decision to reconciliation instead of guessing.
    const during = await snapshot(sqlite.records, blobs, projectId);
    expect({ ...during, keys: undefined }).toEqual({ ...before, keys: undefined });
    expect(during.keys).toHaveLength(before.keys.length + 1);
    const staged = await sqlite.records.listBlobIntents({ limit: 10 });
    expect(staged.map((intent) => intent.kind)).toEqual(['staged']);
    expect(during.keys).toContain(staged[0]?.key);

    locker.exec('ROLLBACK');
    await store.files.upload({ principal, projectId, filename: 'new.md', content: bytesOf('# new') });
    const download = await store.files.download({ principal, projectId, filename: 'new.md' });
    expect(await readText(download.content)).toBe('# new');

    // The staged note whose removal met the lock is cleared by reconciliation (past the write deadline).
    clock.advance(store.settings.writeDeadlineMs + 1);
    await store.maintenance.reconcile();
    expect(await sqlite.records.listBlobIntents({ limit: 10 })).toEqual([]);
    const after = await snapshot(sqlite.records, blobs, projectId);
    expect(after.files).toEqual({ 'keep.md': '# kept\n', 'new.md': '# new' });
    expect(after.keys).toHaveLength(2);
  });

  it('a lock held when the upload starts fails it before any content is stored', async () => {
    const temp = await tempDir('sqlite-busy');
    cleanups.push(temp.remove);
    const dbPath = path.join(temp.dir, 'records.db');
    const sqlite = await openSqliteStore({ path: dbPath, busyTimeoutMs: BUSY_TIMEOUT_MS });
    cleanups.push(() => sqlite.close());
    const blobs = createFsBlobStore({ root: path.join(temp.dir, 'blobs') });
    const scene = await sceneWithOneFile({
      settings: BLOB_FORM,
      records: sqlite.records,
      blobs,
      rateLimiter: createMemoryRateLimiter(),
    });
    const { store, principal, projectId } = scene;
    const before = await snapshot(sqlite.records, blobs, projectId);
    const locker = new Database(dbPath);
    cleanups.push(() => {
      locker.close();
    });
    locker.exec('BEGIN IMMEDIATE');
    const upload = store.files.upload({
      principal,
      projectId,
      filename: 'new.md',
      content: bytesOf('# new'),
    });
    await expect(upload).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await snapshot(sqlite.records, blobs, projectId)).toEqual(before);
    locker.exec('ROLLBACK');
    await store.files.upload({ principal, projectId, filename: 'new.md', content: bytesOf('# new') });
    expect((await snapshot(sqlite.records, blobs, projectId)).files['new.md']).toBe('# new');
  });
});
