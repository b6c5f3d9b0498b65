import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { BlobStore, ByteStream } from '../ports/blobs.js';
import { gate, nextMacrotask, testWithHarness } from './harness.js';

export interface BlobStoreHarness {
  store: BlobStore;
  /** Closes the store and removes everything the test left behind. */
  cleanup(): Promise<void>;
  /**
   * Takes away what `store` needs to serve (a filesystem root replaced by a file, wrong credentials…),
   * for the readiness tests (`breakable`); `cleanup` still works after it.
   */
  breakStore?(): Promise<void>;
}

const MiB = 1024 * 1024;
const LIMIT = 10 * MiB;

/** A fresh, valid bucket name per call, so that tests never depend on the store being empty. */
const aBucketName = () => `ct-${randomUUID()}`;

const encode = (text: string) => new TextEncoder().encode(text);
const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Streams `bytes` in chunks of varying sizes (a fresh copy each), yielding to the event loop between. */
async function* chunksOf(bytes: Uint8Array, chunkSize = 64 * 1024): ByteStream {
  let offset = 0;
  let round = 0;
  while (offset < bytes.length) {
    const size = round % 3 === 1 ? Math.max(1, chunkSize >> 3) : chunkSize;
    yield bytes.slice(offset, offset + size);
    offset += size;
    round += 1;
    await nextMacrotask();
  }
}

async function readAll(stream: ByteStream): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to reject, but it resolved');
    },
    (error: unknown) => error,
  );
}

/**
 * The compliance suite of `BlobStore`. `open` must return a store for one test; buckets are named
 * randomly by the suite. Optional features are read from `store.supports`. With `breakable`, the
 * harness's `breakStore` is used to check that `probe` fails once the store cannot serve.
 */
export function describeBlobStoreContract(
  adapterName: string,
  open: () => Promise<BlobStoreHarness>,
  options: { breakable?: boolean } = {},
): void {
  const test = testWithHarness(open);

  describe(`BlobStore contract: ${adapterName}`, () => {
    async function newBucket(store: BlobStore): Promise<string> {
      const bucket = aBucketName();
      await store.createBucket({ bucket });
      return bucket;
    }

    async function put(store: BlobStore, bucket: string, key: string, bytes: Uint8Array, maxBytes = LIMIT) {
      return store.put({ bucket, key, content: chunksOf(bytes), maxBytes });
    }

    async function read(store: BlobStore, bucket: string, key: string): Promise<Uint8Array> {
      const { sizeBytes, content } = await store.get({ bucket, key });
      const bytes = await readAll(content);
      expect(bytes.length).toBe(sizeBytes);
      return bytes;
    }

    async function listed(store: BlobStore, bucket: string): Promise<{ key: string; sizeBytes: number }[]> {
      const entries: { key: string; sizeBytes: number }[] = [];
      for await (const entry of store.list!({ bucket }))
        entries.push({ key: entry.key, sizeBytes: entry.sizeBytes });
      return entries.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
    }

    /** Nothing is visible at `key`, neither through `stat` nor, when supported, through `list`. */
    async function expectAbsent(store: BlobStore, bucket: string, key: string) {
      expect(await store.stat({ bucket, key })).toBeNull();
      if (store.supports.list)
        expect((await listed(store, bucket)).map((entry) => entry.key)).not.toContain(key);
    }

    describe('probe (readiness)', () => {
      test('resolves on a working store, creating no bucket and touching no object', async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'kept.md', encode('kept'));
        await store.probe({});
        await store.probe({});
        expect(sameBytes(await read(store, bucket, 'kept.md'), encode('kept'))).toBe(true);
        if (store.supports.list) expect((await listed(store, bucket)).map((e) => e.key)).toEqual(['kept.md']);
      });

      test('an already aborted signal rejects', async ({ store }) => {
        const controller = new AbortController();
        controller.abort(new Error('gone'));
        expect(await rejectionOf(store.probe({ signal: controller.signal }))).toBeInstanceOf(Error);
      });

      if (options.breakable) {
        test('rejects with STORE_UNAVAILABLE once the store cannot serve', async (harness) => {
          expect(harness.breakStore).toBeTypeOf('function');
          await harness.store.probe({});
          await harness.breakStore!();
          expect(await rejectionOf(harness.store.probe({}))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
        });
      }
    });

    describe('buckets', () => {
      test('createBucket is idempotent and bucketExists reports it', async ({ store }) => {
        const bucket = aBucketName();
        expect(await store.bucketExists({ bucket })).toBe(false);
        await store.createBucket({ bucket });
        await store.createBucket({ bucket });
        expect(await store.bucketExists({ bucket })).toBe(true);
        expect(await store.bucketExists({ bucket: aBucketName() })).toBe(false);
      });

      test('createBucket on an existing bucket keeps its objects', async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'kept.md', encode('kept'));
        await store.createBucket({ bucket });
        expect(await read(store, bucket, 'kept.md')).toEqual(encode('kept'));
      });

      test('deleteBucket removes the objects and the bucket', async ({ store }) => {
        const bucket = await newBucket(store);
        const neighbour = await newBucket(store);
        await put(store, bucket, 'a.md', encode('a'));
        await put(store, bucket, 'dir/b.md', encode('b'));
        await put(store, neighbour, 'a.md', encode('neighbour'));
        await store.deleteBucket({ bucket });
        expect(await store.bucketExists({ bucket })).toBe(false);
        // A bucket created again under the same name starts empty.
        await store.createBucket({ bucket });
        await expectAbsent(store, bucket, 'a.md');
        await expectAbsent(store, bucket, 'dir/b.md');
        expect(await read(store, neighbour, 'a.md')).toEqual(encode('neighbour'));
      });

      test('deleteBucket succeeds on a missing bucket, also twice', async ({ store }) => {
        const bucket = await newBucket(store);
        await store.deleteBucket({ bucket });
        await store.deleteBucket({ bucket });
        await store.deleteBucket({ bucket: aBucketName() });
        expect(await store.bucketExists({ bucket })).toBe(false);
      });
    });

    describe('put and get', () => {
      const sizes = [
        ['a 1-byte', 1],
        ['an empty (0-byte)', 0],
        ['a 3 MiB multi-chunk', 3 * MiB + 17],
      ] as const;
      for (const [label, size] of sizes) {
        test(`round-trips ${label} content with its size and sha256`, async ({ store }) => {
          const bucket = await newBucket(store);
          const bytes = new Uint8Array(randomBytes(size));
          const stored = await put(store, bucket, 'file.md', bytes);
          expect(stored).toEqual({ sizeBytes: size, sha256: sha256Of(bytes) });
          expect(stored.sha256).toMatch(/^[0-9a-f]{64}$/);
          const got = await store.get({ bucket, key: 'file.md' });
          expect(got.sizeBytes).toBe(size);
          const back = await readAll(got.content);
          expect(back.length).toBe(size);
          expect(sha256Of(back)).toBe(sha256Of(bytes));
          expect(sameBytes(back, bytes)).toBe(true);
          expect(await store.stat({ bucket, key: 'file.md' })).toEqual({ sizeBytes: size });
        });
      }

      test('accepts empty chunks inside the content', async ({ store }) => {
        const bucket = await newBucket(store);
        async function* content(): ByteStream {
          yield new Uint8Array(0);
          yield encode('ab');
          yield new Uint8Array(0);
          yield encode('c');
        }
        const stored = await store.put({ bucket, key: 'k', content: content(), maxBytes: LIMIT });
        expect(stored).toEqual({ sizeBytes: 3, sha256: sha256Of(encode('abc')) });
        expect(await read(store, bucket, 'k')).toEqual(encode('abc'));
      });

      test('a put replaces the previous object at the key', async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'k', encode('first version, longer'));
        await put(store, bucket, 'k', encode('second'));
        expect(await read(store, bucket, 'k')).toEqual(encode('second'));
        expect(await store.stat({ bucket, key: 'k' })).toEqual({ sizeBytes: 6 });
      });

      test('accepts content of exactly maxBytes', async ({ store }) => {
        const bucket = await newBucket(store);
        const bytes = new Uint8Array(randomBytes(100_000));
        expect((await put(store, bucket, 'k', bytes, 100_000)).sizeBytes).toBe(100_000);
        expect(sameBytes(await read(store, bucket, 'k'), bytes)).toBe(true);
      });

      test('refuses maxBytes + 1 with BLOB_TOO_LARGE and stores nothing', async ({ store }) => {
        const bucket = await newBucket(store);
        const error = await rejectionOf(put(store, bucket, 'k', new Uint8Array(100_001), 100_000));
        expect(error).toMatchObject({ code: 'BLOB_TOO_LARGE' });
        await expectAbsent(store, bucket, 'k');
      });

      test('a refused oversized put leaves the previous object unchanged', async ({ store }) => {
        const bucket = await newBucket(store);
        const previous = new Uint8Array(randomBytes(1_000));
        await put(store, bucket, 'k', previous);
        const error = await rejectionOf(put(store, bucket, 'k', new Uint8Array(randomBytes(2_001)), 2_000));
        expect(error).toMatchObject({ code: 'BLOB_TOO_LARGE' });
        expect(sameBytes(await read(store, bucket, 'k'), previous)).toBe(true);
      });

      test('refuses an endless content once maxBytes is passed', async ({ store }) => {
        const bucket = await newBucket(store);
        async function* endless(): ByteStream {
          for (;;) {
            yield new Uint8Array(4_096);
            await nextMacrotask();
          }
        }
        const error = await rejectionOf(
          store.put({ bucket, key: 'k', content: endless(), maxBytes: 100_000 }),
        );
        expect(error).toMatchObject({ code: 'BLOB_TOO_LARGE' });
        await expectAbsent(store, bucket, 'k');
      });

      test('a content that throws midway rejects with that error and stores nothing', async ({ store }) => {
        const bucket = await newBucket(store);
        const failure = new Error('client went away');
        async function* broken(): ByteStream {
          yield new Uint8Array(randomBytes(70_000));
          await nextMacrotask();
          throw failure;
        }
        expect(await rejectionOf(store.put({ bucket, key: 'k', content: broken(), maxBytes: LIMIT }))).toBe(
          failure,
        );
        await expectAbsent(store, bucket, 'k');
      });

      test('a content that throws midway leaves the previous object intact', async ({ store }) => {
        const bucket = await newBucket(store);
        const previous = new Uint8Array(randomBytes(5_000));
        await put(store, bucket, 'k', previous);
        const failure = new Error('client went away');
        async function* broken(): ByteStream {
          yield new Uint8Array(randomBytes(70_000));
          throw failure;
        }
        expect(await rejectionOf(store.put({ bucket, key: 'k', content: broken(), maxBytes: LIMIT }))).toBe(
          failure,
        );
        expect(sameBytes(await read(store, bucket, 'k'), previous)).toBe(true);
      });

      test('an abort during a put rejects and stores nothing', async ({ store }) => {
        const bucket = await newBucket(store);
        const previous = encode('previous');
        await put(store, bucket, 'old', previous);
        for (const key of ['new', 'old']) {
          const controller = new AbortController();
          async function* content(): ByteStream {
            yield new Uint8Array(randomBytes(10_000));
            await nextMacrotask();
            controller.abort();
            for (let index = 0; index < 3; index += 1) {
              yield new Uint8Array(randomBytes(10_000));
              await nextMacrotask();
            }
          }
          await rejectionOf(
            store.put({ bucket, key, content: content(), maxBytes: LIMIT, signal: controller.signal }),
          );
        }
        await expectAbsent(store, bucket, 'new');
        expect(await read(store, bucket, 'old')).toEqual(previous);
      });

      test('an abort while the content is stalled rejects and stores nothing', async ({ store }) => {
        const bucket = await newBucket(store);
        const controller = new AbortController();
        const firstChunkTaken = gate();
        async function* stalled(): ByteStream {
          yield new Uint8Array(randomBytes(10_000));
          firstChunkTaken.open();
          // A client that stops sending: only the abort can end this put.
          await new Promise<never>(() => {});
        }
        const putting = store.put({
          bucket,
          key: 'k',
          content: stalled(),
          maxBytes: LIMIT,
          signal: controller.signal,
        });
        await Promise.race([firstChunkTaken.promise, putting]);
        controller.abort();
        await rejectionOf(putting);
        await expectAbsent(store, bucket, 'k');
      });

      test('a put with an already aborted signal rejects and stores nothing', async ({ store }) => {
        const bucket = await newBucket(store);
        const signal = AbortSignal.abort();
        await rejectionOf(
          store.put({ bucket, key: 'k', content: chunksOf(encode('x')), maxBytes: LIMIT, signal }),
        );
        await expectAbsent(store, bucket, 'k');
      });

      test('a put into a missing bucket rejects with BUCKET_NOT_FOUND', async ({ store }) => {
        const bucket = aBucketName();
        const error = await rejectionOf(put(store, bucket, 'k', encode('x')));
        expect(error).toMatchObject({ code: 'BUCKET_NOT_FOUND' });
        expect(await store.bucketExists({ bucket })).toBe(false);
      });

      test('get of a missing key or in a missing bucket rejects with BLOB_NOT_FOUND', async ({ store }) => {
        const bucket = await newBucket(store);
        expect(await rejectionOf(store.get({ bucket, key: 'missing.md' }))).toMatchObject({
          code: 'BLOB_NOT_FOUND',
        });
        expect(await rejectionOf(store.get({ bucket: aBucketName(), key: 'missing.md' }))).toMatchObject({
          code: 'BLOB_NOT_FOUND',
        });
      });

      test('get with a range produces exactly those bytes and reports the whole size', async ({ store }) => {
        const bucket = await newBucket(store);
        const bytes = randomBytes(200_000);
        await put(store, bucket, 'ranged', bytes);
        const ranges = [
          { start: 0, end: 0 },
          { start: 0, end: 9 },
          { start: 199_999, end: 199_999 },
          { start: 5, end: 199_999 },
          // Across the 64 KiB read chunks of a positioned reader.
          { start: 65_530, end: 131_080 },
          { start: 0, end: 199_999 },
        ];
        for (const range of ranges) {
          const got = await store.get({ bucket, key: 'ranged', range });
          const label = `${range.start}-${range.end}`;
          expect(got.sizeBytes, label).toBe(bytes.length);
          const read = await readAll(got.content);
          expect(read.length, label).toBe(range.end - range.start + 1);
          expect(sameBytes(read, bytes.subarray(range.start, range.end + 1)), label).toBe(true);
        }
      });

      test('stat reports the size, or null when missing', async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'k', encode('12345'));
        expect(await store.stat({ bucket, key: 'k' })).toEqual({ sizeBytes: 5 });
        expect(await store.stat({ bucket, key: 'other' })).toBeNull();
      });

      test('delete removes the object and is idempotent', async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'k', encode('x'));
        await put(store, bucket, 'kept', encode('y'));
        await store.delete({ bucket, key: 'k' });
        await expectAbsent(store, bucket, 'k');
        await store.delete({ bucket, key: 'k' });
        await store.delete({ bucket: aBucketName(), key: 'k' });
        expect(await read(store, bucket, 'kept')).toEqual(encode('y'));
        expect(await rejectionOf(store.get({ bucket, key: 'k' }))).toMatchObject({ code: 'BLOB_NOT_FOUND' });
      });

      test('concurrent puts to one key end with exactly one whole content', async ({ store }) => {
        const bucket = await newBucket(store);
        const contents = [1, 2, 3, 4].map((fill) => new Uint8Array(256 * 1024).fill(fill));
        const results = await Promise.allSettled(
          contents.map((bytes) =>
            store.put({ bucket, key: 'k', content: chunksOf(bytes, 16 * 1024), maxBytes: LIMIT }),
          ),
        );
        expect(results.some((result) => result.status === 'fulfilled')).toBe(true);
        const stored = await read(store, bucket, 'k');
        expect(contents.some((bytes) => sameBytes(bytes, stored))).toBe(true);
      });

      test('leaving a get iteration early, then deleting the key, works', async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'k', new Uint8Array(randomBytes(3 * MiB)));
        const { content } = await store.get({ bucket, key: 'k' });
        for await (const chunk of content) {
          expect(chunk.length).toBeGreaterThan(0);
          break;
        }
        await store.delete({ bucket, key: 'k' });
        await expectAbsent(store, bucket, 'k');
        await put(store, bucket, 'k', encode('again'));
        expect(await read(store, bucket, 'k')).toEqual(encode('again'));
      });
    });

    describe('keys', () => {
      test('case twins are distinct keys', async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'a.md', encode('lower'));
        await put(store, bucket, 'A.md', encode('upper'));
        expect(await read(store, bucket, 'a.md')).toEqual(encode('lower'));
        expect(await read(store, bucket, 'A.md')).toEqual(encode('upper'));
        await store.delete({ bucket, key: 'a.md' });
        await expectAbsent(store, bucket, 'a.md');
        expect(await read(store, bucket, 'A.md')).toEqual(encode('upper'));
      });

      test('NFC and NFD twins are distinct keys', async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'caf\u00e9.md', encode('nfc'));
        await put(store, bucket, 'cafe\u0301.md', encode('nfd'));
        expect(await read(store, bucket, 'caf\u00e9.md')).toEqual(encode('nfc'));
        expect(await read(store, bucket, 'cafe\u0301.md')).toEqual(encode('nfd'));
      });

      test('hostile keys round-trip and stay inside their bucket', async ({ store }) => {
        const hostileKeys = [
          '../escape',
          '..\\escape',
          '/etc/passwd',
          '%2e%2e%2fx',
          'a b',
          'dir/file',
          '.',
          '..',
          'x/../y',
          './z',
          'a//b',
          'trailing/',
          '\\',
          'CON',
          'nul.md',
          'k'.repeat(1024),
          '\u{1F600}'.repeat(256),
          '\u{1F600}.md',
        ];
        const bucket = await newBucket(store);
        const other = await newBucket(store);
        const contentOf = (index: number) => encode(`content number ${index}`);
        for (const [index, key] of hostileKeys.entries()) await put(store, bucket, key, contentOf(index));
        for (const [index, key] of hostileKeys.entries()) {
          expect(await read(store, bucket, key), key).toEqual(contentOf(index));
          expect(await store.stat({ bucket: other, key }), key).toBeNull();
        }
        if (store.supports.list) {
          expect((await listed(store, bucket)).map((entry) => entry.key).sort()).toEqual(
            [...hostileKeys].sort(),
          );
          expect(await listed(store, other)).toEqual([]);
        }
        await store.deleteBucket({ bucket });
        await store.createBucket({ bucket });
        for (const key of hostileKeys) await expectAbsent(store, bucket, key);
        if (store.supports.list) expect(await listed(store, other)).toEqual([]);
      });

      test("keys 'a' and 'a/b' coexist, in either order of creation", async ({ store }) => {
        const bucket = await newBucket(store);
        await put(store, bucket, 'a', encode('file a'));
        await put(store, bucket, 'a/b', encode('file a/b'));
        await put(store, bucket, 'x/y', encode('file x/y'));
        await put(store, bucket, 'x', encode('file x'));
        for (const key of ['a', 'a/b', 'x', 'x/y'])
          expect(await read(store, bucket, key)).toEqual(encode(`file ${key}`));
        await store.delete({ bucket, key: 'a' });
        expect(await read(store, bucket, 'a/b')).toEqual(encode('file a/b'));
      });

      test('the same key in two buckets holds independent objects', async ({ store }) => {
        const first = await newBucket(store);
        const second = await newBucket(store);
        await put(store, first, 'k', encode('first'));
        await put(store, second, 'k', encode('second'));
        expect(await read(store, first, 'k')).toEqual(encode('first'));
        expect(await read(store, second, 'k')).toEqual(encode('second'));
        await store.delete({ bucket: first, key: 'k' });
        expect(await read(store, second, 'k')).toEqual(encode('second'));
      });
    });

    describe('list', () => {
      test('lists every key of the bucket with its size', async ({ store }, { skip }) => {
        if (!store.supports.list) skip(`${adapterName} does not list`);
        if (!store.list) throw new Error('supports.list is true but list() is missing');
        const bucket = await newBucket(store);
        const other = await newBucket(store);
        expect(await listed(store, bucket)).toEqual([]);
        const objects = { 'a.md': 1, 'A.md': 0, 'dir/b.md': 70_000, '\u{1F600}.mdx': 3 };
        for (const [key, size] of Object.entries(objects))
          await put(store, bucket, key, new Uint8Array(size));
        await put(store, other, 'elsewhere.md', encode('x'));
        const expected = Object.entries(objects)
          .map(([key, sizeBytes]) => ({ key, sizeBytes }))
          .sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
        expect(await listed(store, bucket)).toEqual(expected);
      });
    });
  });
}
