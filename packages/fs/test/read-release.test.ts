import type { FileHandle } from 'node:fs/promises';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { bytesOf, freshStore, useTempRoots } from './helpers.js';

// Records every handle the store opens, to check that reads give them back.
const opened = vi.hoisted(() => [] as FileHandle[]);
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    open: async (...args: Parameters<typeof actual.open>) => {
      const handle = await actual.open(...args);
      opened.push(handle);
      return handle;
    },
  };
});

const makeRoot = useTempRoots();
const bucket = 'bucket-one';

async function storeWithObject(size: number) {
  const { store } = await freshStore(makeRoot);
  await store.createBucket({ bucket });
  await store.put({ bucket, key: 'k', content: bytesOf(Buffer.alloc(size, 7)), maxBytes: 1e6 });
  opened.length = 0;
  return store;
}

/** A closed FileHandle reports fd -1. */
const openHandles = () => opened.filter((handle) => handle.fd !== -1);

beforeEach(() => {
  opened.length = 0;
});

describe('reading releases the file handle', () => {
  it('when the reader reaches the end', async () => {
    const store = await storeWithObject(200_000);
    const { content } = await store.get({ bucket, key: 'k' });
    let total = 0;
    for await (const chunk of content) total += chunk.byteLength;
    expect(total).toBe(200_000);
    expect(opened).toHaveLength(1);
    expect(openHandles()).toEqual([]);
  });

  it('when the reader stops early', async () => {
    const store = await storeWithObject(300_000);
    const { content } = await store.get({ bucket, key: 'k' });
    for await (const _chunk of content) break;
    expect(opened).toHaveLength(1);
    expect(openHandles()).toEqual([]);
  });

  it('when the stream is dropped before its first read', async () => {
    const store = await storeWithObject(10);
    const { content } = await store.get({ bucket, key: 'k' });
    expect(openHandles()).toHaveLength(1);
    await content[Symbol.asyncIterator]().return?.();
    expect(openHandles()).toEqual([]);
  });

  it('when the signal aborts mid-stream', async () => {
    const store = await storeWithObject(300_000);
    const controller = new AbortController();
    const { content } = await store.get({ bucket, key: 'k', signal: controller.signal });
    const reading = (async () => {
      for await (const _chunk of content) controller.abort(new Error('stop'));
    })();
    await expect(reading).rejects.toThrow('stop');
    expect(openHandles()).toEqual([]);
  });

  it('when the object is missing nothing stays open', async () => {
    const store = await storeWithObject(10);
    await expect(store.get({ bucket, key: 'missing' })).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND' });
    expect(openHandles()).toEqual([]);
  });
});
