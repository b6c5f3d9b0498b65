import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BlobStore, RecordsRepository } from '@mdstore/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRuntime, type Runtime, TOKENS } from '../../src/composition/index.js';
import { type ServerProcess, startServer } from '../../src/composition/server.js';
import { loadConfig, type ServerConfig } from '../../src/config/index.js';
import { createLogger, silentLogger } from '../../src/logger.js';

let dir: string;
let config: ServerConfig;
const started: ServerProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mdstore-server-'));
  config = loadConfig({ MDSTORE_DATA_DIR: dir, PORT: '0' });
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
  await rm(dir, { recursive: true, force: true });
});

async function start(options: Partial<Parameters<typeof startServer>[0]> = {}): Promise<ServerProcess> {
  const server = await startServer({ config, logger: silentLogger, ...options });
  started.push(server);
  return server;
}

/** Runs `work` on a separate runtime over the same stores (as another process would). */
async function withStore<T>(work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = await createRuntime(config, { logger: silentLogger });
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

const recordsOf = (runtime: Runtime) => runtime.container.resolve<RecordsRepository>(TOKENS.records);
const blobsOf = (runtime: Runtime) => runtime.container.resolve<BlobStore>(TOKENS.blobs);

describe('startServer', () => {
  it('serves the API on the configured address with the configured stores', async () => {
    const account = await withStore((runtime) => runtime.store.accounts.create({ name: 'acme' }));
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${server.url}/api/projects`, {
      headers: { authorization: `Bearer ${account.apiKey.apiKey}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { projects: Array<{ id: string }> };
    expect(body.projects.map((p) => p.id)).toEqual([account.defaultProject.id]);
  });

  it('registers the instance while running and unregisters it when stopped', async () => {
    const server = await start();
    const instances = await withStore((runtime) => recordsOf(runtime).listInstances());
    expect(instances.map((i) => [i.id, i.pid])).toEqual([[server.runtime.store.instanceId, process.pid]]);
    await server.stop();
    await server.stop();
    expect(await withStore((runtime) => recordsOf(runtime).listInstances())).toEqual([]);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('cleans up after a crashed instance before serving', async () => {
    const orphan = `mdstore-${randomUUID()}`;
    await withStore(async (runtime) => {
      const crashedId = randomUUID();
      await blobsOf(runtime).createBucket({ bucket: orphan });
      await recordsOf(runtime).withTransaction(async (tx) => {
        await tx.upsertInstance({
          instance: { id: crashedId, hostname: 'elsewhere', pid: 1, startedAt: 0, heartbeatAt: 0 },
        });
        await tx.insertBlobIntent({
          intent: {
            id: randomUUID(),
            kind: 'staged',
            bucket: orphan,
            key: null,
            ownerInstanceId: crashedId,
            createdAt: 0,
            expiresAt: Date.now() + 3_600_000,
          },
        });
      });
    });
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', stdout: { write: (line) => lines.push(line) } });
    const server = await start({ logger });
    expect(await blobsOf(server.runtime).bucketExists({ bucket: orphan })).toBe(false);
    const instances = await recordsOf(server.runtime).listInstances();
    expect(instances.map((i) => i.id)).toEqual([server.runtime.store.instanceId]);
    const report = lines.map((line) => JSON.parse(line)).find((r) => r.msg === 'reconciliation finished');
    expect(report).toMatchObject({ intentsResolved: 1, resourcesRemoved: 1, failures: 0 });
  });

  it('keeps the heartbeat going while it runs', async () => {
    const server = await start({ heartbeatIntervalMs: 5 });
    const records = recordsOf(server.runtime);
    const [first] = await records.listInstances();
    await vi.waitFor(async () => {
      const [now] = await records.listInstances();
      expect(now!.heartbeatAt).toBeGreaterThan(first!.heartbeatAt);
    });
  });

  it('logs a failing periodic task and carries on', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'error', stderr: { write: (line) => lines.push(line) } });
    const server = await start({ logger, reconcileIntervalMs: 5 });
    const reconcile = vi
      .spyOn(server.runtime.store.maintenance, 'reconcile')
      .mockRejectedValue(new Error('database went away'));
    await vi.waitFor(() => expect(reconcile.mock.calls.length).toBeGreaterThanOrEqual(2));
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'error',
      msg: 'reconciliation failed',
      error: { message: 'database went away' },
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('without the maintenance duties only heartbeats, until it is told to take them', async () => {
    const server = await start({ duties: false, heartbeatIntervalMs: 5, reconcileIntervalMs: 5 });
    const { maintenance } = server.runtime.store;
    const heartbeat = vi.spyOn(maintenance, 'heartbeat');
    const reconcile = vi.spyOn(maintenance, 'reconcile');
    // Ten heartbeats at the same period as the reconciliation, and no reconciliation among them.
    await vi.waitFor(() => expect(heartbeat.mock.calls.length).toBeGreaterThanOrEqual(10));
    expect(reconcile).not.toHaveBeenCalled();
    server.takeDuties();
    server.takeDuties();
    await vi.waitFor(() => expect(reconcile.mock.calls.length).toBeGreaterThanOrEqual(2));
  });

  it('closes everything it opened when it cannot listen', async () => {
    const first = await start();
    const port = Number(new URL(first.url).port);
    const busy = { ...config, port };
    await expect(startServer({ config: busy, logger: silentLogger })).rejects.toThrow();
    const instances = await recordsOf(first.runtime).listInstances();
    expect(instances.map((i) => i.id)).toEqual([first.runtime.store.instanceId]);
  });
});
