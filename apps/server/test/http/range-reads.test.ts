import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { createFsBlobStore } from '@mdstore/fs';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { createS3BlobStore } from '@mdstore/s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileS3rver } from '../support/adapters.js';
import { HttpHarness, parseRawResponse } from '../support/http-harness.js';

/**
 * "Streamed from the blob store, never by reading the whole file" (extensions §2, ranges), proved at the
 * stores themselves: the filesystem store reads only the bytes asked for (positioned reads, counted on
 * every file handle), and the S3 store sends a ranged GET and receives only that part. Not in the matrix:
 * each test pins its blob store.
 */
const SIZE = 3 * 1024 * 1024;
const CONTENT = Buffer.alloc(SIZE, 'abcdefghijklmnopqrstuvwxyz\n');

async function uploadBig(h: HttpHarness) {
  const { apiKey, defaultProjectId } = await h.account();
  await h.uploadFile(apiKey, defaultProjectId, 'big.md', CONTENT);
  return { apiKey, path: `/api/projects/${defaultProjectId}/files/big.md` };
}

async function download(h: HttpHarness, key: string, path: string, range?: string) {
  const response = await h.fetch(path, { key, headers: range ? { Range: range } : {} });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
}

describe('ranged downloads read only the part asked for', () => {
  let dir: string;
  /** Every positioned read made through a FileHandle while counting: [position, length]. */
  const reads: Array<[number | null, number]> = [];
  let restore: (() => void) | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mdstore-range-reads-'));
    // FileHandle is not exported: take its prototype from a handle.
    await writeFile(join(dir, 'probe'), 'x');
    const probe = await open(join(dir, 'probe'));
    const prototype = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const original = prototype.read;
    prototype.read = function (this: unknown, ...args: unknown[]) {
      const [, , length, position] = args as [unknown, unknown, number, number | null];
      reads.push([position ?? null, typeof length === 'number' ? length : -1]);
      return original.apply(this, args);
    };
    restore = () => {
      prototype.read = original;
    };
  });

  afterAll(async () => {
    restore?.();
    await rm(dir, { recursive: true, force: true });
  });

  it('filesystem: positioned reads of the range only, whatever the file size', async () => {
    const root = await mkdtemp(join(dir, 'fs-'));
    const h = await HttpHarness.start({
      settings: { maxFileBytes: SIZE, inlineMaxBytes: 0 },
      adapters: async () => {
        const records = createMemoryRecords();
        const blobs = createFsBlobStore({ root });
        const rateLimiter = createMemoryRateLimiter();
        return {
          records,
          blobs,
          rateLimiter,
          close: () => Promise.all([records.close(), blobs.close()]).then(() => {}),
        };
      },
    });
    try {
      const { apiKey, path } = await uploadBig(h);
      const cases: Array<[string, number, number]> = [
        ['bytes=0-0', 0, 0],
        ['bytes=-1', SIZE - 1, SIZE - 1],
        ['bytes=2000000-2000099', 2_000_000, 2_000_099],
        // Across read chunks (64 KiB): several reads, each inside the range.
        ['bytes=65000-200000', 65_000, 200_000],
      ];
      for (const [range, start, end] of cases) {
        reads.length = 0;
        const { status, body } = await download(h, apiKey, path, range);
        expect(status, range).toBe(206);
        expect(body.equals(CONTENT.subarray(start, end + 1)), range).toBe(true);
        const total = reads.reduce((sum, [, length]) => sum + length, 0);
        expect(total, range).toBe(end - start + 1);
        for (const [position, length] of reads) {
          expect(position, range).not.toBeNull();
          expect(position! >= start && position! + length - 1 <= end, `${range}: read at ${position}`).toBe(
            true,
          );
        }
      }
      // The control: a whole download reads the whole file.
      reads.length = 0;
      expect((await download(h, apiKey, path)).status).toBe(200);
      expect(reads.reduce((sum, [, length]) => sum + length, 0)).toBe(SIZE);
    } finally {
      await h.close();
    }
  });

  it('S3: a ranged GetObject, and only that part comes back', async () => {
    const s3 = await fileS3rver();
    const client = new S3Client(s3.s3ClientOptions);
    const sent: Array<string | undefined> = [];
    const received: Array<number | undefined> = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'GetObjectCommand') {
          const request = args.request as { headers?: Record<string, string> };
          sent.push(request.headers?.range);
          received.push((result.output as { ContentLength?: number }).ContentLength);
        }
        return result;
      },
      { step: 'finalizeRequest', name: 'spyRanges' },
    );
    const h = await HttpHarness.start({
      settings: { maxFileBytes: SIZE, inlineMaxBytes: 0 },
      adapters: async () => {
        const records = createMemoryRecords();
        const blobs = createS3BlobStore({ client });
        const rateLimiter = createMemoryRateLimiter();
        return { records, blobs, rateLimiter, close: () => records.close() };
      },
    });
    try {
      const { apiKey, path } = await uploadBig(h);
      const cases: Array<[string, number, number]> = [
        ['bytes=0-0', 0, 0],
        ['bytes=-10', SIZE - 10, SIZE - 1],
        ['bytes=1000000-1000999', 1_000_000, 1_000_999],
      ];
      for (const [range, start, end] of cases) {
        sent.length = 0;
        received.length = 0;
        const { status, body } = await download(h, apiKey, path, range);
        expect(status, range).toBe(206);
        expect(body.equals(CONTENT.subarray(start, end + 1)), range).toBe(true);
        expect(sent, range).toEqual([`bytes=${start}-${end}`]);
        // s3rver answers `bytes=0-0` with the whole object (S3 itself does not): the store cuts it.
        if (range !== 'bytes=0-0') expect(received, range).toEqual([end - start + 1]);
      }
      // On the wire, exactly the part and nothing after it (a longer stream would run past Content-Length
      // into the connection).
      const raw = await h.raw(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nRange: bytes=0-0\r\nConnection: close\r\n\r\n`,
      );
      const answer = parseRawResponse(raw);
      expect(answer.status).toBe(206);
      expect(answer.headers.get('content-length')).toBe('1');
      expect(answer.body).toBe('a');
      // Every answer went out whole and clean: no download was cut short.
      expect(h.logs.filter((line) => line.level !== 'info')).toEqual([]);
      sent.length = 0;
      received.length = 0;
      expect((await download(h, apiKey, path)).status).toBe(200);
      expect(sent).toEqual([undefined]);
      expect(received).toEqual([SIZE]);
    } finally {
      await h.close();
      client.destroy();
    }
  });

  it('a store that produces more or less than announced: the answer is cut, never run past or ended short', async () => {
    const h = await HttpHarness.start({
      settings: { maxFileBytes: SIZE, inlineMaxBytes: 0 },
      adapters: async () => {
        const records = createMemoryRecords();
        const inner = createMemoryBlobStore({ scheme: 'file' });
        // A broken store: a ranged read gives the whole object, a whole read only its first half.
        const blobs = {
          ...inner,
          get: (o: Parameters<typeof inner.get>[0]) =>
            inner.get({ ...o, range: o.range ? undefined : { start: 0, end: SIZE / 2 - 1 } }),
        };
        const rateLimiter = createMemoryRateLimiter();
        return { records, blobs, rateLimiter, close: () => records.close() };
      },
    });
    try {
      const { apiKey, path } = await uploadBig(h);
      const raw = await h.raw(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nRange: bytes=0-0\r\n\r\n`,
      );
      // The connection is cut: no answer runs past its Content-Length for a next one to be read from.
      // (The first chunk is already too long, so nothing at all goes out.)
      expect(raw).toBe('');
      const interrupted = () =>
        h.logs.filter((line) => line.level === 'warn' && line.message === 'download interrupted');
      expect(interrupted()).toHaveLength(1);
      // Too short: the answer is cut rather than ended as if it were whole.
      const short = parseRawResponse(
        await h.raw(
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nConnection: close\r\n\r\n`,
        ),
      );
      expect(short.headers.get('content-length')).toBe(String(SIZE));
      expect(Buffer.byteLength(short.body)).toBeLessThan(SIZE);
      expect(interrupted()).toHaveLength(2);
    } finally {
      await h.close();
    }
  });

  it('a small content that comes whole in one chunk is sent in one piece, and cut when more follows', async () => {
    let extra = false;
    const h = await HttpHarness.start({
      settings: { inlineMaxBytes: 0 },
      adapters: async () => {
        const records = createMemoryRecords();
        const inner = createMemoryBlobStore({ scheme: 'file' });
        // A store that, once switched, produces one more byte after the whole content.
        const blobs = {
          ...inner,
          get: async (o: Parameters<typeof inner.get>[0]) => {
            const got = await inner.get(o);
            if (!extra) return got;
            const content = (async function* () {
              yield* got.content;
              yield Buffer.from('!');
            })();
            return { ...got, content };
          },
        };
        const rateLimiter = createMemoryRateLimiter();
        return { records, blobs, rateLimiter, close: () => records.close() };
      },
    });
    try {
      const { apiKey, defaultProjectId } = await h.account();
      await h.uploadFile(apiKey, defaultProjectId, 'small.md', Buffer.from('# small\n'));
      const path = `/api/projects/${defaultProjectId}/files/small.md`;
      const whole = await download(h, apiKey, path);
      expect(whole.status).toBe(200);
      expect(whole.body.toString()).toBe('# small\n');
      extra = true;
      const raw = await h.raw(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\n\r\n`,
      );
      expect(raw).toBe('');
      expect(h.logs.filter((line) => line.message === 'download interrupted')).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
