import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type BlobStore, isMdStoreError } from '@mdstore/core';
import { createMemoryRateLimiter } from '@mdstore/memory';
import { createS3BlobStore } from '@mdstore/s3';
import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import { openSqliteStore, type SqliteStore } from '@mdstore/sqlite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BLOB_FORM, bytesOf, readText, type Scene, sceneWithOneFile, snapshot, tempDir } from './support.js';

/**
 * S3 failing mid-PUT: a loopback proxy in front of s3rver answers object PUTs with 503, or cuts the
 * connection after N bytes of the body. The S3 store under test talks to the proxy (with the SDK's own
 * retries); the checks read s3rver directly. An upload that fails leaves no object and no record; the
 * next upload succeeds.
 */

type Sabotage =
  | { kind: 'none' }
  | { kind: '503'; times: number }
  | { kind: 'reset'; afterBytes: number; times: number };

interface FaultyProxy {
  readonly endpoint: string;
  sabotage: Sabotage;
  /** Object PUTs the proxy sabotaged. */
  readonly sabotaged: string[];
  close(): Promise<void>;
}

const isObjectPut = (req: http.IncomingMessage) => {
  const pathname = new URL(req.url ?? '/', 'http://proxy').pathname;
  return req.method === 'PUT' && /^\/[^/]+\/.+/.test(pathname);
};

const SERVICE_UNAVAILABLE =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code>' +
  '<Message>Please reduce your request rate.</Message></Error>';

async function startFaultyProxy(target: string): Promise<FaultyProxy> {
  const upstream = new URL(target);
  const proxy: FaultyProxy = {
    endpoint: '',
    sabotage: { kind: 'none' },
    sabotaged: [],
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const sabotage = proxy.sabotage;
    if (isObjectPut(req) && sabotage.kind !== 'none' && sabotage.times > 0) {
      sabotage.times--;
      proxy.sabotaged.push(`${sabotage.kind} ${req.url}`);
      if (sabotage.kind === '503') {
        req.resume();
        req.on('end', () => {
          res.writeHead(503, { 'content-type': 'application/xml' }).end(SERVICE_UNAVAILABLE);
        });
        return;
      }
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= sabotage.afterBytes) req.socket.destroy();
      });
      req.on('end', () => req.socket.destroy());
      return;
    }
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

let s3rver: RunningS3rver;
let proxy: FaultyProxy;
beforeAll(async () => {
  s3rver = await startS3rver();
  proxy = await startFaultyProxy(s3rver.endpoint);
});
afterAll(async () => {
  await proxy?.close();
  await s3rver?.stop();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  proxy.sabotage = { kind: 'none' };
  proxy.sabotaged.length = 0;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function s3World(): Promise<{ scene: Scene; sqlite: SqliteStore; direct: BlobStore }> {
  const temp = await tempDir('s3');
  cleanups.push(temp.remove);
  const sqlite = await openSqliteStore({ path: path.join(temp.dir, 'records.db') });
  cleanups.push(() => sqlite.close());
  const viaProxy = createS3BlobStore({ ...s3rver.s3ClientOptions, endpoint: proxy.endpoint });
  const direct = createS3BlobStore({ ...s3rver.s3ClientOptions });
  cleanups.push(() => viaProxy.close());
  cleanups.push(() => direct.close());
  const scene = await sceneWithOneFile({
    settings: BLOB_FORM,
    records: sqlite.records,
    blobs: viaProxy,
    rateLimiter: createMemoryRateLimiter(),
  });
  return { scene, sqlite, direct };
}

const BODY = 'm'.repeat(64 * 1024);

describe('s3 behind a faulty proxy', () => {
  it('503 on every attempt: the upload rejects with STORE_UNAVAILABLE, no object, no record', async () => {
    const { scene, sqlite, direct } = await s3World();
    const { store, principal, projectId } = scene;
    const before = await snapshot(sqlite.records, direct, projectId);
    proxy.sabotage = { kind: '503', times: 100 };
    const error = await store.files
      .upload({ principal, projectId, filename: 'new.md', content: bytesOf(BODY) })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(isMdStoreError(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect(proxy.sabotaged.length).toBeGreaterThanOrEqual(1);
    expect(await snapshot(sqlite.records, direct, projectId)).toEqual(before);
    expect(await sqlite.records.listBlobIntents({ limit: 10 })).toEqual([]);

    proxy.sabotage = { kind: 'none' };
    await store.files.upload({ principal, projectId, filename: 'new.md', content: bytesOf(BODY) });
    expect((await snapshot(sqlite.records, direct, projectId)).files['new.md']).toBe(BODY);
  });

  it('connection reset after 1000 bytes of the body: rejects, nothing stored, the next upload succeeds', async () => {
    const { scene, sqlite, direct } = await s3World();
    const { store, principal, projectId } = scene;
    const before = await snapshot(sqlite.records, direct, projectId);
    proxy.sabotage = { kind: 'reset', afterBytes: 1000, times: 100 };
    const error = await store.files
      .upload({ principal, projectId, filename: 'new.md', content: bytesOf(BODY) })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(isMdStoreError(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect(proxy.sabotaged.length).toBeGreaterThanOrEqual(1);
    expect(await snapshot(sqlite.records, direct, projectId)).toEqual(before);

    proxy.sabotage = { kind: 'none' };
    await store.files.upload({ principal, projectId, filename: 'new.md', content: bytesOf(BODY) });
    const download = await store.files.download({ principal, projectId, filename: 'new.md' });
    expect(await readText(download.content)).toBe(BODY);
  });

  it('a content update cut mid-PUT keeps the previous content', async () => {
    const { scene, sqlite, direct } = await s3World();
    const { store, principal, projectId } = scene;
    const before = await snapshot(sqlite.records, direct, projectId);
    proxy.sabotage = { kind: 'reset', afterBytes: 1000, times: 100 };
    const update = store.files.updateContent({
      principal,
      projectId,
      filename: 'keep.md',
      content: bytesOf(BODY),
    });
    await expect(update).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await snapshot(sqlite.records, direct, projectId)).toEqual(before);
  });

  it('one 503 is retried by the client: the upload succeeds with exactly one object', async () => {
    const { scene, sqlite, direct } = await s3World();
    const { store, principal, projectId } = scene;
    proxy.sabotage = { kind: '503', times: 1 };
    await store.files.upload({ principal, projectId, filename: 'new.md', content: bytesOf(BODY) });
    expect(proxy.sabotaged).toHaveLength(1);
    const after = await snapshot(sqlite.records, direct, projectId);
    expect(after.files['new.md']).toBe(BODY);
    expect(after.keys).toHaveLength(2);
  });
});
