import {
  compareCodePoints,
  type FileListParams,
  type MdStore,
  parseFileListParams,
  prefixUpperBound,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture, type ManualClock, textStream } from './support/fixture.js';

/**
 * Extensions §3: a client paging while others write sees every file that existed, unchanged, for the
 * whole walk exactly once; a file written during the walk may appear once, twice or not at all. And a
 * walk in filename order never shows a name twice (its keyset, the name, never moves).
 */

const NAMES = ['a.md', 'b.md', 'a/x.md', 'a/y.md', 'a/b/z.md', 'b/q.md', 'c.md', 'aa.md', 'a0.md', 'é.md'];

type Write =
  | { kind: 'upload'; name: string; size: number }
  | { kind: 'content'; name: string; size: number }
  | { kind: 'metadata'; name: string }
  | { kind: 'delete'; name: string };

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('upload' as const),
    name: fc.constantFrom(...NAMES),
    size: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({
    kind: fc.constant('content' as const),
    name: fc.constantFrom(...NAMES),
    size: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ kind: fc.constant('metadata' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...NAMES) }),
);

const paramsArb = fc.record({
  sort: fc.constantFrom('filename', 'created_date', 'updated_date', 'size_bytes'),
  order: fc.constantFrom('asc', 'desc'),
  prefix: fc.constantFrom('', 'a', 'a/', 'b'),
  limit: fc.integer({ min: 1, max: 4 }),
  delimiter: fc.boolean(),
});

/** Applies one write; writes that do not apply (upload of an existing name, …) are no-ops. */
async function apply(store: MdStore, clock: ManualClock, target: Target, write: Write): Promise<boolean> {
  clock.advance(write.name.length % 2); // ties in time are common, as they are in real stores
  const file = { principal: target.principal, projectId: target.projectId, filename: write.name };
  const content = (size: number) => textStream('x'.repeat(size));
  try {
    if (write.kind === 'upload') await store.files.upload({ ...file, content: content(write.size) });
    else if (write.kind === 'content')
      await store.files.updateContent({ ...file, content: content(write.size) });
    else if (write.kind === 'metadata')
      await store.files.updateMetadata({ ...file, body: { metadata: { t: clock.now() } } });
    else await store.files.delete(file);
    return true;
  } catch (error) {
    if (
      (error as { code?: string }).code === 'FILE_NOT_FOUND' ||
      (error as { code?: string }).code === 'FILENAME_TAKEN'
    )
      return false;
    throw error;
  }
}

type Target = { principal: Awaited<ReturnType<typeof anAccount>>['principal']; projectId: string };

describe('paging while writing', () => {
  it('sees every unchanged file exactly once, and never a name twice in filename order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), size: fc.integer({ min: 1, max: 4 }) }), {
          selector: (file) => file.name,
          maxLength: NAMES.length,
        }),
        paramsArb,
        fc.array(fc.array(writeArb, { maxLength: 3 }), { maxLength: 12 }),
        async (initial, raw, writesBetweenPages) => {
          const { store, clock } = createFixture();
          const account = await anAccount(store, 'walker');
          const target = { principal: account.principal, projectId: account.defaultProjectId };
          for (const file of initial) await apply(store, clock, target, { kind: 'upload', ...file });
          const params: FileListParams = {
            limit: raw.limit,
            order: raw.order,
            prefix: raw.prefix,
            ...(raw.delimiter ? { delimiter: '/', sort: 'filename' } : { sort: raw.sort }),
          };
          const touched = new Set<string>();
          const seen: string[] = [];
          let cursor: string | undefined;
          for (let page = 0; ; page++) {
            const list = await store.files.list({
              ...target,
              params: { ...params, ...(cursor && { cursor }) },
            });
            seen.push(...list.files.map((file) => file.filename), ...(list.folders ?? []));
            if (!list.nextCursor) break;
            cursor = list.nextCursor;
            for (const write of writesBetweenPages[page] ?? [])
              if (await apply(store, clock, target, write)) touched.add(write.name);
            expect(page).toBeLessThan(100);
          }
          const atLevel = (name: string) =>
            name.startsWith(raw.prefix) && !(raw.delimiter && name.indexOf('/', raw.prefix.length) >= 0);
          const unchanged = initial
            .map((file) => file.name)
            .filter((name) => atLevel(name) && !touched.has(name));
          for (const name of unchanged)
            expect(
              seen.filter((item) => item === name),
              name,
            ).toHaveLength(1);
          if (params.sort === 'filename') expect(new Set(seen).size).toBe(seen.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('prefix ranges', () => {
  const text = fc.string({
    unit: fc.constantFrom('a', '/', '\uD7FF', '\uE000', '\uFFFF', '\u{10000}', '\u{10FFFF}'),
    maxLength: 5,
  });
  it('a name starts with the prefix exactly when it lies in [prefix, prefixUpperBound(prefix))', () => {
    fc.assert(
      fc.property(text, text, (prefix, name) => {
        const upper = prefixUpperBound(prefix);
        const inRange =
          compareCodePoints(name, prefix) >= 0 && (upper === null || compareCodePoints(name, upper) < 0);
        expect(inRange).toBe(name.startsWith(prefix));
        if (upper !== null) expect(upper.isWellFormed()).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('list parameters', () => {
  const outcome = (params: FileListParams) => {
    try {
      parseFileListParams(params);
      return 'OK';
    } catch (error) {
      return (error as { code?: string; issues?: Array<{ loc: unknown[] }> }).issues?.map((i) =>
        i.loc.join('.'),
      );
    }
  };
  it('a limit is accepted exactly when it is decimal digits worth 1 to 1000', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.integer({ min: -5, max: 1005 }).map(String),
      fc.constantFrom('1e2', '0x10', '+5', ' 5', '5 ', '0010', '00000000000001', '9'.repeat(40)),
    );
    fc.assert(
      fc.property(text, (limit) => {
        const valid = /^[0-9]+$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1000;
        expect(outcome({ limit })).toEqual(valid ? 'OK' : ['query.limit']);
      }),
      { numRuns: 1000 },
    );
  });
  it('every bad parameter is reported, each at its own loc', () => {
    expect(outcome({ limit: '0', sort: 'x', order: 'up', delimiter: '|', prefix: '\ud800' })).toEqual([
      'query.limit',
      'query.sort',
      'query.order',
      'query.prefix',
      'query.delimiter',
    ]);
    expect(outcome({ delimiter: '/', sort: 'size_bytes' })).toEqual(['query.sort']);
    expect(outcome({ sort: 'toString' })).toEqual(['query.sort']);
    expect(outcome({ prefix: 'é'.repeat(512) })).toBe('OK');
    expect(outcome({ prefix: `${'é'.repeat(512)}x` })).toEqual(['query.prefix']);
  });
});
