import type { BlobIntentRecord, BlobStore, InstanceProbe, InstanceRecord } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { createFixture, textStream } from './support/fixture.js';

/**
 * Heartbeats and reconciliation through the store's maintenance use cases on the memory adapters: what
 * an instance records, which notes count as abandoned (a gone instance, an expired deadline, a doomed
 * note) and which are left to a write still in progress, what the report counts, and what a failed
 * removal leaves. (The mutation run found these reached only by the crash and fault suites; see
 * docs/testing.md.)
 */

const LEASE_MS = 30_000;
const BUCKET = 'b';

function scene(
  o: { probe?: InstanceProbe; wrapBlobs?: (inner: BlobStore) => BlobStore; inlineMaxBytes?: number } = {},
) {
  const fixture = createFixture({ ...(o.wrapBlobs && { wrapBlobs: o.wrapBlobs }) });
  const store = fixture.restart({
    ...(o.probe && { probe: o.probe }),
    ...(o.wrapBlobs && { blobs: o.wrapBlobs(fixture.blobs) }),
    settings: {
      instanceLeaseMs: LEASE_MS,
      ...(o.inlineMaxBytes !== undefined && { inlineMaxBytes: o.inlineMaxBytes }),
    },
  });
  const now = () => fixture.clock.now();
  const instance = async (id: string, heartbeatAt: number, pid = 4242) => {
    const record: InstanceRecord = { id, hostname: 'other-host', pid, startedAt: 0, heartbeatAt };
    await fixture.records.withTransaction((tx) => tx.upsertInstance({ instance: record }));
  };
  let n = 0;
  /** A blob, and a note about it. */
  const noted = async (intent: Partial<BlobIntentRecord> & Pick<BlobIntentRecord, 'ownerInstanceId'>) => {
    n += 1;
    const key = `k${n}`;
    if (!(await fixture.blobs.bucketExists({ bucket: BUCKET })))
      await fixture.blobs.createBucket({ bucket: BUCKET });
    await fixture.blobs.put({ bucket: BUCKET, key, content: textStream('x'), maxBytes: 10 });
    const record: BlobIntentRecord = {
      id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      kind: 'staged',
      bucket: BUCKET,
      key,
      createdAt: now(),
      expiresAt: now() + 60_000,
      ...intent,
    };
    await fixture.records.withTransaction((tx) => tx.insertBlobIntent({ intent: record }));
    return key;
  };
  const exists = async (key: string) => (await fixture.blobs.stat({ bucket: BUCKET, key })) !== null;
  const intents = async () => (await fixture.records.listBlobIntents({ limit: 100 })).map((i) => i.key);
  return { ...fixture, store, now, instance, noted, exists, intents };
}

describe('heartbeat', () => {
  it('records this instance with the probe’s host and pid, its start and the heartbeat time', async () => {
    const s = scene({ probe: { hostname: 'web-1', pid: 77, isRunning: () => undefined } });
    s.clock.advance(5);
    await s.store.maintenance.heartbeat();
    const [record] = await s.records.listInstances();
    expect(record).toEqual({
      id: s.store.instanceId,
      hostname: 'web-1',
      pid: 77,
      startedAt: expect.any(Number),
      heartbeatAt: s.now(),
    });
    await s.store.maintenance.unregister();
    expect(await s.records.listInstances()).toEqual([]);
  });

  it('without a probe, records an unknown host and pid 0', async () => {
    const s = scene();
    await s.store.maintenance.heartbeat();
    expect(await s.records.listInstances()).toEqual([
      expect.objectContaining({ hostname: 'unknown', pid: 0, heartbeatAt: s.now() }),
    ]);
  });
});

describe('reconciliation', () => {
  it('resolves what no write can still finish, leaves the rest, and counts each', async () => {
    const s = scene();
    s.clock.set(1_000_000);
    await s.store.maintenance.heartbeat();
    await s.instance('live', s.now() - LEASE_MS); // exactly at the end of its lease: still alive
    await s.instance('gone', s.now() - LEASE_MS - 1);
    const own = await s.noted({ ownerInstanceId: s.store.instanceId });
    const live = await s.noted({ ownerInstanceId: 'live' });
    const ofGone = await s.noted({ ownerInstanceId: 'gone' });
    const due = await s.noted({ ownerInstanceId: 'live', expiresAt: s.now() });
    const doomed = await s.noted({ ownerInstanceId: 'live', kind: 'doomed' });
    const report = await s.store.maintenance.reconcile();
    expect(report).toEqual({
      intentsResolved: 3,
      resourcesRemoved: 3,
      deletionsCompleted: 0,
      trashItemsExpired: 0,
      auditEntriesExpired: 0,
      changeEventsExpired: 0,
      webhookDeliveriesExpired: 0,
      intentsInProgress: 2,
      failures: 0,
    });
    expect([await s.exists(own), await s.exists(live)]).toEqual([true, true]);
    expect([await s.exists(ofGone), await s.exists(due), await s.exists(doomed)]).toEqual([
      false,
      false,
      false,
    ]);
    expect(await s.intents()).toEqual([own, live]);
    // The gone instance is forgotten; the live one and this one stay.
    expect((await s.records.listInstances()).map((i) => i.id).sort()).toEqual(
      [s.store.instanceId, 'live'].sort(),
    );
  });

  it('takes an instance the probe knows to have ended as gone, whatever its heartbeat', async () => {
    const s = scene({
      probe: { hostname: 'h', pid: 1, isRunning: (i) => (i.pid === 13 ? false : undefined) },
    });
    await s.instance('ended', s.now(), 13);
    await s.instance('fresh', s.now(), 14);
    const ofEnded = await s.noted({ ownerInstanceId: 'ended' });
    const ofFresh = await s.noted({ ownerInstanceId: 'fresh' });
    const report = await s.store.maintenance.reconcile();
    expect([report.intentsResolved, report.intentsInProgress]).toEqual([1, 1]);
    expect([await s.exists(ofEnded), await s.exists(ofFresh)]).toEqual([false, true]);
  });

  it('keeps a staged blob that a record points to, resolving its note without removing it', async () => {
    const s = scene({ inlineMaxBytes: 0 });
    const created = await s.store.accounts.create({ name: 'a' });
    const principal = await s.store.authenticate({ apiKey: created.apiKey.apiKey });
    const project = await s.store.projects.get({ principal, projectId: created.defaultProject.id });
    await s.store.files.upload({
      principal,
      projectId: project.id,
      filename: 'a.md',
      content: textStream('x'.repeat(100)),
    });
    const [record] = await s.records.listFiles({ projectId: project.id });
    const intent: BlobIntentRecord = {
      id: '00000000-0000-4000-8000-0000000000ff',
      kind: 'staged',
      bucket: project.bucketName,
      key: record!.contentKey,
      ownerInstanceId: 'nobody',
      createdAt: s.now(),
      expiresAt: s.now(),
    };
    await s.records.withTransaction((tx) => tx.insertBlobIntent({ intent }));
    const report = await s.store.maintenance.reconcile();
    expect([report.intentsResolved, report.resourcesRemoved]).toEqual([1, 0]);
    expect(await s.records.listBlobIntents({ limit: 10 })).toEqual([]);
    expect(await s.blobs.stat({ bucket: project.bucketName, key: record!.contentKey })).toEqual({
      sizeBytes: 100,
    });
  });

  it('counts a removal that fails, and keeps its note for the next run', async () => {
    let failing = true;
    const s = scene({
      wrapBlobs: (inner) => ({
        ...inner,
        delete: async (o) => {
          if (failing) throw new Error('disk on fire');
          return inner.delete(o);
        },
      }),
    });
    const key = await s.noted({ ownerInstanceId: 'nobody', kind: 'doomed' });
    expect(await s.store.maintenance.reconcile()).toMatchObject({ intentsResolved: 0, failures: 1 });
    expect(await s.intents()).toEqual([key]);
    failing = false;
    expect(await s.store.maintenance.reconcile()).toMatchObject({
      intentsResolved: 1,
      resourcesRemoved: 1,
      failures: 0,
    });
    expect(await s.exists(key)).toBe(false);
  });
});
