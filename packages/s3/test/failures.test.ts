import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from '@mdstore/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createS3BlobStore } from '../src/index.js';
import { chunks } from './helpers.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

/** A local HTTP server answering every request with `respond`; hanging ones are cut on close. */
const startFakeS3 = async (respond: (res: import('node:http').ServerResponse) => void) => {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    respond(res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { endpoint, close };
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A store on `endpoint` that gives up after one attempt (the SDK would otherwise retry with backoff). */
const storeOn = (endpoint: string, requestTimeoutMs?: number): BlobStore => {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials,
    maxAttempts: 1,
  });
  cleanups.push(async () => client.destroy());
  return createS3BlobStore({ client, ...(requestTimeoutMs !== undefined && { requestTimeoutMs }) });
};

const everyCall = (store: BlobStore) => [
  () => store.createBucket({ bucket: 'some-bucket' }),
  () => store.deleteBucket({ bucket: 'some-bucket' }),
  () => store.bucketExists({ bucket: 'some-bucket' }),
  () => store.put({ bucket: 'some-bucket', key: 'a.md', content: chunks('x'), maxBytes: 10 }),
  () => store.get({ bucket: 'some-bucket', key: 'a.md' }),
  () => store.stat({ bucket: 'some-bucket', key: 'a.md' }),
  () => store.delete({ bucket: 'some-bucket', key: 'a.md' }),
];

describe('an unreachable or failing store', () => {
  it('reports a refused connection as StoreUnavailableError, keeping the cause', async () => {
    const fake = await startFakeS3((res) => res.end());
    await fake.close(); // nothing listens on this port any more
    const store = storeOn(fake.endpoint);
    for (const call of everyCall(store)) {
      const error = await call().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect((error as Error).cause).toBeDefined();
    }
  });

  it('reports a 5xx answer as StoreUnavailableError', async () => {
    const fake = await startFakeS3((res) => {
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0"?><Error><Code>SlowDown</Code><Message>busy</Message></Error>');
    });
    cleanups.push(fake.close);
    const store = storeOn(fake.endpoint);
    for (const call of everyCall(store))
      await expect(call()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('gives up on a request that gets no answer within requestTimeoutMs', async () => {
    const fake = await startFakeS3(() => {}); // accepts, never answers
    cleanups.push(fake.close);
    const store = storeOn(fake.endpoint, 100);
    for (const call of everyCall(store))
      await expect(call()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('lets the caller abort a request that gets no answer, with the caller’s reason', async () => {
    const fake = await startFakeS3(() => {});
    cleanups.push(fake.close);
    const store = storeOn(fake.endpoint);
    const controller = new AbortController();
    const reason = new Error('stop waiting');
    const statting = store.stat({ bucket: 'some-bucket', key: 'a.md', signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);
    await expect(statting).rejects.toBe(reason);
  });
});
