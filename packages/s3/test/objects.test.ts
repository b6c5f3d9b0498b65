import { createHash } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Objects, type S3Objects } from '../src/index.js';
import { type RunningS3rver, startS3rver } from '../src/testing/index.js';
import { chunks, collect, readAll, uniqueBucket } from './helpers.js';

/**
 * Plain objects (for backups, extensions §16) with the blob store's connection and upload: streamed puts
 * (multipart past a part), reads, heads, listings paged through, deletes.
 */

let s3rver: RunningS3rver;
let raw: S3Client;
let objects: S3Objects;
let bucket: string;

beforeAll(async () => {
  s3rver = await startS3rver();
  raw = new S3Client(s3rver.s3ClientOptions);
  bucket = uniqueBucket('objects');
  await raw.send(new CreateBucketCommand({ Bucket: bucket }));
  // Parts of 16 bytes: the multipart path on small data.
  objects = createS3Objects({ ...s3rver.s3ClientOptions, partSizeBytes: 16 });
});

afterAll(async () => {
  await objects?.close();
  raw?.destroy();
  await s3rver?.stop();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('createS3Objects', () => {
  it('streams a put in parts, reads it back, heads it, and answers null for what is missing', async () => {
    const text = 'a line of a backup file\n'.repeat(5);
    const stored = await objects.put(bucket, 'one/records/a.jsonl', chunks(...text.match(/.{1,7}/gs)!));
    expect(stored).toEqual({ sizeBytes: text.length, sha256: sha256(text) });
    expect((await readAll((await objects.get(bucket, 'one/records/a.jsonl'))!)).toString()).toBe(text);
    expect(await objects.head(bucket, 'one/records/a.jsonl')).toBe(text.length);
    expect(await objects.get(bucket, 'one/nothing')).toBeNull();
    expect(await objects.head(bucket, 'one/nothing')).toBeNull();
    // An empty file is an object too.
    expect(await objects.put(bucket, 'one/empty', chunks())).toEqual({ sizeBytes: 0, sha256: sha256('') });
    expect(await objects.head(bucket, 'one/empty')).toBe(0);
  });

  it('a put whose content fails leaves no object', async () => {
    async function* failing() {
      yield new TextEncoder().encode('x'.repeat(40));
      throw new Error('the source broke');
    }
    await expect(objects.put(bucket, 'broken/file', failing())).rejects.toThrow('the source broke');
    expect(await objects.head(bucket, 'broken/file')).toBeNull();
  });

  it('lists keys and folders under a prefix, and deletes', async () => {
    for (const name of ['b/1', 'b/2', 'b/x/3', 'c/1', 'd/1', 'e/1', 'e/2'])
      await objects.put(bucket, `tree/${name}`, chunks(name));
    expect(await collect(objects.keys(bucket, 'tree/'))).toEqual([
      'tree/b/1',
      'tree/b/2',
      'tree/b/x/3',
      'tree/c/1',
      'tree/d/1',
      'tree/e/1',
      'tree/e/2',
    ]);
    expect(await collect(objects.folders(bucket, 'tree/'))).toEqual([
      'tree/b/',
      'tree/c/',
      'tree/d/',
      'tree/e/',
    ]);
    expect(await collect(objects.folders(bucket, 'tree/b/'))).toEqual(['tree/b/x/']);
    await objects.delete(bucket, ['tree/b/1', 'tree/e/2', 'tree/missing']);
    expect(await collect(objects.keys(bucket, 'tree/'))).toEqual([
      'tree/b/2',
      'tree/b/x/3',
      'tree/c/1',
      'tree/d/1',
      'tree/e/1',
    ]);
  });
});
