import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { makeWritesAtomic } from './atomic-writes.js';

/** Client settings that work against s3rver, for `new S3Client(...)` and `createS3BlobStore(...)` alike. */
export interface S3rverClientOptions {
  readonly endpoint: string;
  readonly region: string;
  readonly forcePathStyle: true;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /**
   * The SDK's default (`WHEN_SUPPORTED`) sends streamed bodies with aws-chunked framing, which s3rver
   * stores as part of the object's bytes.
   */
  readonly requestChecksumCalculation: 'WHEN_REQUIRED';
  readonly responseChecksumValidation: 'WHEN_REQUIRED';
}

export interface RunningS3rver {
  /** e.g. `http://127.0.0.1:40123` */
  readonly endpoint: string;
  readonly s3ClientOptions: S3rverClientOptions;
  /** Stops the server (dropping open connections) and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * Starts s3rver on a free loopback port with a fresh, empty data directory, its object writes made
 * atomic as in S3 (see atomic-writes.ts).
 */
export const startS3rver = async (): Promise<RunningS3rver> => {
  const root = await mkdtemp(join(tmpdir(), 'mdstore-s3rver-'));
  const directory = join(root, 'data');
  const tempDirectory = join(root, 'incoming');
  await Promise.all([mkdir(directory), mkdir(tempDirectory)]);
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  makeWritesAtomic(server.store, tempDirectory);
  let address: Awaited<ReturnType<S3rver['run']>>;
  try {
    address = await server.run();
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${address.port}`;
  let stopped: Promise<void> | undefined;
  const stop = async () => {
    const closed = server.close();
    // Keep-alive sockets of S3 clients would hold close() open; this harness is done with them.
    server.httpServer?.closeAllConnections();
    await closed;
    await rm(root, { recursive: true, force: true });
  };
  return {
    endpoint,
    s3ClientOptions: {
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    },
    stop: () => {
      stopped ??= stop();
      return stopped;
    },
  };
};
