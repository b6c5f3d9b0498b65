import {
  ContentBudget,
  type ContentWork,
  createMdStore,
  inlineContentWork,
  isMdStoreError,
  outlineCost,
  POOL_WORK_LIMITS,
  SMALL_HOLD_BYTES,
  STEP_WORK_LIMIT,
  utf8Pieces,
  utf8Size,
} from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, manualClock, nextMacrotask, textStream } from './support/fixture.js';

/**
 * The byte budget of content work in flight (use-cases/content-budget.ts): large work waits while the
 * process's work in flight would pass it, small work never waits, the oldest hold may always grow (so
 * holds never wait on each other for ever), and a wait ends at its deadline with CONTENT_WORK_BUSY.
 */

const MB = 1024 * 1024;
const busy = (error: unknown) => isMdStoreError(error, 'CONTENT_WORK_BUSY');

/** Settles `promise` into what it came to, without waiting for it. */
function track<T>(promise: Promise<T>) {
  const state: { done: boolean; error?: unknown } = { done: false };
  promise.then(
    () => {
      state.done = true;
    },
    (error: unknown) => {
      state.done = true;
      state.error = error;
    },
  );
  return state;
}

describe('the content budget', () => {
  it('lets large work wait while it would pass the budget, and go when room is made', async () => {
    const budget = new ContentBudget(10 * MB, 60_000);
    const a = budget.open();
    await a.reserve(8 * MB);
    const b = budget.open();
    const waiting = track(b.reserve(4 * MB));
    await nextMacrotask();
    expect(waiting.done).toBe(false);
    expect(budget.queued).toBe(1);
    a.release();
    await nextMacrotask();
    expect(waiting).toEqual({ done: true });
    expect(budget.reserved).toBe(4 * MB);
    b.release();
    expect(budget.reserved).toBe(0);
  });

  it('never makes small work wait, even behind a full budget and a queue', async () => {
    const budget = new ContentBudget(4 * MB, 60_000);
    const big = budget.open();
    await big.reserve(4 * MB);
    const waiting = track(budget.open().reserve(2 * MB));
    const small = budget.open();
    await small.reserve(SMALL_HOLD_BYTES);
    expect(budget.reserved).toBe(4 * MB + SMALL_HOLD_BYTES);
    await nextMacrotask();
    expect(waiting.done).toBe(false);
    big.release();
    small.release();
  });

  it('lets the oldest hold grow past the budget, and younger ones wait for it: no hold waits for ever', async () => {
    const budget = new ContentBudget(10 * MB, 60_000);
    const older = budget.open();
    await older.reserve(6 * MB);
    const younger = budget.open();
    await younger.reserve(3 * MB);
    // Both now need more than is left: the younger waits, the older goes on (past the budget).
    const youngerGrows = track(younger.reserve(5 * MB));
    await older.reserve(5 * MB);
    expect(budget.reserved).toBe(14 * MB);
    await nextMacrotask();
    expect(youngerGrows.done).toBe(false);
    older.release();
    await nextMacrotask();
    expect(youngerGrows).toEqual({ done: true });
    younger.release();
  });

  it('serves waiting work in order: a later reservation that would fit does not overtake', async () => {
    const budget = new ContentBudget(10 * MB, 60_000);
    const first = budget.open();
    await first.reserve(7 * MB);
    const second = track(budget.open().reserve(6 * MB));
    const third = track(budget.open().reserve(2 * MB));
    await nextMacrotask();
    expect([second.done, third.done]).toEqual([false, false]);
    first.release();
    await nextMacrotask();
    expect([second.done, third.done]).toEqual([true, true]);
  });

  it('refuses a reservation still waiting at the deadline (CONTENT_WORK_BUSY), and one whose request went away', async () => {
    const budget = new ContentBudget(4 * MB, 20);
    const holder = budget.open();
    await holder.reserve(4 * MB);
    await expect(budget.open().reserve(2 * MB)).rejects.toSatisfy(busy);
    const gone = new AbortController();
    const leaving = budget.open(gone.signal).reserve(2 * MB);
    gone.abort(new Error('client went away'));
    await expect(leaving).rejects.toThrow('client went away');
    expect(budget.queued).toBe(0);
    expect(budget.reserved).toBe(4 * MB);
    holder.release();
    expect(budget.reserved).toBe(0);
  });
});

describe('the UTF-8 of a large text, piece by piece', () => {
  it('is the bytes TextEncoder gives, surrogate pairs whole across pieces, lone ones as U+FFFD', () => {
    // 65 535 units then a pair: the pair straddles the first piece's end.
    const text = `${'a'.repeat(65_535)}\u{1F4DD}é\uD800x${'日本'.repeat(40_000)}`;
    const whole = new TextEncoder().encode(text);
    const pieces = [...utf8Pieces(text)];
    expect(pieces.length).toBeGreaterThan(1);
    expect(Buffer.concat(pieces).equals(Buffer.from(whole))).toBe(true);
    expect(utf8Size(text)).toBe(whole.byteLength);
  });
});

describe('the budget in the use cases', () => {
  // Prose whose outline goes to the ContentWork (above one inline step) and within the pool's limits.
  const PROSE = `# Notes\n\n${'Plain words of prose in one paragraph line.\n'.repeat(30_000)}`;

  /** A ContentWork whose outlines wait for `open()`: the request holding its text stays in flight. */
  function gatedWork() {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const work: ContentWork & { started: number; open(): void } = {
      ...inlineContentWork,
      limits: POOL_WORK_LIMITS,
      started: 0,
      open,
      async outline() {
        work.started++;
        await gate;
        return { headings: [], links: [] };
      },
    };
    return work;
  }

  it('makes a second outline of a large file wait for the first, and refuses it at the deadline', async () => {
    expect(outlineCost(PROSE, false, POOL_WORK_LIMITS.mdx)).toBeGreaterThan(STEP_WORK_LIMIT);
    const work = gatedWork();
    const store = createMdStore({
      records: createMemoryRecords(),
      blobs: createMemoryBlobStore(),
      rateLimiter: createMemoryRateLimiter(),
      clock: manualClock(),
      contentWork: work,
      // Room for one text of this size (held as bytes and text), not two.
      settings: { inlineMaxBytes: 0, contentBudgetBytes: 3 * utf8Size(PROSE), contentBudgetWaitMs: 30 },
    });
    const { principal, defaultProjectId: projectId } = await anAccount(store, 'alice');
    const at = { principal, projectId };
    await store.files.upload({ ...at, filename: 'prose.md', content: textStream(PROSE) });
    await store.files.upload({ ...at, filename: 'small.md', content: textStream('# Small\n\ntext\n') });

    const first = store.files.outline({ ...at, filename: 'prose.md' });
    while (work.started === 0) await nextMacrotask();
    // The first holds its text in flight: the second waits, and is refused at the deadline unstarted.
    expect(await codeOf(() => store.files.outline({ ...at, filename: 'prose.md' }))).toBe(
      'CONTENT_WORK_BUSY',
    );
    expect(work.started).toBe(1);
    // Small work is never queued.
    expect((await store.files.readPart({ ...at, filename: 'small.md', lines: '1-1' })).kind).toBe('part');

    work.open();
    expect((await first).file.filename).toBe('prose.md');
    // Its hold released, the next one goes.
    expect((await store.files.outline({ ...at, filename: 'prose.md' })).file.filename).toBe('prose.md');
    expect(work.started).toBe(2);
  });
});
