import { RecordConflictError, type RecordsTransaction } from '@mdstore/core';
import { anAccount } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '../src/index.js';

const encode = (text: string) => new TextEncoder().encode(text);

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('memory records specifics', () => {
  it('declares itself neither durable nor shared between processes', () => {
    expect(createMemoryRecords().supports).toEqual({ durable: false, sharedBetweenProcesses: false });
  });

  it('does not commit a transaction whose work swallowed a conflict', async () => {
    const repository = createMemoryRecords();
    const taken = anAccount({ name: 'taken' });
    await repository.withTransaction((tx) => tx.insertAccount({ account: taken }));
    const fresh = anAccount();
    const swallowing = repository.withTransaction(async (tx) => {
      await tx.insertAccount({ account: fresh });
      await tx.insertAccount({ account: anAccount({ name: 'taken' }) }).catch(() => undefined);
      return 'pretended success';
    });
    await expect(swallowing).rejects.toBeInstanceOf(RecordConflictError);
    expect(await repository.findAccountById({ accountId: fresh.id })).toBeNull();
  });

  it('refuses further calls on a transaction after a conflict', async () => {
    const repository = createMemoryRecords();
    await repository.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name: 'taken' }) }));
    const afterConflict = repository.withTransaction(async (tx) => {
      await tx.insertAccount({ account: anAccount({ name: 'taken' }) }).catch(() => undefined);
      return tx.listAccounts();
    });
    await expect(afterConflict).rejects.toThrow(/earlier error/);
  });

  it('refuses calls on a transaction object that has ended', async () => {
    const repository = createMemoryRecords();
    let leaked: RecordsTransaction | undefined;
    await repository.withTransaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.insertAccount({ account: anAccount() })).rejects.toThrow(/already ended/);
    expect(await repository.listAccounts()).toEqual([]);
  });

  it('keeps working after a failed transaction', async () => {
    const repository = createMemoryRecords();
    await expect(
      repository.withTransaction(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const account = anAccount();
    await repository.withTransaction((tx) => tx.insertAccount({ account }));
    expect(await repository.listAccounts()).toEqual([account]);
  });
});

describe('memory blob store specifics', () => {
  it("reports the scheme 'memory' unless told otherwise", () => {
    expect(createMemoryBlobStore().scheme).toBe('memory');
    expect(createMemoryBlobStore({ scheme: 'mem' }).scheme).toBe('mem');
    expect(createMemoryBlobStore().supports).toEqual({ list: true });
  });

  it('copies chunks on the way in and out, so callers cannot change a stored object', async () => {
    const store = createMemoryBlobStore();
    await store.createBucket({ bucket: 'bucket' });
    const reused = encode('abc');
    async function* content() {
      yield reused;
    }
    await store.put({ bucket: 'bucket', key: 'k', content: content(), maxBytes: 10 });
    reused.fill(0x7a);
    const first = await store.get({ bucket: 'bucket', key: 'k' });
    for await (const chunk of first.content) chunk.fill(0x7a);
    expect(await readAll((await store.get({ bucket: 'bucket', key: 'k' })).content)).toBe('abc');
  });

  it('rejects a put whose bucket is deleted while the content streams in', async () => {
    const store = createMemoryBlobStore();
    await store.createBucket({ bucket: 'bucket' });
    async function* content() {
      yield encode('a');
      await store.deleteBucket({ bucket: 'bucket' });
      yield encode('b');
    }
    await expect(
      store.put({ bucket: 'bucket', key: 'k', content: content(), maxBytes: 10 }),
    ).rejects.toMatchObject({
      code: 'BUCKET_NOT_FOUND',
    });
    expect(await store.bucketExists({ bucket: 'bucket' })).toBe(false);
  });
});

describe('memory rate limiter specifics', () => {
  it('refuses everything when the limit is zero', async () => {
    const limiter = createMemoryRateLimiter();
    expect(await limiter.consume({ key: 'k', limit: 0, windowMs: 1_000, now: 5 })).toEqual({
      allowed: false,
      used: 0,
      remaining: 0,
      resetAt: 1_005,
    });
  });

  it('still counts correctly after ended windows were swept', async () => {
    const limiter = createMemoryRateLimiter({ sweepAbove: 2 });
    await limiter.consume({ key: 'a', limit: 5, windowMs: 1_000, now: 0 });
    await limiter.consume({ key: 'b', limit: 5, windowMs: 1_000, now: 500 });
    // Two keys tracked: this new key sweeps 'a' (ended at 1 000) but must keep 'b' (ends at 1 500).
    await limiter.consume({ key: 'c', limit: 5, windowMs: 1_000, now: 1_200 });
    expect(await limiter.consume({ key: 'b', limit: 5, windowMs: 1_000, now: 1_300 })).toMatchObject({
      used: 2,
      resetAt: 1_500,
    });
    expect(await limiter.consume({ key: 'a', limit: 5, windowMs: 1_000, now: 1_300 })).toMatchObject({
      used: 1,
      resetAt: 2_300,
    });
  });
});
