import { Readable } from 'node:stream';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3BlobStore } from '../src/index.js';
import { type RunningS3rver, startS3rver } from '../src/testing/index.js';
import { bytes, chunks, uniqueBucket } from './helpers.js';

/**
 * Guards the s3rver client settings: with the SDK's default checksums (`WHEN_SUPPORTED`) a streamed
 * body is sent with aws-chunked framing, and s3rver keeps that framing as the object's bytes. Each test
 * reads the object back raw, with GetObject, and compares the bytes exactly.
 */
let s3rver: RunningS3rver;
let raw: S3Client;
let bucket: string;

beforeAll(async () => {
  s3rver = await startS3rver();
  raw = new S3Client(s3rver.s3ClientOptions);
  bucket = uniqueBucket('guard');
  await raw.send(new CreateBucketCommand({ Bucket: bucket }));
});

afterAll(async () => {
  raw?.destroy();
  await s3rver?.stop();
});

const rawBytes = async (key: string): Promise<Buffer> => {
  const response = await raw.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from((await response.Body?.transformToByteArray()) ?? []);
};

const text = 'line one\nline two, with ümlauts\n'.repeat(40);

describe('checksum settings against s3rver', () => {
  it.each([
    { name: 'one part', partSizeBytes: 8 * 1024 * 1024 },
    { name: 'several parts', partSizeBytes: 300 },
  ])(
    'a streamed put through the store, configured for s3rver, stores exactly its bytes ($name)',
    async ({ partSizeBytes }) => {
      const store = createS3BlobStore({ ...s3rver.s3ClientOptions, partSizeBytes });
      const key = `guard-${partSizeBytes}.md`;
      await store.put({
        bucket,
        key,
        content: chunks(text.slice(0, 100), text.slice(100)),
        maxBytes: 10_000,
      });
      expect((await rawBytes(key)).equals(Buffer.from(bytes(text)))).toBe(true);
      await store.close();
    },
  );

  it('shows why: a streamed PutObject with the default checksum settings stores the aws-chunked framing', async () => {
    const {
      requestChecksumCalculation: _r,
      responseChecksumValidation: _v,
      ...defaults
    } = s3rver.s3ClientOptions;
    const defaultClient = new S3Client(defaults);
    const body = Buffer.from(bytes(text));
    await defaultClient.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'framed.md',
        Body: Readable.from([body.subarray(0, 100), body.subarray(100)]),
        ContentLength: body.byteLength,
      }),
    );
    const stored = await rawBytes('framed.md');
    expect(stored.equals(body)).toBe(false);
    expect(stored.toString('latin1')).toContain('x-amz-checksum-crc32:');
    defaultClient.destroy();
  });
});
