import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BucketNotFoundError } from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * Bugs the crash suite found, each pinned by a minimal test of the right behaviour marked `it.fails`:
 * the test passes while the bug is there and fails once it is fixed, as a reminder to turn `it.fails`
 * into `it` (and to drop the matching tolerance from the crash suite).
 */

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function* single(bytes: Uint8Array) {
  yield bytes;
}

describe('fs blob store: put racing deleteBucket', () => {
  /**
   * `writeAtomically` renames the temp file into the bucket and then fsyncs the bucket directory. When
   * `deleteBucket` moves the bucket to `.trash` between the two, `open(bucketDir)` fails with ENOENT and
   * `put` rejects with StoreUnavailableError: the server answers 500 instead of 404 to an upload or a
   * content update that races its project's deletion. No data is at risk (the write is compensated and
   * the bucket is gone anyway). Fix: in `writeAtomically`, treat ENOENT from the directory syncs after
   * the rename like `renameIntoBucket` does: when the bucket directory no longer exists, throw
   * `BucketNotFoundError`. (`delete` has the same pattern after `unlink`; there it only logs a warning.)
   * The window is narrow, so the test races many times; it hits a few percent of them.
   */
  it.fails('rejects only with BucketNotFoundError', { timeout: 60_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'mdstore-race-'));
    const store = createFsBlobStore({ root: dir });
    const failures = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const bucket = `race-${i}`;
      await store.createBucket({ bucket });
      const put = store
        .put({ bucket, key: `file/${i}`, content: single(new Uint8Array(1000)), maxBytes: 10_000 })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      await new Promise((resolve) => setTimeout(resolve, i % 4));
      await store.deleteBucket({ bucket });
      const error = await put;
      if (error !== undefined && !(error instanceof BucketNotFoundError)) failures.add(String(error));
    }
    await store.close();
    expect([...failures]).toEqual([]);
  });
});
