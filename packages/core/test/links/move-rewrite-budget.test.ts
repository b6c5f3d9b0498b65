import { type BlobStore, REWRITE_LIMITS, type RecordsRepository } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { scene } from '../support/search-scene.js';

/**
 * A move with `rewrite_links` is budgeted by links and bytes (issue 34, finding 2): both are known from
 * the link index and the file records before any content is read; past them the move is refused (409
 * `work_budget`) having read a bounded number of link rows and no content, and below them the rewrite
 * runs in steps with turns of the event loop between them.
 */

/** Records counting the link rows their link queries answer. */
function countingRecords(rows: { read: number }) {
  return (inner: RecordsRepository): RecordsRepository =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'listLinksTo' || property === 'findFileLinks') {
          return async (q: never) => {
            const found = await (target[property] as (q: never) => Promise<unknown>)(q);
            rows.read += Array.isArray(found)
              ? found.length
              : ((found as { links?: unknown[] } | null)?.links?.length ?? 0);
            return found;
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

/** Blobs counting the contents read. */
function countingBlobs(reads: { count: number }) {
  return (inner: BlobStore): BlobStore =>
    new Proxy(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === 'get' && typeof value === 'function')
          return (...args: unknown[]) => {
            reads.count += 1;
            return value.apply(target, args);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

const wikiLines = (count: number) => '[[t]]\n'.repeat(count);

describe('move with rewrite_links, budgeted', () => {
  it('past the link bound: 409 work_budget, a bounded number of rows read, no content read, nothing moved', async () => {
    const rows = { read: 0 };
    const reads = { count: 0 };
    const { store, at, put } = await scene({
      settings: { inlineMaxBytes: 0 },
      wrapRecords: countingRecords(rows),
      wrapBlobs: countingBlobs(reads),
    });
    await put('t.md', 'target\n');
    const perFile = Math.ceil((REWRITE_LIMITS.maxLinks + 1) / 5);
    for (let f = 0; f < 5; f++) await put(`s${f}.md`, wikiLines(perFile));
    rows.read = 0;
    reads.count = 0;
    for (const dryRun of [true, false]) {
      const refused = await store.files
        .move({ ...at, filename: 't.md', body: { to: 'u.md', rewrite_links: true, dry_run: dryRun } })
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: 'EDIT_CONFLICT',
        issues: [{ loc: ['body', 'rewrite_links'], type: 'work_budget' }],
      });
    }
    // Per attempt: two bounded index reads and the file's own links, never the 5 × perFile links whole.
    expect(rows.read).toBeLessThanOrEqual(2 * (2 * (REWRITE_LIMITS.maxLinks + 1)));
    expect(reads.count).toBe(0);
    expect((await store.files.list(at)).files.map((f) => f.filename)).toContain('t.md');
  });

  it('past the byte bound: 409 work_budget before any content is read', async () => {
    const reads = { count: 0 };
    const { store, at, put } = await scene({
      settings: { inlineMaxBytes: 0, maxFileBytes: 4096 } as never,
      wrapBlobs: countingBlobs(reads),
    });
    await put('t.md', 'target\n');
    const big = `[[t]]\n${'x'.repeat(4000)}\n`;
    for (let f = 0; f <= REWRITE_LIMITS.bytesFactor; f++) await put(`s${f}.md`, big);
    reads.count = 0;
    const refused = await store.files
      .move({ ...at, filename: 't.md', body: { to: 'u.md', rewrite_links: true } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'EDIT_CONFLICT', issues: [{ type: 'work_budget' }] });
    expect(reads.count).toBe(0);
  });

  it('within the bounds: rewrites every link, with a turn of the event loop every linksPerTurn links', async () => {
    const { store, at, put } = await scene();
    await put('t.md', 'target\n');
    const files = 4;
    const perFile = REWRITE_LIMITS.linksPerTurn;
    for (let f = 0; f < files; f++) await put(`s${f}.md`, wikiLines(perFile));
    let turns = 0;
    let running = true;
    const tick = () => {
      if (!running) return;
      turns += 1;
      setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const moved = await store.files.move({
      ...at,
      filename: 't.md',
      body: { to: 'u.md', rewrite_links: true },
    });
    running = false;
    expect(moved.rewritten?.map((r) => r.links)).toEqual(Array(files).fill(perFile));
    expect(turns).toBeGreaterThanOrEqual(files);
  });
});
