import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BucketNotFoundError } from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { afterEach, describe, expect, it } from 'vitest';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function* single(bytes: Uint8Array) {
  yield bytes;
}

describe('put racing deleteBucket', () => {
  /**
   * Found by the crash suite: `put` renames the temp file into the bucket, then fsyncs the bucket's
   * directories. A `deleteBucket` that moves the bucket to the trash between the two must make `put`
   * reject with BucketNotFoundError (a 404 for the client), not a store failure (a 500). The window is
   * narrow, so the test races many times.
   */
  it('rejects only with BucketNotFoundError', { timeout: 60_000 }, async () => {
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
