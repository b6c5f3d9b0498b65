import type { HeldKeyState, Principal } from '@mdstore/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HeldKeyChecks } from '../../src/http/held-keys.js';

/**
 * The shared key checks of held requests (http/held-keys.ts), on their own: the interval's timer reads
 * each watched key once, whatever its number of requests, and runs only while something is held; a
 * delivery's confirm reuses a read that started after its events were read, and only such a read.
 * The store is a counting fake; the timer is vitest's fake clock (reads are counted, not timed).
 */

const principal = (keyId: string): Principal => ({
  accountId: 'acc',
  keyId,
  tier: 'standard',
  role: 'read',
  projectIds: null,
  pathPrefixes: null,
  expiresAt: null,
});

function fakeStore(states: Record<string, HeldKeyState>) {
  const reads: string[] = [];
  const read = async (p: Principal) => {
    reads.push(p.keyId);
    return states[p.keyId] ?? 'valid';
  };
  return { reads, read };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('HeldKeyChecks', () => {
  it('one read per key per interval, whatever the number of its held requests, and none when idle', async () => {
    vi.useFakeTimers();
    const states: Record<string, HeldKeyState> = {};
    const store = fakeStore(states);
    const checks = new HeldKeyChecks(store.read, { intervalMs: 1000 });
    const ended: string[] = [];
    const unwatch = [
      ...Array.from({ length: 50 }, (_, i) => checks.watch(principal('a'), () => ended.push(`a${i}`))),
      ...Array.from({ length: 3 }, (_, i) => checks.watch(principal('b'), () => ended.push(`b${i}`))),
    ];
    await vi.advanceTimersByTimeAsync(3000);
    expect(store.reads.sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
    states.b = 'revoked';
    await vi.advanceTimersByTimeAsync(1000);
    expect(ended).toEqual(['b0', 'b1', 'b2']);
    for (const stop of unwatch) stop();
    expect(checks.watchedKeys).toBe(0);
    store.reads.length = 0;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(store.reads).toEqual([]);
  });

  it('confirm shares a read that started after `since`, and never one that started before', async () => {
    const store = fakeStore({});
    const checks = new HeldKeyChecks(store.read, { intervalMs: 1000 });
    const key = principal('a');
    const stop = checks.watch(key, () => {});
    const since = checks.now();
    const first = await Promise.all([checks.confirm(key, since), checks.confirm(key, since)]);
    expect(first).toEqual(['valid', 'valid']);
    expect(store.reads).toEqual(['a']);
    // Events read after that read started: a new read.
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect(await checks.confirm(key, checks.now())).toBe('valid');
    expect(store.reads).toEqual(['a', 'a']);
    stop();
  });

  it('a failed read is not a revocation for the interval, and is not reused by a confirm', async () => {
    let fail = true;
    let reads = 0;
    const checks = new HeldKeyChecks(
      async () => {
        reads++;
        if (fail) throw new Error('store unavailable');
        return 'valid';
      },
      { intervalMs: 1000 },
    );
    const key = principal('a');
    const ended: HeldKeyState[] = [];
    const stop = checks.watch(key, (state) => ended.push(state));
    const since = checks.now();
    await checks.tick();
    expect(ended).toEqual([]);
    fail = false;
    expect(await checks.confirm(key, since)).toBe('valid');
    expect(reads).toBe(2);
    stop();
  });
});
