import {
  evaluateFilter,
  type Filter,
  type FilterableFile,
  type PushdownCondition,
  parseFilter,
  planFilter,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const c = (field: unknown, op: string, value: unknown) => ({ field, op, value });
const plan = (raw: unknown) => planFilter(parseFilter(raw));

describe('planFilter', () => {
  it('narrows on the JSON conditions of the top-level conjunction that every engine can test', () => {
    const result = plan({
      and: [
        c('frontmatter.topic', 'eq', 'api'),
        { and: [c('metadata.tags', 'contains', 'web'), c(['metadata', 'a.b'], 'prefix', 'x')] },
        c('metadata.n', 'in', [1, 'one', true]),
        c('metadata.done', 'exists', true),
        { or: [c('metadata.a', 'eq', 1), c('metadata.b', 'eq', 2)] },
        { not: c('metadata.c', 'eq', 1) },
      ],
    });
    expect(result.narrowing).toEqual([
      { kind: 'equals', root: 'frontmatter', keys: ['topic'], values: ['api'] },
      { kind: 'contains', root: 'metadata', keys: ['tags'], value: 'web' },
      { kind: 'prefix', root: 'metadata', keys: ['a.b'], value: 'x' },
      { kind: 'equals', root: 'metadata', keys: ['n'], values: [1, 'one', true] },
      { kind: 'exists', root: 'metadata', keys: ['done'] },
    ]);
    // The conditions stay in the residual: a narrowing is not exact.
    expect(result.residual).toMatchObject({ kind: 'and' });
    expect((result.residual as unknown as { filters: unknown[] }).filters).toHaveLength(7);
  });

  it('does not narrow where an engine could leave out a match', () => {
    const unsafe = [
      c(['metadata', 'k"q'], 'eq', 'x'),
      c(['metadata', 'k\\q'], 'eq', 'x'),
      c(['metadata', 'tab\t'], 'eq', 'x'),
      c('metadata.a', 'eq', 'a\u0000b'),
      c('metadata.a', 'eq', 2 ** 53),
      c('metadata.a', 'eq', null),
      c('metadata.a', 'eq', [1]),
      c('metadata.a', 'eq', { b: 1 }),
      c('metadata.a', 'in', ['x', null]),
      c('metadata.a', 'in', []),
      c('metadata.a', 'contains', 1),
      c('metadata.a', 'exists', false),
      c('metadata.a', 'ne', 'x'),
      c('metadata.a', 'lt', 'x'),
    ];
    for (const raw of unsafe) expect(plan(raw).narrowing, JSON.stringify(raw)).toEqual([]);
    expect(plan(c('metadata.a', 'eq', '\u{1F600}')).narrowing).toHaveLength(1);
    expect(plan(c('metadata.a', 'eq', -(2 ** 53 - 1))).narrowing).toHaveLength(1);
  });

  it('pushes the fixed-field conjuncts down and keeps the rest', () => {
    const result = plan({
      and: [
        c('filename', 'prefix', 'notes/'),
        { and: [c('size_bytes', 'lt', 100), c('metadata.a', 'eq', 1)] },
        c('created_date', 'gte', '2024-01-01'),
        c('revision', 'in', [1, 'x', 3]),
        { or: [c('revision', 'eq', 1), c('revision', 'eq', 2)] },
      ],
    });
    expect(result.pushdown).toEqual([
      { field: 'filename', op: 'prefix', value: 'notes/' },
      { field: 'size_bytes', op: 'lt', value: 100 },
      { field: 'created_date', op: 'gte', value: Date.UTC(2024, 0, 1) },
      { field: 'revision', op: 'in', value: [1, 3] },
    ] satisfies PushdownCondition[]);
    expect(result.residual).toEqual(
      parseFilter({
        and: [c('metadata.a', 'eq', 1), { or: [c('revision', 'eq', 1), c('revision', 'eq', 2)] }],
      }),
    );
    expect(result.matchesNothing).toBe(false);
  });

  it('keeps a single residual as it is, and none as null', () => {
    expect(plan(c('metadata.a', 'eq', 1))).toEqual({
      pushdown: [],
      residual: parseFilter(c('metadata.a', 'eq', 1)),
      matchesNothing: false,
      narrowing: [{ kind: 'equals', root: 'metadata', keys: ['a'], values: [1] }],
    });
    expect(plan(c('filename', 'eq', 'a.md'))).toEqual({
      pushdown: [{ field: 'filename', op: 'eq', value: 'a.md' }],
      residual: null,
      matchesNothing: false,
      narrowing: [],
    });
    const none = { pushdown: [], residual: null, matchesNothing: false, narrowing: [] };
    expect(planFilter(null)).toEqual(none);
    expect(plan({ and: [] })).toEqual(none);
  });

  it('resolves conditions that cannot hold or always hold', () => {
    const never = [
      c('size_bytes', 'eq', '1'),
      c('filename', 'lt', 5),
      c('revision', 'contains', 1),
      c('filename', 'in', [1, 2]),
      c('size_bytes', 'in', []),
      c('created_date', 'prefix', '2024'),
      c('updated_date', 'contains', '2024'),
      c('revision', 'exists', false),
      c('revision', 'prefix', '1'),
    ];
    for (const raw of never) expect(plan(raw).matchesNothing, JSON.stringify(raw)).toBe(true);
    const always = [c('size_bytes', 'ne', '1'), c('filename', 'ne', null), c('created_date', 'exists', true)];
    for (const raw of always)
      expect(plan(raw), JSON.stringify(raw)).toEqual({
        pushdown: [],
        residual: null,
        matchesNothing: false,
        narrowing: [],
      });
    expect(plan(c('filename', 'contains', 'x')).pushdown).toEqual([
      { field: 'filename', op: 'contains', value: 'x' },
    ]);
    expect(plan(c('updated_date', 'in', ['2024-01-01'])).pushdown).toEqual([
      { field: 'updated_date', op: 'in', value: [Date.UTC(2024, 0, 1)] },
    ]);
    expect(plan(c('revision', 'ne', 2)).pushdown).toEqual([{ field: 'revision', op: 'ne', value: 2 }]);
  });

  it('does not push down under or / not', () => {
    expect(plan({ not: c('filename', 'eq', 'a') }).pushdown).toEqual([]);
    expect(plan({ or: [c('filename', 'eq', 'a')] }).pushdown).toEqual([]);
  });

  it('is exact: pushdown, then the residual, decides like evaluateFilter', () => {
    const field = fc.constantFrom(
      'filename',
      'size_bytes',
      'revision',
      'created_date',
      'updated_date',
      'metadata.a',
    );
    const op = fc.constantFrom('eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'exists', 'prefix');
    const date = fc.constantFrom('2024-01-01', '2024-01-01T00:00:00.001Z', '2025-01-01');
    const scalar = fc.constantFrom<unknown>(0, 1, 2, 'a', 'a.md', 'b.md', '', null, true, [1], { a: 1 });
    const condition = fc.tuple(field, op).chain(([f, o]) => {
      const isDate = f.endsWith('_date') && !['contains', 'prefix', 'exists'].includes(o);
      const one = isDate ? date : scalar;
      const value =
        o === 'exists'
          ? fc.boolean()
          : o === 'in'
            ? fc.array(one, { maxLength: 3 })
            : o === 'prefix'
              ? fc.constantFrom('', 'a', 'b')
              : one;
      return value.map((v) => c(f, o, v));
    });
    const node: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      n: fc.oneof(
        { depthSize: 'small' },
        condition,
        fc.array(tie('n'), { maxLength: 4 }).map((and) => ({ and })),
        fc.array(tie('n'), { maxLength: 2 }).map((or) => ({ or })),
        tie('n').map((not) => ({ not })),
      ),
    })).n;
    const file = fc.record({
      filename: fc.constantFrom('a.md', 'b.md', 'ab'),
      sizeBytes: fc.constantFrom(0, 1, 2),
      createdAt: fc.constantFrom(Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 1) + 1, Date.UTC(2026, 0, 1)),
      updatedAt: fc.constantFrom(Date.UTC(2024, 0, 1), Date.UTC(2025, 0, 1)),
      revision: fc.constantFrom(1, 2),
      metadata: fc.constantFrom(null, { a: 1 }, { a: 'a' }),
      frontmatter: fc.constant(null),
    }) as fc.Arbitrary<FilterableFile>;
    fc.assert(
      fc.property(node, file, (raw, target) => {
        let filter: Filter;
        try {
          filter = parseFilter(raw);
        } catch {
          // Deeper than 8 levels or over 50 conditions: not a filter.
          return;
        }
        const planned = planFilter(filter);
        const byPlan =
          !planned.matchesNothing &&
          planned.pushdown.every((condition) => sqlLike(condition, target)) &&
          (planned.residual === null || evaluateFilter(planned.residual, target));
        expect(byPlan).toBe(evaluateFilter(filter, target));
      }),
      { numRuns: 3000 },
    );
  });
});

/** What a SQL store does with a pushed-down condition, written plainly. */
function sqlLike(condition: PushdownCondition, file: FilterableFile): boolean {
  const column = {
    filename: file.filename,
    size_bytes: file.sizeBytes,
    revision: file.revision,
    created_date: file.createdAt,
    updated_date: file.updatedAt,
  }[condition.field];
  const { op, value } = condition;
  if (op === 'in') return (value as readonly unknown[]).includes(column);
  if (op === 'prefix') return (column as string).startsWith(value as string);
  if (op === 'contains') return (column as string).includes(value as string);
  const a = column as number | string;
  const b = value as number | string;
  return { eq: a === b, ne: a !== b, lt: a < b, lte: a <= b, gt: a > b, gte: a >= b }[op];
}
