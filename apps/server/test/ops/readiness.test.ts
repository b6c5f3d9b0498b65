import { once } from 'node:events';
import { rename, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { hanging, scriptedFaults, throwing, unavailableError } from '@mdstore/core/testing';
import { startS3rver } from '@mdstore/s3/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReadinessCheck } from '../../src/http/readiness.js';
import { dropSchema, freshSchemaName, skipWithoutPostgres, TEST_POSTGRES_URL } from '../support/adapters.js';
import { startTestServer, type TestServer } from './support.js';

const silent = { info() {}, warn() {}, error() {} };
const never = () => new Promise<never>(() => {});

describe('createReadinessCheck', () => {
  const stores = (records: () => Promise<unknown>, blobs: () => Promise<void>) => ({
    records: { listInstances: vi.fn(records) as never },
    blobs: { probe: vi.fn(blobs) as never },
    logger: silent,
  });

  it("is ready when both stores answer, asking the blob store's probe", async () => {
    const options = stores(
      async () => [],
      async () => {},
    );
    expect(await createReadinessCheck(options)()).toEqual({ ready: true });
    expect(options.blobs.probe).toHaveBeenCalledWith(
      expect.objectContaining({ signal: expect.any(AbortSignal) }),
    );
  });

  it('names the store that failed, and both when both did', async () => {
    const records = await createReadinessCheck(
      stores(
        () => Promise.reject(new Error('down')),
        async () => {},
      ),
    )();
    expect(records).toMatchObject({ ready: false, detail: 'Not ready: the records store failed' });
    const both = await createReadinessCheck(
      stores(
        () => Promise.reject(new Error('down')),
        () => Promise.reject(new Error('down')),
      ),
    )();
    expect(both).toMatchObject({ detail: 'Not ready: the records store failed; the blob store failed' });
  });

  it('gives up on a store that hangs after the timeout, and aborts the blob probe', async () => {
    let signal: AbortSignal | undefined;
    const options = stores(
      async () => [],
      () => never(),
    );
    options.blobs.probe = vi.fn((o: { signal: AbortSignal }) => {
      signal = o.signal;
      return never();
    }) as never;
    const started = performance.now();
    const report = await createReadinessCheck({ ...options, timeoutMs: 300 })();
    const took = performance.now() - started;
    expect(report).toMatchObject({
      ready: false,
      detail: 'Not ready: the blob store did not answer within 0.3 s',
    });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1500);
    expect(signal?.aborted).toBe(true);
  });

  it('reuses a result for the cache period, and never runs two probes of a hanging store at once', async () => {
    let now = 0;
    const options = stores(
      () => never(),
      async () => {},
    );
    const check = createReadinessCheck({ ...options, timeoutMs: 50, cacheMs: 1000, now: () => now });
    const first = check();
    expect(check()).toBe(first);
    expect(await first).toMatchObject({ ready: false });
    now = 999;
    expect(check()).toBe(first);
    now = 1000;
    // A new check, but the records probe still hangs: it is not asked again, and times out at once.
    expect(await check()).toMatchObject({
      detail: 'Not ready: the records store did not answer within 0.05 s',
    });
    expect(options.records.listInstances).toHaveBeenCalledTimes(1);
    expect(options.blobs.probe).toHaveBeenCalledTimes(2);
  });
});

let running: TestServer | undefined;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await running?.stop();
  running = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.unstubAllEnvs();
});

async function readyz(url: string) {
  const started = performance.now();
  const response = await fetch(`${url}/readyz`);
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    cacheControl: response.headers.get('cache-control'),
    ms: performance.now() - started,
  };
}

describe('GET /readyz on a server', () => {
  it('is 200 ready without a key, and 503 naming the store that fails or hangs (within about 2 s)', async () => {
    const records = scriptedFaults([{ method: 'listInstances', action: hanging(30_000) }]);
    const blobs = scriptedFaults([{ method: 'probe', action: throwing(() => unavailableError()) }]);
    records.enabled = false;
    blobs.enabled = false;
    running = await startTestServer({ records, blobs });
    const ok = await readyz(running.url);
    expect(ok).toMatchObject({ status: 200, body: { status: 'ready' }, cacheControl: 'no-store' });

    await new Promise((resolve) => setTimeout(resolve, 1000)); // past the reused result
    blobs.enabled = true;
    const failing = await readyz(running.url);
    expect(failing).toMatchObject({ status: 503, body: { detail: 'Not ready: the blob store failed' } });

    await new Promise((resolve) => setTimeout(resolve, 1000));
    blobs.enabled = false;
    records.enabled = true;
    const hung = await readyz(running.url);
    expect(hung).toMatchObject({
      status: 503,
      body: { detail: 'Not ready: the records store did not answer within 2 s' },
    });
    expect(hung.ms).toBeGreaterThan(1900);
    expect(hung.ms).toBeLessThan(5000);
    // The result is reused for a second: the next answer is immediate.
    const reused = await readyz(running.url);
    expect(reused.status).toBe(503);
    expect(reused.ms).toBeLessThan(1000);
    const lines = running.logs();
    expect(lines.filter((l) => l.msg === 'not ready').map((l) => l.failed)).toEqual([
      ['blob store (error)'],
      ['records store (timeout)'],
    ]);
  });

  it('is 503 naming the blob store once the blob folder is moved away and a file put in its place', async () => {
    running = await startTestServer();
    expect((await readyz(running.url)).status).toBe(200);
    const root = path.join(running.dir, 'blobs');
    await rename(root, path.join(running.dir, 'blobs-moved-away'));
    await writeFile(root, 'not a folder', { mode: 0o000 });
    await new Promise((resolve) => setTimeout(resolve, 1000)); // past the reused result
    const gone = await readyz(running.url);
    expect(gone).toMatchObject({ status: 503, body: { detail: 'Not ready: the blob store failed' } });
    // Put back, it is ready again.
    await rm(root);
    await rename(path.join(running.dir, 'blobs-moved-away'), root);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await readyz(running.url)).status).toBe(200);
  });

  it('is 503 naming the blob store when the S3 endpoint has stopped', async () => {
    const s3 = await startS3rver();
    cleanups.push(() => s3.stop());
    vi.stubEnv('AWS_ACCESS_KEY_ID', s3.s3ClientOptions.credentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', s3.s3ClientOptions.credentials.secretAccessKey);
    running = await startTestServer({
      env: {
        MDSTORE_BLOB_STORE: 's3',
        MDSTORE_S3_ENDPOINT: s3.endpoint,
        MDSTORE_S3_REGION: 'us-east-1',
        MDSTORE_S3_FORCE_PATH_STYLE: 'true',
        MDSTORE_S3_CHECKSUM: 'WHEN_REQUIRED',
      },
    });
    expect((await readyz(running.url)).status).toBe(200);
    await s3.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const down = await readyz(running.url);
    expect(down.status).toBe(503);
    expect(String(down.body.detail)).toMatch(
      /^Not ready: the blob store (failed|did not answer within 2 s)$/,
    );
    expect(down.ms).toBeLessThan(5000);
  });

  it('is 503 naming the records store when PostgreSQL goes away', async (ctx) => {
    if (await skipWithoutPostgres('readiness on PostgreSQL')) return ctx.skip();
    const proxy = await tcpProxy(new URL(TEST_POSTGRES_URL));
    cleanups.push(() => proxy.stop());
    const schema = freshSchemaName();
    cleanups.push(() => dropSchema(schema));
    const url = new URL(TEST_POSTGRES_URL);
    url.port = String(proxy.port);
    running = await startTestServer({
      env: { MDSTORE_DATABASE_URL: url.toString(), MDSTORE_POSTGRES_SCHEMA: schema },
    });
    expect((await readyz(running.url)).status).toBe(200);
    await proxy.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const down = await readyz(running.url);
    expect(down).toMatchObject({ status: 503, body: { detail: 'Not ready: the records store failed' } });
  });
});

/** A TCP proxy to `target` that can be stopped: its listener closes and every connection drops. */
async function tcpProxy(target: URL): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  let stopped: Promise<void> | undefined;
  return {
    port: (server.address() as { port: number }).port,
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return stopped;
    },
  };
}
