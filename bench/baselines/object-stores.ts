import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** Peer stores compared on upload and download rows: put `bytes` under a name, and read a name back. */
export interface ObjectStoreBaseline {
  readonly name: string;
  put(key: string, bytes: Buffer): Promise<void>;
  /** Reads the whole object, checking its length. */
  get(key: string, expectedBytes: number): Promise<void>;
  close(): Promise<void>;
}

/** s3rver through @aws-sdk/client-s3, with the client settings s3rver needs (as mdstore uses them). */
export async function createS3rverBaseline(endpoint: string): Promise<ObjectStoreBaseline> {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const bucket = 'bench-baseline';
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    name: 's3rver (aws-sdk)',
    async put(key, bytes) {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: 'text/markdown' }),
      );
    },
    async get(key, expectedBytes) {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const received = await drain(answer.Body as Readable);
      if (received !== expectedBytes)
        throw new Error(`s3rver GET ${key}: ${received} bytes, expected ${expectedBytes}`);
    },
    async close() {
      client.destroy();
    },
  };
}

/**
 * The disk ceiling: the same bytes through plain Node streams with the durability mdstore's fs store
 * gives (temp file, fsync, rename, fsync of the directory); reads through `createReadStream`.
 */
export function createDiskBaseline(dir: string): ObjectStoreBaseline {
  let temporaries = 0;
  return {
    name: 'disk (node streams + fsync)',
    async put(key, bytes) {
      const temp = path.join(dir, `.incoming-${process.pid}-${temporaries++}`);
      // `flush: true` fsyncs the file before the stream closes.
      await pipeline(Readable.from([bytes]), createWriteStream(temp, { flags: 'wx', flush: true }));
      await rename(temp, path.join(dir, key));
      const directory = await open(dir, 'r');
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    },
    async get(key, expectedBytes) {
      const received = await drain(createReadStream(path.join(dir, key)));
      if (received !== expectedBytes)
        throw new Error(`disk read ${key}: ${received} bytes, expected ${expectedBytes}`);
    },
    async close() {},
  };
}

/** Reads a stream to its end, counting the bytes without keeping them. */
async function drain(stream: Readable): Promise<number> {
  let bytes = 0;
  await pipeline(
    stream,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        callback();
      },
    }),
  );
  return bytes;
}
