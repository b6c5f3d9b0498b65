import { spawnSync } from 'node:child_process';
import { mkdir, open, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  BlobNotFoundError,
  BlobTooLargeError,
  BucketNotFoundError,
  type ByteStream,
  StoreUnavailableError,
} from '@mdstore/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFsBlobStore, InvalidBlobNameError } from '../src/index.js';
import { encodeKey } from '../src/safe-path.js';
import { bytesOf, freshStore, getText, readAll, sha256, tempFiles, useTempRoots } from './helpers.js';

const makeRoot = useTempRoots();
const bucket = 'bucket-one';

async function storeWithBucket() {
  const { store, root } = await freshStore(makeRoot);
  await store.createBucket({ bucket });
  return { store, root };
}

/** The prototype of Node's FileHandle, to observe or break every handle the store opens. */
async function fileHandlePrototype(root: string) {
  const probe = path.join(root, 'probe');
  await writeFile(probe, '');
  const handle = await open(probe, 'r');
  await handle.close();
  return Object.getPrototypeOf(handle) as {
    write(...args: unknown[]): Promise<unknown>;
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createFsBlobStore', () => {
  it('creates the root, reports scheme file and supports list', async () => {
    const { store, root } = await freshStore(makeRoot);
    expect(store.scheme).toBe('file');
    expect(store.supports.list).toBe(true);
    expect(await store.bucketExists({ bucket })).toBe(false);
    expect((await readdir(root)).sort()).toEqual(['.tmp', '.trash']);
  });

  it('removes temp files and trash left by dead processes, keeping those of running ones', async () => {
    const parent = await makeRoot();
    const root = path.join(parent, 'blobs');
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    await mkdir(path.join(root, '.tmp'), { recursive: true });
    await mkdir(path.join(root, '.trash', `${deadPid}-old`, 'obj'), { recursive: true });
    await writeFile(path.join(root, '.tmp', `${deadPid}-abc.tmp`), 'partial');
    await writeFile(path.join(root, '.tmp', `${process.pid}-def.tmp`), 'in progress');
    await writeFile(path.join(root, '.tmp', 'garbage'), 'x');

    const store = createFsBlobStore({ root });
    await store.bucketExists({ bucket });

    expect(await tempFiles(root)).toEqual([`${process.pid}-def.tmp`]);
    expect(await readdir(path.join(root, '.trash'))).toEqual([]);
  });
});

describe('buckets', () => {
  it('creates idempotently, reports existence and deletes with every object', async () => {
    const { store, root } = await freshStore(makeRoot);
    await store.createBucket({ bucket });
    await store.createBucket({ bucket });
    expect(await store.bucketExists({ bucket })).toBe(true);
    await store.put({ bucket, key: 'x'.repeat(300), content: bytesOf('deep'), maxBytes: 10 });

    await store.deleteBucket({ bucket });

    expect(await store.bucketExists({ bucket })).toBe(false);
    expect(await readdir(path.join(root, '.trash'))).toEqual([]);
    await store.createBucket({ bucket });
    expect(await store.stat({ bucket, key: 'x'.repeat(300) })).toBeNull();
  });

  it('deleting a missing bucket succeeds', async () => {
    const { store } = await freshStore(makeRoot);
    await expect(store.deleteBucket({ bucket: 'never-made' })).resolves.toBeUndefined();
  });

  it('rejects invalid bucket names on every method', async () => {
    const { store, root } = await freshStore(makeRoot);
    const bad = '../escape';
    await expect(store.createBucket({ bucket: bad })).rejects.toThrow(InvalidBlobNameError);
    await expect(store.deleteBucket({ bucket: '.tmp' })).rejects.toThrow(InvalidBlobNameError);
    await expect(store.bucketExists({ bucket: 'AB' })).rejects.toThrow(InvalidBlobNameError);
    await expect(store.put({ bucket: bad, key: 'k', content: bytesOf('x'), maxBytes: 5 })).rejects.toThrow(
      InvalidBlobNameError,
    );
    await expect(store.get({ bucket: bad, key: 'k' })).rejects.toThrow(InvalidBlobNameError);
    expect((await readdir(root)).sort()).toEqual(['.tmp', '.trash']);
  });
});

describe('put and get', () => {
  it('stores bytes and returns their size and SHA-256', async () => {
    const { store } = await storeWithBucket();
    const stored = await store.put({
      bucket,
      key: 'a.md',
      content: bytesOf('# Hello', ' world'),
      maxBytes: 100,
    });
    expect(stored).toEqual({ sizeBytes: 13, sha256: sha256('# Hello world') });
    const { sizeBytes, content } = await store.get({ bucket, key: 'a.md' });
    expect(sizeBytes).toBe(13);
    expect((await readAll(content)).toString()).toBe('# Hello world');
    expect(await store.stat({ bucket, key: 'a.md' })).toEqual({ sizeBytes: 13 });
  });

  it('streams a multi-chunk object back byte for byte', async () => {
    const { store } = await storeWithBucket();
    const data = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256));
    await store.put({
      bucket,
      key: 'big',
      content: bytesOf(data.subarray(0, 1000), data.subarray(1000)),
      maxBytes: 1e6,
    });
    const { content } = await store.get({ bucket, key: 'big' });
    const chunks: Uint8Array[] = [];
    for await (const chunk of content) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });

  it('stores an empty object', async () => {
    const { store } = await storeWithBucket();
    expect(await store.put({ bucket, key: 'empty', content: bytesOf(), maxBytes: 0 })).toEqual({
      sizeBytes: 0,
      sha256: sha256(''),
    });
    expect(await getText(store, bucket, 'empty')).toBe('');
  });

  it('replaces an existing object', async () => {
    const { store, root } = await storeWithBucket();
    await store.put({ bucket, key: 'a.md', content: bytesOf('old'), maxBytes: 100 });
    await store.put({ bucket, key: 'a.md', content: bytesOf('new content'), maxBytes: 100 });
    expect(await getText(store, bucket, 'a.md')).toBe('new content');
    expect(await tempFiles(root)).toEqual([]);
  });

  it('accepts exactly maxBytes', async () => {
    const { store } = await storeWithBucket();
    await expect(
      store.put({ bucket, key: 'k', content: bytesOf('12', '345'), maxBytes: 5 }),
    ).resolves.toEqual({
      sizeBytes: 5,
      sha256: sha256('12345'),
    });
  });

  it('never creates a missing bucket', async () => {
    const { store } = await freshStore(makeRoot);
    await expect(
      store.put({ bucket, key: 'x'.repeat(300), content: bytesOf('x'), maxBytes: 5 }),
    ).rejects.toBeInstanceOf(BucketNotFoundError);
    expect(await store.bucketExists({ bucket })).toBe(false);
  });

  it.each([
    ['a flat key', 'a.md'],
    ['a key needing new directories', 'x'.repeat(300)],
  ])('reports a bucket deleted during the put, with %s, without recreating it', async (_label, key) => {
    const { store, root } = await storeWithBucket();
    async function* deletingTheBucket(): ByteStream {
      yield Buffer.from('partial ');
      await store.deleteBucket({ bucket });
      yield Buffer.from('rest');
    }
    await expect(
      store.put({ bucket, key, content: deletingTheBucket(), maxBytes: 100 }),
    ).rejects.toBeInstanceOf(BucketNotFoundError);
    expect(await store.bucketExists({ bucket })).toBe(false);
    expect(await tempFiles(root)).toEqual([]);
  });

  it('rejects invalid keys', async () => {
    const { store } = await storeWithBucket();
    for (const key of ['', 'a\0b', 'x'.repeat(1025), '\uD800']) {
      await expect(store.put({ bucket, key, content: bytesOf('x'), maxBytes: 5 })).rejects.toThrow(
        InvalidBlobNameError,
      );
    }
  });

  it('keeps hostile keys inside the bucket and tells them all apart', async () => {
    const { store, root } = await storeWithBucket();
    const keys = [
      '../escape.md',
      '../../outside',
      '..\\win',
      '/etc/passwd',
      '%2e%2e%2fx',
      '.',
      '..',
      'a.md',
      'A.md',
      'caf\u00e9.md',
      'cafe\u0301.md',
      'x'.repeat(125),
      'x'.repeat(126),
      'x'.repeat(1024),
      'dir/file.md',
      'dir',
    ];
    for (const key of keys)
      await store.put({ bucket, key, content: bytesOf(`content of ${key}`), maxBytes: 2000 });

    for (const key of keys) expect(await getText(store, bucket, key)).toBe(`content of ${key}`);
    expect((await readdir(root)).sort()).toEqual(['.tmp', '.trash', bucket]);
    const listed = [];
    for await (const entry of store.list!({ bucket })) listed.push(entry);
    expect(listed.map((entry) => entry.key).sort()).toEqual([...keys].sort());
    for (const entry of listed) expect(entry.sizeBytes).toBe(Buffer.byteLength(`content of ${entry.key}`));
  });

  it('rejects a missing object with BlobNotFoundError, also in a missing bucket', async () => {
    const { store } = await storeWithBucket();
    await expect(store.get({ bucket, key: 'nope' })).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.get({ bucket: 'no-bucket', key: 'nope' })).rejects.toMatchObject({
      code: 'BLOB_NOT_FOUND',
    });
    expect(await store.stat({ bucket, key: 'nope' })).toBeNull();
    expect(await store.stat({ bucket: 'no-bucket', key: 'nope' })).toBeNull();
  });

  it('keeps serving the content it opened while the object is replaced', async () => {
    const { store } = await storeWithBucket();
    await store.put({ bucket, key: 'k', content: bytesOf('first'), maxBytes: 100 });
    const { content } = await store.get({ bucket, key: 'k' });
    await store.put({ bucket, key: 'k', content: bytesOf('second!'), maxBytes: 100 });
    expect((await readAll(content)).toString()).toBe('first');
  });

  it('ends with one whole content when two writers race on one key', async () => {
    const { store, root } = await storeWithBucket();
    const a = 'a'.repeat(100_000);
    const b = 'b'.repeat(150_000);
    const chunked = (text: string) => bytesOf(...(text.match(/.{1,1000}/gs) ?? []));
    await Promise.all([
      store.put({ bucket, key: 'k', content: chunked(a), maxBytes: 1e6 }),
      store.put({ bucket, key: 'k', content: chunked(b), maxBytes: 1e6 }),
    ]);
    expect([a, b]).toContain(await getText(store, bucket, 'k'));
    expect(await tempFiles(root)).toEqual([]);
  });
});

describe('failed puts leave nothing behind and the previous object intact', () => {
  it('too large: rejects as soon as the limit is passed and stops the producer', async () => {
    const { store, root } = await storeWithBucket();
    await store.put({ bucket, key: 'k', content: bytesOf('previous'), maxBytes: 100 });
    let pulled = 0;
    let producerStopped = false;
    async function* endless(): ByteStream {
      try {
        for (;;) {
          pulled += 1;
          yield Buffer.alloc(10, 1);
        }
      } finally {
        producerStopped = true;
      }
    }
    await expect(store.put({ bucket, key: 'k', content: endless(), maxBytes: 25 })).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    expect(pulled).toBe(3);
    await vi.waitFor(() => expect(producerStopped).toBe(true));
    expect(await getText(store, bucket, 'k')).toBe('previous');
    expect(await tempFiles(root)).toEqual([]);
  });

  it('content error: rethrows the very same error', async () => {
    const { store, root } = await storeWithBucket();
    await store.put({ bucket, key: 'k', content: bytesOf('previous'), maxBytes: 100 });
    // An errno-shaped error (like a dropped socket) must not be mistaken for a filesystem failure.
    const failure = Object.assign(new Error('client went away'), { code: 'ECONNRESET', syscall: 'read' });
    async function* failing(): ByteStream {
      yield Buffer.from('partial ');
      throw failure;
    }
    await expect(store.put({ bucket, key: 'k', content: failing(), maxBytes: 100 })).rejects.toBe(failure);
    expect(await getText(store, bucket, 'k')).toBe('previous');
    expect(await tempFiles(root)).toEqual([]);
  });

  it('abort: rejects with the reason even while the producer stalls', async () => {
    const { store, root } = await storeWithBucket();
    await store.put({ bucket, key: 'k', content: bytesOf('previous'), maxBytes: 100 });
    const controller = new AbortController();
    const reason = new Error('request aborted');
    async function* stalling(): ByteStream {
      yield Buffer.from('partial');
      controller.abort(reason);
      await new Promise(() => {});
    }
    await expect(
      store.put({ bucket, key: 'k', content: stalling(), maxBytes: 100, signal: controller.signal }),
    ).rejects.toBe(reason);
    expect(await getText(store, bucket, 'k')).toBe('previous');
    expect(await tempFiles(root)).toEqual([]);
  });

  it('abort before the call: nothing is written', async () => {
    const { store } = await storeWithBucket();
    const signal = AbortSignal.abort();
    await expect(
      store.put({ bucket, key: 'k', content: bytesOf('x'), maxBytes: 5, signal }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(await store.stat({ bucket, key: 'k' })).toBeNull();
  });

  it('disk full: reports StoreUnavailableError and removes the temp file', async () => {
    const { store, root } = await storeWithBucket();
    await store.put({ bucket, key: 'k', content: bytesOf('previous'), maxBytes: 100 });
    const prototype = await fileHandlePrototype(root);
    const enospc = Object.assign(new Error('ENOSPC: no space left on device'), {
      code: 'ENOSPC',
      syscall: 'write',
    });
    vi.spyOn(prototype, 'write').mockRejectedValueOnce(enospc);

    const failed = store.put({ bucket, key: 'k', content: bytesOf('new content'), maxBytes: 100 });

    await expect(failed).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(failed).rejects.toMatchObject({ cause: enospc });
    expect(await getText(store, bucket, 'k')).toBe('previous');
    expect((await tempFiles(root)).filter((name) => name !== 'probe')).toEqual([]);
  });
});

describe('delete and list', () => {
  it('deletes objects; deleting a missing object or in a missing bucket succeeds', async () => {
    const { store } = await storeWithBucket();
    await store.put({ bucket, key: 'k', content: bytesOf('x'), maxBytes: 10 });
    await store.delete({ bucket, key: 'k' });
    expect(await store.stat({ bucket, key: 'k' })).toBeNull();
    await expect(store.delete({ bucket, key: 'k' })).resolves.toBeUndefined();
    await expect(store.delete({ bucket: 'no-bucket', key: 'k' })).resolves.toBeUndefined();
  });

  it('a deleted long key leaves its neighbours readable', async () => {
    const { store } = await storeWithBucket();
    const long = 'x'.repeat(200);
    const longer = 'x'.repeat(300);
    await store.put({ bucket, key: long, content: bytesOf('one'), maxBytes: 10 });
    await store.put({ bucket, key: longer, content: bytesOf('two'), maxBytes: 10 });
    await store.delete({ bucket, key: long });
    expect(await getText(store, bucket, longer)).toBe('two');
    await store.put({ bucket, key: long, content: bytesOf('three'), maxBytes: 10 });
    expect(await getText(store, bucket, long)).toBe('three');
  });

  it('lists nothing in an empty bucket, skips stray files, and rejects a missing bucket', async () => {
    const { store, root } = await storeWithBucket();
    await writeFile(path.join(root, bucket, 'stray.txt'), 'x');
    await writeFile(path.join(root, bucket, 'MY.blob'), 'x');
    const listed = [];
    for await (const entry of store.list!({ bucket })) listed.push(entry);
    expect(listed).toEqual([]);
    const consume = async () => {
      for await (const _entry of store.list!({ bucket: 'no-bucket' })) {
        /* nothing */
      }
    };
    await expect(consume()).rejects.toBeInstanceOf(BucketNotFoundError);
  });

  it('stores objects under their encoded names', async () => {
    const { store, root } = await storeWithBucket();
    await store.put({ bucket, key: 'a.md', content: bytesOf('x'), maxBytes: 10 });
    expect(await readdir(path.join(root, bucket))).toEqual(encodeKey('a.md'));
  });
});
