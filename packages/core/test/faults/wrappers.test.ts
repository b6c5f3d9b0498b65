import { isMdStoreError, StoreUnavailableError } from '@mdstore/core';
import { anAccount } from '@mdstore/core/testing';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import {
  breakingStream,
  hanging,
  noFaults,
  randomFaults,
  scriptedFaults,
  systemError,
  throwing,
  unavailableError,
  withBlobFaults,
  withRateLimiterFaults,
  withRecordsFaults,
} from '../../src/testing/faults/index.js';
import { readAll } from './support.js';

const bytes = (text: string) => new TextEncoder().encode(text);
async function* chunked(text: string, size = 3): AsyncIterable<Uint8Array> {
  const all = bytes(text);
  for (let offset = 0; offset < all.length; offset += size) yield all.slice(offset, offset + size);
}

describe('withRecordsFaults', () => {
  it('passes everything through without faults', async () => {
    const inner = createMemoryRecords();
    const records = withRecordsFaults(inner, noFaults);
    expect(records.supports).toBe(inner.supports);
    const account = anAccount({ name: 'alice' });
    await records.withTransaction((tx) => tx.insertAccount({ account }));
    expect(await records.findAccountByName({ name: 'alice' })).toEqual(account);
  });

  it('a fault after the work but before commit rolls the work back', async () => {
    const inner = createMemoryRecords();
    const plan = scriptedFaults([
      { method: 'withTransaction', point: 'beforeCommit', action: throwing(() => unavailableError()) },
    ]);
    const records = withRecordsFaults(inner, plan);
    const work = records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name: 'alice' }) }));
    await expect(work).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await inner.findAccountByName({ name: 'alice' })).toBeNull();
    expect(plan.log).toEqual([
      { port: 'records', method: 'withTransaction', call: 1, point: 'beforeCommit', action: 'throw' },
    ]);
  });

  it('a fault after commit rejects although the work is committed (a lost acknowledgement)', async () => {
    const inner = createMemoryRecords();
    const plan = scriptedFaults([
      { method: 'withTransaction', point: 'afterCommit', action: throwing(() => unavailableError()) },
    ]);
    const records = withRecordsFaults(inner, plan);
    const work = records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name: 'alice' }) }));
    await expect(work).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await inner.findAccountByName({ name: 'alice' })).not.toBeNull();
  });

  it('a transaction method that fails after writing makes the transaction roll back', async () => {
    const inner = createMemoryRecords();
    const plan = scriptedFaults([
      { method: 'tx.insertAccount', call: 2, action: throwing(() => systemError('EIO'), 'after') },
    ]);
    const records = withRecordsFaults(inner, plan);
    await records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name: 'a1' }) }));
    const second = records.withTransaction(async (tx) => {
      await tx.insertAccount({ account: anAccount({ name: 'a2' }) });
      await tx.insertAccount({ account: anAccount({ name: 'a3' }) });
    });
    await expect(second).rejects.toMatchObject({ code: 'EIO' });
    expect((await inner.listAccounts()).map((account) => account.name)).toEqual(['a1']);
  });

  it('a hanging read rejects with a timeout after its bound', async () => {
    const records = withRecordsFaults(
      createMemoryRecords(),
      scriptedFaults([{ method: 'listAccounts', action: hanging(5) }]),
    );
    const error = await records.listAccounts().catch((caught: unknown) => caught);
    expect(isMdStoreError(error, 'STORE_UNAVAILABLE')).toBe(true);
  });
});

describe('withBlobFaults', () => {
  const setup = async (plan: Parameters<typeof withBlobFaults>[1]) => {
    const inner = createMemoryBlobStore({ scheme: 'file' });
    await inner.createBucket({ bucket: 'b-1' });
    return { inner, blobs: withBlobFaults(inner, plan) };
  };

  it('keeps scheme and capabilities', async () => {
    const { inner, blobs } = await setup(noFaults);
    expect(blobs.scheme).toBe('file');
    expect(blobs.supports).toBe(inner.supports);
    expect(typeof blobs.list).toBe('function');
  });

  it('a put whose content breaks after N bytes rejects and stores nothing', async () => {
    const { inner, blobs } = await setup(
      scriptedFaults([{ method: 'put', action: breakingStream(4, () => systemError('ENOSPC')) }]),
    );
    const put = blobs.put({ bucket: 'b-1', key: 'k', content: chunked('0123456789'), maxBytes: 100 });
    await expect(put).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await inner.stat({ bucket: 'b-1', key: 'k' })).toBeNull();
  });

  it('a get whose content breaks after N bytes yields them, then throws', async () => {
    const { blobs } = await setup(
      scriptedFaults([{ method: 'get', action: breakingStream(4, () => systemError('EIO', 'read')) }]),
    );
    await blobs.put({ bucket: 'b-1', key: 'k', content: chunked('0123456789'), maxBytes: 100 });
    const opened = await blobs.get({ bucket: 'b-1', key: 'k' });
    const received: number[] = [];
    const reading = (async () => {
      for await (const chunk of opened.content) received.push(...chunk);
    })();
    await expect(reading).rejects.toMatchObject({ code: 'EIO' });
    expect(new TextDecoder().decode(new Uint8Array(received))).toBe('0123');
  });

  it('a put that fails after writing leaves the object (the effect happened, the answer was lost)', async () => {
    const { inner, blobs } = await setup(
      scriptedFaults([{ method: 'put', action: throwing(() => unavailableError(), 'after') }]),
    );
    await expect(
      blobs.put({ bucket: 'b-1', key: 'k', content: chunked('abc'), maxBytes: 100 }),
    ).rejects.toThrow();
    const stored = await inner.get({ bucket: 'b-1', key: 'k' });
    expect(new TextDecoder().decode(await readAll(stored.content))).toBe('abc');
  });

  it('a hanging call rejects with the abort reason when its signal fires', async () => {
    const { blobs } = await setup(scriptedFaults([{ method: 'stat', action: hanging(60_000) }]));
    const controller = new AbortController();
    const stat = blobs.stat({ bucket: 'b-1', key: 'k', signal: controller.signal });
    controller.abort(new Error('gave up'));
    await expect(stat).rejects.toThrow('gave up');
  });

  it('only the chosen call number fails', async () => {
    const { blobs } = await setup(
      scriptedFaults([{ method: 'bucketExists', call: 2, action: throwing(() => unavailableError()) }]),
    );
    expect(await blobs.bucketExists({ bucket: 'b-1' })).toBe(true);
    await expect(blobs.bucketExists({ bucket: 'b-1' })).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await blobs.bucketExists({ bucket: 'b-1' })).toBe(true);
  });
});

describe('withRateLimiterFaults and random plans', () => {
  it('fails the chosen consume call', async () => {
    const limiter = withRateLimiterFaults(
      createMemoryRateLimiter(),
      scriptedFaults([
        { port: 'rateLimiter', method: 'consume', call: 1, action: throwing(() => unavailableError()) },
      ]),
    );
    const consume = () => limiter.consume({ key: 'k', limit: 5, windowMs: 1000, now: 0 });
    await expect(consume()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((await consume()).used).toBe(1);
  });

  it('a seeded random plan makes the same decisions for the same seed', () => {
    const decisions = (seed: number) => {
      const plan = randomFaults({ seed, rate: 0.5, actions: [throwing(() => unavailableError())] });
      return Array.from(
        { length: 50 },
        (_, call) =>
          plan.decide({ port: 'blobs', method: 'put', call: call + 1, point: 'call' }) !== undefined,
      );
    };
    expect(decisions(42)).toEqual(decisions(42));
    expect(decisions(42)).not.toEqual(decisions(43));
    expect(decisions(42).filter(Boolean).length).toBeGreaterThan(10);
  });
});
