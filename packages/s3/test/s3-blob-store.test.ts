import { createHash } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { BlobStore, ByteStream } from '@mdstore/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3BlobStore, type S3BlobStoreOptions, type S3Layout } from '../src/index.js';
import { type RunningS3rver, startS3rver } from '../src/testing/index.js';
import { bytes, chunks, listAll, readAll, uniqueBucket } from './helpers.js';

let s3rver: RunningS3rver;
let raw: S3Client;

beforeAll(async () => {
  s3rver = await startS3rver();
  raw = new S3Client(s3rver.s3ClientOptions);
});

afterAll(async () => {
  raw?.destroy();
  await s3rver?.stop();
});

/** A physical bucket for one single-bucket store. */
const physicalBucket = async (): Promise<string> => {
  const name = uniqueBucket('physical');
  await raw.send(new CreateBucketCommand({ Bucket: name }));
  return name;
};

const rawKeys = async (bucket: string): Promise<string[]> => {
  const page = await raw.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (page.Contents ?? []).map((entry) => entry.Key ?? '').sort();
};

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** Yields `first`, then waits until `signal` aborts (or forever): a client that stalls mid-upload. */
async function* stallsAfter(first: string): ByteStream {
  yield bytes(first);
  await new Promise(() => {});
}

const layouts: { name: string; layout: () => Promise<S3Layout> }[] = [
  { name: 'bucket-per-project', layout: async () => ({ kind: 'bucket-per-project' }) },
  { name: 'single-bucket', layout: async () => ({ kind: 'single-bucket', bucket: await physicalBucket() }) },
];

describe.each(layouts)('$name layout', ({ layout }) => {
  const openStore = async (extra: Partial<S3BlobStoreOptions> = {}) =>
    createS3BlobStore({ ...s3rver.s3ClientOptions, layout: await layout(), ...extra });

  /** A store with one created bucket; the test closes nothing itself (the store owns only its client). */
  const withBucket = async (extra: Partial<S3BlobStoreOptions> = {}) => {
    const store = await openStore(extra);
    const bucket = uniqueBucket();
    await store.createBucket({ bucket });
    return { store, bucket };
  };

  const expectNothingAt = async (store: BlobStore, bucket: string, key: string) => {
    expect(await store.stat({ bucket, key })).toBeNull();
    expect(await listAll(store, bucket)).toEqual([]);
  };

  it('creates buckets idempotently, tells whether they exist and deletes them with their objects', async () => {
    const store = await openStore();
    const bucket = uniqueBucket();
    expect(await store.bucketExists({ bucket })).toBe(false);
    await store.createBucket({ bucket });
    await store.createBucket({ bucket });
    expect(await store.bucketExists({ bucket })).toBe(true);
    await store.put({ bucket, key: 'a.md', content: chunks('A'), maxBytes: 10 });
    await store.put({ bucket, key: 'dir/b.md', content: chunks('B'), maxBytes: 10 });

    await store.deleteBucket({ bucket });

    expect(await store.bucketExists({ bucket })).toBe(false);
    await expect(store.get({ bucket, key: 'a.md' })).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND' });
    await store.deleteBucket({ bucket });
    await store.close();
  });

  it('streams a put in and reads the same bytes back, with size and SHA-256', async () => {
    const { store, bucket } = await withBucket();
    const content = 'héllo, wörld\n'.repeat(50);

    const stored = await store.put({
      bucket,
      key: 'notes.md',
      content: chunks(content.slice(0, 7), content.slice(7)),
      maxBytes: 10_000,
    });

    const expected = bytes(content);
    expect(stored).toEqual({ sizeBytes: expected.byteLength, sha256: sha256(expected) });
    const read = await store.get({ bucket, key: 'notes.md' });
    expect(read.sizeBytes).toBe(expected.byteLength);
    expect(await readAll(read.content)).toEqual(Buffer.from(expected));
    expect(await store.stat({ bucket, key: 'notes.md' })).toEqual({ sizeBytes: expected.byteLength });
  });

  it('uploads long content in parts and stores exactly the streamed bytes', async () => {
    const { store, bucket } = await withBucket({ partSizeBytes: 5 });
    const parts = ['abc', 'defghij', 'k', 'lmnopqrstu', 'vwxyz'];
    const whole = bytes(parts.join(''));

    const stored = await store.put({ bucket, key: 'long.md', content: chunks(...parts), maxBytes: 26 });
    const exactMultiple = await store.put({
      bucket,
      key: 'ten.md',
      content: chunks('0123456789'),
      maxBytes: 10,
    });

    expect(stored).toEqual({ sizeBytes: 26, sha256: sha256(whole) });
    expect(await readAll((await store.get({ bucket, key: 'long.md' })).content)).toEqual(Buffer.from(whole));
    expect(exactMultiple.sizeBytes).toBe(10);
    expect((await readAll((await store.get({ bucket, key: 'ten.md' })).content)).toString()).toBe(
      '0123456789',
    );
  });

  it('stores empty content', async () => {
    const { store, bucket } = await withBucket();
    const stored = await store.put({ bucket, key: 'empty.md', content: chunks(), maxBytes: 10 });
    expect(stored).toEqual({ sizeBytes: 0, sha256: sha256(new Uint8Array(0)) });
    expect(await store.stat({ bucket, key: 'empty.md' })).toEqual({ sizeBytes: 0 });
  });

  it('replaces an existing object', async () => {
    const { store, bucket } = await withBucket();
    await store.put({ bucket, key: 'a.md', content: chunks('first version'), maxBytes: 100 });
    await store.put({ bucket, key: 'a.md', content: chunks('second'), maxBytes: 100 });
    expect((await readAll((await store.get({ bucket, key: 'a.md' })).content)).toString()).toBe('second');
  });

  it('rejects a put into a missing bucket with BucketNotFoundError', async () => {
    const store = await openStore();
    const bucket = uniqueBucket('missing');
    await expect(
      store.put({ bucket, key: 'a.md', content: chunks('x'), maxBytes: 10 }),
    ).rejects.toMatchObject({
      code: 'BUCKET_NOT_FOUND',
      bucket,
    });
    expect(await store.bucketExists({ bucket })).toBe(false);
  });

  it('rejects too-large content as soon as the limit is passed and stores nothing', async () => {
    const { store, bucket } = await withBucket();
    let pulled = 0;
    async function* endless(): ByteStream {
      for (;;) {
        pulled += 1;
        yield bytes('0123456789');
      }
    }

    await expect(
      store.put({ bucket, key: 'big.md', content: endless(), maxBytes: 25 }),
    ).rejects.toMatchObject({
      code: 'BLOB_TOO_LARGE',
      maxBytes: 25,
    });

    expect(pulled).toBe(3);
    await expectNothingAt(store, bucket, 'big.md');
  });

  it('accepts exactly maxBytes', async () => {
    const { store, bucket } = await withBucket();
    const stored = await store.put({ bucket, key: 'a.md', content: chunks('12345', '67890'), maxBytes: 10 });
    expect(stored.sizeBytes).toBe(10);
  });

  it('leaves nothing visible when the limit is passed after parts were uploaded', async () => {
    const { store, bucket } = await withBucket({ partSizeBytes: 4 });
    await expect(
      store.put({ bucket, key: 'big.md', content: chunks('aaaa', 'bbbb', 'cccc', 'dddd'), maxBytes: 13 }),
    ).rejects.toMatchObject({ code: 'BLOB_TOO_LARGE' });
    await expectNothingAt(store, bucket, 'big.md');
  });

  it('keeps the previous object when a replacing put fails', async () => {
    const { store, bucket } = await withBucket({ partSizeBytes: 4 });
    await store.put({ bucket, key: 'a.md', content: chunks('old'), maxBytes: 100 });
    await expect(
      store.put({ bucket, key: 'a.md', content: chunks('new content that is too long'), maxBytes: 5 }),
    ).rejects.toMatchObject({ code: 'BLOB_TOO_LARGE' });
    expect((await readAll((await store.get({ bucket, key: 'a.md' })).content)).toString()).toBe('old');
  });

  it.each([
    { name: 'a single put', partSizeBytes: 1024 },
    { name: 'a multipart upload', partSizeBytes: 2 },
  ])('rethrows the content error and stores nothing ($name)', async ({ partSizeBytes }) => {
    const { store, bucket } = await withBucket({ partSizeBytes });
    const failure = new Error('client went away');
    async function* failing(): ByteStream {
      yield bytes('abcdef');
      throw failure;
    }
    await expect(store.put({ bucket, key: 'a.md', content: failing(), maxBytes: 100 })).rejects.toBe(failure);
    await expectNothingAt(store, bucket, 'a.md');
  });

  it.each([
    { name: 'a single put', partSizeBytes: 1024 },
    { name: 'a multipart upload', partSizeBytes: 2 },
  ])('stops a stalled put when its signal aborts and stores nothing ($name)', async ({ partSizeBytes }) => {
    const { store, bucket } = await withBucket({ partSizeBytes });
    const controller = new AbortController();
    const reason = new Error('caller gave up');

    const putting = store.put({
      bucket,
      key: 'a.md',
      content: stallsAfter('abcdef'),
      maxBytes: 100,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(reason), 20);

    await expect(putting).rejects.toBe(reason);
    await expectNothingAt(store, bucket, 'a.md');
  });

  it('rejects every method at once when the signal is already aborted', async () => {
    const { store, bucket } = await withBucket();
    const signal = AbortSignal.abort(new Error('too late'));
    await expect(
      store.put({ bucket, key: 'a.md', content: chunks('x'), maxBytes: 10, signal }),
    ).rejects.toThrow('too late');
    await expect(store.get({ bucket, key: 'a.md', signal })).rejects.toThrow('too late');
    await expect(store.stat({ bucket, key: 'a.md', signal })).rejects.toThrow('too late');
    await expect(store.createBucket({ bucket: uniqueBucket(), signal })).rejects.toThrow('too late');
    await expectNothingAt(store, bucket, 'a.md');
  });

  it('reports missing objects: get rejects with BlobNotFoundError, stat is null, delete succeeds', async () => {
    const { store, bucket } = await withBucket();
    await expect(store.get({ bucket, key: 'nope.md' })).rejects.toMatchObject({
      code: 'BLOB_NOT_FOUND',
      bucket,
      key: 'nope.md',
    });
    expect(await store.stat({ bucket, key: 'nope.md' })).toBeNull();
    await store.delete({ bucket, key: 'nope.md' });

    const missing = uniqueBucket('missing');
    await expect(store.get({ bucket: missing, key: 'a.md' })).rejects.toMatchObject({
      code: 'BLOB_NOT_FOUND',
    });
    expect(await store.stat({ bucket: missing, key: 'a.md' })).toBeNull();
    await store.delete({ bucket: missing, key: 'a.md' });
  });

  it('deletes one object and lists the remaining keys with their sizes', async () => {
    const { store, bucket } = await withBucket();
    for (const [key, text] of [
      ['a.md', 'A'],
      ['b.md', 'BB'],
      ['sub/c.mdx', 'CCC'],
    ] as const) {
      await store.put({ bucket, key, content: chunks(text), maxBytes: 10 });
    }
    await store.delete({ bucket, key: 'b.md' });
    const listed = await listAll(store, bucket);
    expect(listed.sort((x, y) => (x.key < y.key ? -1 : 1))).toEqual([
      { key: 'a.md', sizeBytes: 1 },
      { key: 'sub/c.mdx', sizeBytes: 3 },
    ]);
  });

  it('keeps buckets apart', async () => {
    const store = await openStore();
    const [first, second] = [uniqueBucket('one'), uniqueBucket('two')];
    await store.createBucket({ bucket: first });
    await store.createBucket({ bucket: second });
    await store.put({ bucket: first, key: 'a.md', content: chunks('first'), maxBytes: 10 });
    await store.put({ bucket: second, key: 'a.md', content: chunks('second'), maxBytes: 10 });

    await store.deleteBucket({ bucket: first });

    expect(await store.bucketExists({ bucket: second })).toBe(true);
    expect((await readAll((await store.get({ bucket: second, key: 'a.md' })).content)).toString()).toBe(
      'second',
    );
  });

  it('lists every page of a long listing', async () => {
    // s3rver cannot paginate on Node 20 (its continuation tokens use DES, which OpenSSL 3 lacks), so
    // ListObjectsV2 is answered here: three pages of two keys under the requested prefix.
    const client = new S3Client(s3rver.s3ClientOptions);
    const pages = [['1.md', '2.md'], ['3.md', '4.md'], ['5.md']];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'ListObjectsV2Command') return next(args);
        const input = args.input as { Prefix?: string; ContinuationToken?: string };
        const index = Number(input.ContinuationToken ?? '0');
        const keys = pages[index] ?? [];
        const more = index + 1 < pages.length;
        const output = {
          $metadata: {},
          Contents: keys.map((key) => ({ Key: (input.Prefix ?? '') + key, Size: key.length })),
          IsTruncated: more,
          NextContinuationToken: more ? String(index + 1) : undefined,
        };
        return { output } as never;
      },
      { step: 'initialize', name: 'fakeListPages' },
    );
    const store = createS3BlobStore({ client, layout: await layout() });

    const listed = await listAll(store, uniqueBucket());

    expect(listed.map((entry) => entry.key)).toEqual(['1.md', '2.md', '3.md', '4.md', '5.md']);
    client.destroy();
  });

  it('rejects a read with the caller’s reason when its signal aborts mid-body', async () => {
    const { store, bucket } = await withBucket({ partSizeBytes: 4 << 20 });
    const big = new Uint8Array(2 << 20).fill(98);
    await store.put({ bucket, key: 'big.md', content: chunks(big), maxBytes: big.byteLength });
    const controller = new AbortController();
    const reason = new Error('reader gone');

    const read = await store.get({ bucket, key: 'big.md', signal: controller.signal });
    const iterator = read.content[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort(reason);

    await expect(readAll({ [Symbol.asyncIterator]: () => iterator })).rejects.toBe(reason);
  });

  /** A store whose ranged GETs go out with `Range` rewritten by `rewrite` (undefined: no `Range`). */
  async function storeRewritingRange(rewrite: (range: string) => string | undefined) {
    const client = new S3Client(s3rver.s3ClientOptions);
    client.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { headers: Record<string, string> };
        const range = request.headers.range;
        if (range !== undefined) {
          const rewritten = rewrite(range);
          if (rewritten === undefined) delete request.headers.range;
          else request.headers.range = rewritten;
        }
        return next(args);
      },
      { step: 'finalizeRequest', name: 'rewriteRange' },
    );
    const store = createS3BlobStore({ client, layout: await layout() });
    const bucket = uniqueBucket();
    await store.createBucket({ bucket });
    const data = new Uint8Array(300_000).map((_, i) => i % 251);
    await store.put({ bucket, key: 'r.md', content: chunks(data), maxBytes: data.byteLength });
    return { store, bucket, data, client };
  }

  it('a store that ignores Range: the part asked for is cut from its whole answer', async () => {
    const { store, bucket, data, client } = await storeRewritingRange(() => undefined);
    for (const range of [
      { start: 0, end: 0 },
      { start: 100_000, end: 200_123 },
      { start: 299_999, end: 299_999 },
    ]) {
      const read = await store.get({ bucket, key: 'r.md', range });
      expect(read.sizeBytes).toBe(data.byteLength);
      expect(
        Buffer.from(await readAll(read.content)).equals(
          Buffer.from(data.subarray(range.start, range.end + 1)),
        ),
      ).toBe(true);
    }
    client.destroy();
  });

  it('a store that serves a part not covering the range fails: never a short or shifted read', async () => {
    const { store, bucket, client } = await storeRewritingRange(() => 'bytes=0-9');
    await expect(store.get({ bucket, key: 'r.md', range: { start: 5, end: 20 } })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    await expect(store.get({ bucket, key: 'r.md', range: { start: 50, end: 60 } })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    client.destroy();
  });

  it('destroys the response body when the reader leaves early', async () => {
    const client = new S3Client(s3rver.s3ClientOptions);
    const bodies: { destroyed: boolean }[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const body = (result.response as { body?: { destroyed: boolean } }).body;
        if (body) bodies.push(body);
        return result;
      },
      { step: 'deserialize', name: 'captureBody', priority: 'low' },
    );
    const store = createS3BlobStore({ client, layout: await layout(), partSizeBytes: 1 << 20 });
    const bucket = uniqueBucket();
    await store.createBucket({ bucket });
    const big = new Uint8Array(512 * 1024).fill(97);
    await store.put({ bucket, key: 'big.md', content: chunks(big), maxBytes: big.byteLength });
    bodies.length = 0;

    const read = await store.get({ bucket, key: 'big.md' });
    for await (const _chunk of read.content) break;

    expect(bodies.at(-1)?.destroyed).toBe(true);
    client.destroy();
  });
});

describe('single-bucket layout', () => {
  it('keeps each logical bucket under its own prefix, marker included, and removes all of it', async () => {
    const physical = await physicalBucket();
    const store = createS3BlobStore({
      ...s3rver.s3ClientOptions,
      layout: { kind: 'single-bucket', bucket: physical },
    });
    await store.createBucket({ bucket: 'proj-one' });
    await store.createBucket({ bucket: 'proj-one-two' });
    await store.put({ bucket: 'proj-one', key: 'a.md', content: chunks('A'), maxBytes: 10 });
    await store.put({ bucket: 'proj-one-two', key: 'b.md', content: chunks('B'), maxBytes: 10 });

    expect(await rawKeys(physical)).toEqual([
      'proj-one-two/',
      'proj-one-two/b.md',
      'proj-one/',
      'proj-one/a.md',
    ]);
    expect(await listAll(store, 'proj-one')).toEqual([{ key: 'a.md', sizeBytes: 1 }]);

    await store.deleteBucket({ bucket: 'proj-one' });

    expect(await rawKeys(physical)).toEqual(['proj-one-two/', 'proj-one-two/b.md']);
    await store.close();
  });

  it('refuses a bucket name that could reach into another prefix', async () => {
    const store = createS3BlobStore({
      ...s3rver.s3ClientOptions,
      layout: { kind: 'single-bucket', bucket: await physicalBucket() },
    });
    await expect(store.createBucket({ bucket: 'a/b' })).rejects.toThrow(RangeError);
  });
});

describe('probe (readiness) against a misconfigured store', () => {
  const misconfigured: Array<[string, () => Partial<S3BlobStoreOptions>]> = [
    // s3rver checks the access key id (it does not verify V4 signatures, so a wrong secret passes there).
    ['wrong credentials', () => ({ credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'S3RVER' } })],
    [
      'an endpoint where nothing listens',
      () => ({ endpoint: 'http://127.0.0.1:9', requestTimeoutMs: 2_000 }),
    ],
  ];
  for (const [what, extra] of misconfigured) {
    for (const kind of ['bucket-per-project', 'single-bucket'] as const) {
      it(`rejects with STORE_UNAVAILABLE on ${what} (${kind})`, async () => {
        const layout: S3Layout =
          kind === 'single-bucket' ? { kind, bucket: await physicalBucket() } : { kind };
        const good = createS3BlobStore({ ...s3rver.s3ClientOptions, layout });
        const bad = createS3BlobStore({ ...s3rver.s3ClientOptions, layout, ...extra() });
        try {
          await good.probe({});
          await expect(bad.probe({})).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
        } finally {
          await good.close();
          await bad.close();
        }
      });
    }
  }

  it('single-bucket: a configured bucket that does not exist is not ready', async () => {
    const store = createS3BlobStore({
      ...s3rver.s3ClientOptions,
      layout: { kind: 'single-bucket', bucket: uniqueBucket('never-created') },
    });
    try {
      await expect(store.probe({})).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    } finally {
      await store.close();
    }
  });
});
