import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BlobStore, RecordsRepository } from '@mdstore/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime, TOKENS } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';
import { type ChildServer, spawnServer } from './support.js';

let dataDir: string;
const children: ChildServer[] = [];
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'mdstore-busy-'));
});
afterEach(async () => {
  for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

async function withStore<T>(work: (records: RecordsRepository, blobs: BlobStore) => Promise<T>): Promise<T> {
  const runtime: Runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: dataDir }), {
    logger: silentLogger,
  });
  try {
    return await work(
      runtime.container.resolve<RecordsRepository>(TOKENS.records),
      runtime.container.resolve<BlobStore>(TOKENS.blobs),
    );
  } finally {
    await runtime.close();
  }
}

describe('a second instance on a busy port', () => {
  it('exits 1 with one line, having registered nothing and reconciled nothing', async () => {
    const first = spawnServer({ MDSTORE_DATA_DIR: dataDir, PORT: '0' });
    children.push(first);
    const ready = await first.logLine(/^mdstore listening on /);
    const port = new URL(String(ready.url)).port;

    // State the second instance's reconciliation would repair at once: a long-gone instance and the
    // bucket of a write it never finished.
    const gone = randomUUID();
    const orphan = `mdstore-${randomUUID()}`;
    await withStore(async (records, blobs) => {
      await blobs.createBucket({ bucket: orphan });
      await records.withTransaction(async (tx) => {
        await tx.upsertInstance({
          instance: { id: gone, hostname: 'elsewhere', pid: 1, startedAt: 0, heartbeatAt: 0 },
        });
        await tx.insertBlobIntent({
          intent: {
            id: randomUUID(),
            kind: 'staged',
            bucket: orphan,
            key: null,
            ownerInstanceId: gone,
            createdAt: 0,
            expiresAt: 1,
          },
        });
      });
    });

    const second = spawnServer({ MDSTORE_DATA_DIR: dataDir, PORT: port });
    children.push(second);
    expect(await second.exited).toBe(1);
    expect(second.stdout).toEqual([]);
    expect(second.stderr).toHaveLength(1);
    expect(JSON.parse(second.stderr[0]!)).toMatchObject({
      level: 'error',
      msg: `start-up failed: cannot listen on 127.0.0.1:${port}: the address is already in use (another mdstore, or another program, listens there)`,
    });

    await withStore(async (records, blobs) => {
      const instances = (await records.listInstances()).map((i) => i.id).sort();
      expect(instances).toEqual([String(ready.instanceId), gone].sort());
      expect((await records.listBlobIntents({ limit: 10 })).map((i) => i.bucket)).toEqual([orphan]);
      expect(await blobs.bucketExists({ bucket: orphan })).toBe(true);
    });
    // The first instance never noticed.
    expect((await fetch(`${String(ready.url)}/healthz`)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });
});
