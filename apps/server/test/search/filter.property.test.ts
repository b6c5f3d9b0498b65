import {
  createMdStore,
  evaluateFilter,
  type FileView,
  type Filter,
  isMdStoreError,
  type MdStore,
  type Principal,
  parseFilter,
  wireBody,
} from '@mdstore/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_SETS, skipWithoutPostgres, type TestAdapters } from '../support/adapters.js';

/**
 * The filter language through real stores (pushdown to SQL, the rest in the core) against the reference
 * evaluator: over random metadata and front matter and random filters, the search finds exactly the
 * files `evaluateFilter` accepts, and a filter the reference refuses is a 422.
 */

const KEYS = ['a', 'b', 'tags', 'n', 'a.b', 'k"q'];
/** Values SQL engines treat their own way (NUL, quotes, backslashes, astral and combining characters, "1" vs 1, huge numbers). */
const TRICKY = ['1', 'a\u0000b', 'q"\\', '\u{1F600}', 'e\u0301', 'ab\u0000', 2 ** 53 + 2, 1e-7, -0.5];
const scalar = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, 1, -1, 2.5, 10, '', 'a', 'b', 'ab', 'A', 'é', '2024-01-01'),
  fc.constantFrom<unknown>(...TRICKY),
  fc.integer({ min: -3, max: 3 }),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('v'), { maxKeys: 3 }),
  ),
})).v;
const object = fc.option(fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 4 }), { nil: null });

const field = fc.oneof(
  {
    arbitrary: fc.constantFrom<unknown>('filename', 'size_bytes', 'revision', 'created_date', 'updated_date'),
    weight: 2,
  },
  fc
    .tuple(
      fc.constantFrom('metadata', 'frontmatter'),
      fc.array(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 2 }),
    )
    .map(([root, keys]) => `${root}.${keys.join('.')}`),
  fc.constantFrom<unknown>(
    ['metadata', 'a'],
    ['frontmatter', 'tags'],
    ['metadata', 'a.b'],
    ['metadata', 'k"q'],
  ),
);
const op = fc.constantFrom('eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'exists', 'prefix');
const condition = fc.tuple(field, op).chain(([f, o]) => {
  const isDate =
    typeof f === 'string' && f.endsWith('_date') && !['contains', 'prefix', 'exists'].includes(o);
  const one = isDate ? fc.constantFrom('2000-01-01', '2999-01-01T00:00:00Z', 'not a date') : value;
  const v =
    o === 'exists'
      ? fc.oneof(fc.boolean(), fc.constant<unknown>('yes'))
      : o === 'in'
        ? fc.array(one, { maxLength: 3 })
        : o === 'prefix'
          ? fc.constantFrom<unknown>('', 'a', 'f', 'f1', '.md', '3.md', 1)
          : f === 'filename'
            ? fc.constantFrom<unknown>('f03.md', 'f1', '.md', 3)
            : one;
  return v.map((val) => ({ field: f, op: o, value: val }));
});
const filter: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  n: fc.oneof(
    { depthSize: 'small' },
    condition,
    // Conditions ANDed at the top: what a SQL store evaluates itself (pushdown).
    fc.array(condition, { minLength: 1, maxLength: 3 }).map((and) => ({ and })),
    fc.array(tie('n'), { maxLength: 3 }).map((and) => ({ and })),
    fc.array(tie('n'), { maxLength: 3 }).map((or) => ({ or })),
    tie('n').map((not) => ({ not })),
  ),
})).n;

/** Every fixed-field condition a store evaluates itself, on its own and ANDed: always tried first. */
const PUSHDOWN_EXAMPLES: [unknown][] = [];
const FIXED_VALUES: Record<string, unknown[]> = {
  filename: ['f03.md', 'f1', '.md', 'f', '', 3, ['f01.md', 'f15.md', 2]],
  size_bytes: [10, 12.5, 14, '14', [10, 11, 'x']],
  revision: [1, 2, 3.5, [2, 4]],
  created_date: ['2000-01-01', '2999-01-01T00:00:00Z', ['2000-01-01']],
  updated_date: ['2999-01-01', ['2999-01-01']],
};
for (const [name, values] of Object.entries(FIXED_VALUES)) {
  for (const op of ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'prefix', 'exists']) {
    for (const value of op === 'exists' ? [true, false] : values) {
      if ((op === 'in') !== Array.isArray(value) && op !== 'exists') continue;
      const condition = { field: name, op, value };
      PUSHDOWN_EXAMPLES.push([condition]);
      PUSHDOWN_EXAMPLES.push([{ and: [condition, { field: 'metadata.a', op: 'ne', value: 1 }] }]);
    }
  }
}

/**
 * Conditions on JSON values a SQL store narrows its candidates with (planFilter's narrowing): each
 * must keep every match, alone and ANDed, whatever the engine makes of the value.
 */
const JSON_FIELDS: unknown[] = [
  'metadata.a',
  'frontmatter.tags',
  'metadata.n',
  'frontmatter.a.b',
  ['metadata', 'a.b'],
];
const JSON_VALUES: unknown[] = [true, false, 0, 1, 2.5, '', 'a', 'ab', 'é', ...TRICKY];
for (const field of JSON_FIELDS) {
  for (const value of JSON_VALUES) {
    for (const op of ['eq', 'contains', 'prefix']) PUSHDOWN_EXAMPLES.push([{ field, op, value }]);
    PUSHDOWN_EXAMPLES.push([
      {
        and: [
          { field, op: 'in', value: [value, 'b', -1] },
          { field: 'revision', op: 'gte', value: 1 },
        ],
      },
    ]);
  }
  PUSHDOWN_EXAMPLES.push([{ field, op: 'exists', value: true }]);
}

const filterable = (file: FileView) => ({
  filename: file.filename,
  sizeBytes: file.sizeBytes,
  createdAt: file.createdAt,
  updatedAt: file.updatedAt,
  revision: file.revision,
  metadata: file.metadata,
  frontmatter: file.frontmatter,
});

const SETS = [
  { name: 'memory', postgres: false },
  { name: 'sqlite-fs', postgres: false },
  { name: 'postgres-s3', postgres: true },
];

for (const set of SETS) {
  const skip = set.postgres && (await skipWithoutPostgres(`filter property on ${set.name}`));
  describe.skipIf(skip)(`search filters on ${set.name} agree with evaluateFilter`, () => {
    let adapters: TestAdapters;
    let store: MdStore;
    let principal: Principal;
    let projectId: string;
    let files: FileView[];

    beforeAll(async () => {
      adapters = await ADAPTER_SETS[set.name]!();
      store = createMdStore({ ...adapters, settings: adapters.settings });
      const created = await store.accounts.create({ name: 'filters' });
      principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
      projectId = created.defaultProject.id;
      const seeds = fc.sample(fc.tuple(object, object, fc.integer({ min: 0, max: 3 })), {
        numRuns: 16,
        seed: 42,
      });
      for (const [index, [metadata, frontmatter, edits]] of seeds.entries()) {
        const front = frontmatter === null ? '' : `---\n${JSON.stringify(frontmatter)}\n---\n`;
        const filename = `f${String(index).padStart(2, '0')}.md`;
        await store.files.upload({
          principal,
          projectId,
          filename,
          content: (async function* () {
            yield new TextEncoder().encode(`${front}# ${'x'.repeat(index)}\n`);
          })(),
          metadata: metadata === null ? undefined : JSON.stringify(metadata),
        });
        for (let edit = 0; edit < edits; edit += 1)
          await store.files.updateMetadata({ principal, projectId, filename, body: { metadata } });
      }
      const all = await store.files.search({ principal, projectId, body: { limit: 100 } });
      files = all.results.map((result) => result.file);
      expect(files).toHaveLength(16);
    });
    afterAll(async () => {
      await adapters?.close();
    });

    it('finds exactly the files the reference accepts', async () => {
      await fc.assert(
        fc.asyncProperty(filter, async (raw) => {
          let parsed: Filter | undefined;
          try {
            parsed = parseFilter(raw);
          } catch {
            parsed = undefined;
          }
          let found: string[] | 'invalid';
          try {
            const answer = await store.files.search({
              principal,
              projectId,
              body: wireBody({ filter: raw, limit: 100 }),
            });
            found = answer.results.map((result) => result.file.filename);
          } catch (error) {
            if (!isMdStoreError(error, 'INVALID_INPUT')) throw error;
            found = 'invalid';
          }
          const expected =
            parsed === undefined
              ? 'invalid'
              : files
                  .filter((file) => evaluateFilter(parsed!, filterable(file)))
                  .map((file) => file.filename);
          expect(found).toEqual(expected);
        }),
        { numRuns: 400, seed: 7, examples: PUSHDOWN_EXAMPLES },
      );
    });
  });
}
