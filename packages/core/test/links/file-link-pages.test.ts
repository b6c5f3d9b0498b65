import {
  FILE_LINK_LIMITS,
  type RecordsReader,
  type RecordsRepository,
  type RecordsTransaction,
} from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { scene } from '../support/search-scene.js';

/**
 * `GET …/files/{filename}/links` is paged (issue 34, finding 3): a file with many incoming links is
 * answered a page at a time, and the store reads about a page of rows for it (its queries take the
 * page's `LIMIT`), not every link to the file.
 */

/** Records counting the link rows their link queries answer, in a transaction too. */
function counting(rows: { read: number }) {
  const wrap = <T extends RecordsReader>(inner: T): T =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'listLinksTo') {
          return async (q: Parameters<RecordsReader['listLinksTo']>[0]) => {
            const found = await target.listLinksTo(q);
            rows.read += found.length;
            return found;
          };
        }
        if (property === 'findFileLinks') {
          return async (q: Parameters<RecordsReader['findFileLinks']>[0]) => {
            const found = await target.findFileLinks(q);
            rows.read += found?.links.length ?? 0;
            return found;
          };
        }
        if (property === 'withTransaction') {
          return <R>(work: (tx: RecordsTransaction) => Promise<R>) =>
            (target as unknown as RecordsRepository).withTransaction((tx) => work(wrap(tx)));
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return (inner: RecordsRepository): RecordsRepository => wrap(inner);
}

describe('the links of a file, paged', () => {
  it('answers at most `limit` links per page, outgoing first, and reads about a page of rows', async () => {
    const rows = { read: 0 };
    const { store, at, put } = await scene({ wrapRecords: counting(rows) });
    await put('t.md', '[a](a.md) [[b]] [[c]]\n');
    // 4 files × 50 links to t.md, and links to another t.md in a folder (same stem, exact name wins).
    for (let f = 0; f < 4; f++) await put(`s${f}.md`, '[[t]]\n'.repeat(50));
    await put('x/t.md', 'other\n');
    await put('y.md', '[[x/t]]\n'.repeat(30));
    const pages: { outgoing: number; incoming: string[] }[] = [];
    let cursor: string | undefined;
    let maxRead = 0;
    do {
      rows.read = 0;
      const page = await store.files.links({ ...at, filename: 't.md', limit: '40', cursor });
      maxRead = Math.max(maxRead, rows.read);
      pages.push({
        outgoing: page.outgoing.length,
        incoming: page.incoming.map((l) => `${l.source}:${l.line}`),
      });
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(pages.map((p) => p.outgoing + p.incoming.length)).toEqual([40, 40, 40, 40, 40, 3]);
    expect(pages[0]!.outgoing).toBe(3);
    const incoming = pages.flatMap((p) => p.incoming);
    expect(incoming).toHaveLength(200);
    expect(new Set(incoming).size).toBe(200);
    expect(incoming.slice(0, 2)).toEqual(['s0.md:1', 's0.md:2']);
    expect(incoming.at(-1)).toBe('s3.md:50');
    // One window of `limit + 1` candidates and the outgoing page: never the 200 links at once.
    expect(maxRead).toBeLessThanOrEqual(2 * 41);

    // Without a limit, the default page holds every link of this file, with no cursor.
    const whole = await store.files.links({ ...at, filename: 't.md' });
    expect(whole.incoming).toHaveLength(200);
    expect(whole.nextCursor).toBeNull();
    expect(FILE_LINK_LIMITS.pageDefault).toBeGreaterThanOrEqual(203);
  });

  it('refuses a limit above the maximum and a cursor of another file (422)', async () => {
    const { store, at, put } = await scene();
    await put('a.md', '[[b]]\n[[b]]\n');
    await put('b.md', 'b\n');
    const failed = async (run: () => Promise<unknown>) => {
      try {
        await run();
        return 'OK';
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    expect(
      await failed(() =>
        store.files.links({ ...at, filename: 'a.md', limit: String(FILE_LINK_LIMITS.pageMax + 1) }),
      ),
    ).toBe('INVALID_INPUT');
    const page = await store.files.links({ ...at, filename: 'a.md', limit: '1' });
    expect(page.nextCursor).not.toBeNull();
    expect(await failed(() => store.files.links({ ...at, filename: 'b.md', cursor: page.nextCursor! }))).toBe(
      'INVALID_INPUT',
    );
    const next = await store.files.links({ ...at, filename: 'a.md', limit: '1', cursor: page.nextCursor! });
    expect(next.outgoing).toHaveLength(1);
  });
});

describe("Delete File's if_unreferenced, bounded (issue 34)", () => {
  it('names each referring file once and skips the rest of its links instead of reading them all', async () => {
    const rows = { read: 0 };
    const { store, at, put } = await scene({ wrapRecords: counting(rows) });
    await put('t.md', 'target\n');
    // 3 files × 2 000 links to t.md: 6 000 incoming links, 3 referrers.
    for (let f = 0; f < 3; f++) await put(`s${f}.md`, '[[t]]\n'.repeat(2000));
    rows.read = 0;
    const refused = await store.files.delete({ ...at, filename: 't.md', ifUnreferenced: 'true' }).then(
      () => null,
      (error: unknown) => error as { code: string; referencedBy: string[] },
    );
    expect(refused?.code).toBe('FILE_REFERENCED');
    expect(refused?.referencedBy).toEqual(['s0.md', 's1.md', 's2.md']);
    // About one window per referrer (and one closing read), never the 6 000 links.
    expect(rows.read).toBeGreaterThan(0);
    expect(rows.read).toBeLessThanOrEqual(4 * FILE_LINK_LIMITS.referrerWindow);
  });

  it(`names at most ${FILE_LINK_LIMITS.referrersMax} referring files, the first in filename order`, async () => {
    const { store, at, put } = await scene();
    await put('t.md', 'target\n');
    const count = FILE_LINK_LIMITS.referrersMax + 20;
    const name = (i: number) => `r${String(i).padStart(4, '0')}.md`;
    for (let i = 0; i < count; i++) await put(name(i), '[[t]] [t](t.md)\n');
    const refused = await store.files.delete({ ...at, filename: 't.md', ifUnreferenced: 'true' }).then(
      () => null,
      (error: unknown) => error as { referencedBy: string[] },
    );
    expect(refused?.referencedBy).toEqual(
      Array.from({ length: FILE_LINK_LIMITS.referrersMax }, (_, i) => name(i)),
    );
    // A file that links only to itself is unreferenced.
    await put('self.md', '[[self]]\n');
    await store.files.delete({ ...at, filename: 'self.md', ifUnreferenced: 'true' });
  });

  it("skips the file's own links instead of reading them", async () => {
    const rows = { read: 0 };
    const { store, at, put } = await scene({ wrapRecords: counting(rows) });
    // 4 000 links of t.md to itself (a file's link index holds a few thousand), none from another file.
    await put('t.md', '[[t]] [t](t.md)\n'.repeat(2000));
    rows.read = 0;
    await store.files.delete({ ...at, filename: 't.md', ifUnreferenced: 'true' });
    expect(rows.read).toBeGreaterThan(0);
    expect(rows.read).toBeLessThanOrEqual(2 * FILE_LINK_LIMITS.referrerWindow);
  });

  it(`reads at most ${FILE_LINK_LIMITS.referrerScanMax} link rows; with no referrer found by then, 409 work_budget`, async () => {
    const rows = { read: 0 };
    const { store, at, put } = await scene({ wrapRecords: counting(rows) });
    await put('x/t.md', 'the target\n');
    await put('y/t.md', 'a namesake\n');
    // 18 000 wiki links named `t` from y/, each resolving to y/t.md, never to x/t.md.
    for (let f = 0; f < 9; f++) await put(`y/s${f}.md`, '[[t]]\n'.repeat(2000));
    rows.read = 0;
    const refused = await store.files.delete({ ...at, filename: 'x/t.md', ifUnreferenced: 'true' }).then(
      () => null,
      (error: unknown) => error as { code: string; issues: { loc: unknown[]; type: string }[] },
    );
    expect(refused?.code).toBe('EDIT_CONFLICT');
    expect(refused?.issues).toMatchObject([{ loc: ['query', 'if_unreferenced'], type: 'work_budget' }]);
    expect(rows.read).toBe(FILE_LINK_LIMITS.referrerScanMax);
    // Nothing was deleted; without the flag the delete goes ahead.
    await store.files.delete({ ...at, filename: 'x/t.md' });
  });

  it('past the read bound, the referrers found so far answer', async () => {
    const rows = { read: 0 };
    const { store, at, put } = await scene({ wrapRecords: counting(rows) });
    await put('x/t.md', 'the target\n');
    await put('y/t.md', 'a namesake\n');
    // One real referrer first (a.md sorts before y/), then 18 000 links that name t.md elsewhere.
    await put('a.md', '[t](x/t.md)\n');
    for (let f = 0; f < 9; f++) await put(`y/s${f}.md`, '[[t]]\n'.repeat(2000));
    const refused = await store.files.delete({ ...at, filename: 'x/t.md', ifUnreferenced: 'true' }).then(
      () => null,
      (error: unknown) => error as { code: string; referencedBy: string[] },
    );
    expect(refused?.code).toBe('FILE_REFERENCED');
    expect(refused?.referencedBy).toEqual(['a.md']);
  });
});
