import { evaluateFilter, type FilterableFile, parseFilter } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const file = (overrides: Partial<FilterableFile> = {}): FilterableFile => ({
  filename: 'notes/plan.md',
  sizeBytes: 120,
  createdAt: Date.UTC(2024, 0, 15, 12),
  updatedAt: Date.UTC(2024, 5, 1),
  revision: 3,
  metadata: null,
  frontmatter: null,
  ...overrides,
});

const holds = (filter: unknown, target: FilterableFile) => evaluateFilter(parseFilter(filter), target);
const on = (metadata: Record<string, unknown>) => file({ metadata });
const c = (field: unknown, op: string, value: unknown) => ({ field, op, value });

describe('evaluateFilter: equality', () => {
  it('is type-strict JSON equality', () => {
    const target = on({ n: 1, s: '1', t: true, z: null, o: { a: 1, b: [1, 2] }, l: [1, 2], neg: -0 });
    expect(holds(c('metadata.n', 'eq', 1), target)).toBe(true);
    expect(holds(c('metadata.n', 'eq', 1.0), target)).toBe(true);
    expect(holds(c('metadata.n', 'eq', '1'), target)).toBe(false);
    expect(holds(c('metadata.s', 'eq', 1), target)).toBe(false);
    expect(holds(c('metadata.t', 'eq', 1), target)).toBe(false);
    expect(holds(c('metadata.t', 'eq', true), target)).toBe(true);
    expect(holds(c('metadata.z', 'eq', null), target)).toBe(true);
    expect(holds(c('metadata.z', 'eq', false), target)).toBe(false);
    expect(holds(c('metadata.o', 'eq', { b: [1, 2], a: 1 }), target)).toBe(true);
    expect(holds(c('metadata.o', 'eq', { a: 1 }), target)).toBe(false);
    expect(holds(c('metadata.o', 'eq', { a: 1, b: [1, 2], c: null }), target)).toBe(false);
    expect(holds(c('metadata.o', 'eq', { a: 1, c: [1, 2] }), target)).toBe(false);
    expect(holds(c('metadata.l', 'eq', [1, 2]), target)).toBe(true);
    expect(holds(c('metadata.l', 'eq', [2, 1]), target)).toBe(false);
    expect(holds(c('metadata.l', 'eq', [1, 2, 3]), target)).toBe(false);
    expect(holds(c('metadata.l', 'eq', { 0: 1, 1: 2 }), target)).toBe(false);
    expect(holds(c('metadata.o', 'eq', [1, 2]), target)).toBe(false);
    expect(holds(c('metadata.neg', 'eq', 0), target)).toBe(true);
    // A member named __proto__ is compared like any other, never with the prototype.
    expect(holds(c('metadata.o', 'eq', JSON.parse('{"__proto__": {}, "b": [1, 2]}')), target)).toBe(false);
    const withProto = on(JSON.parse('{"p": {"__proto__": {}}}'));
    expect(holds(c('metadata.p', 'eq', JSON.parse('{"__proto__": {}}')), withProto)).toBe(true);
    expect(holds(c('metadata.p', 'eq', { x: 1 }), withProto)).toBe(false);
  });

  it('makes ne the negation of eq, so it matches an absent field', () => {
    const target = on({ n: 1 });
    expect(holds(c('metadata.n', 'ne', 1), target)).toBe(false);
    expect(holds(c('metadata.n', 'ne', '1'), target)).toBe(true);
    expect(holds(c('metadata.missing', 'ne', 1), target)).toBe(true);
    expect(holds(c('frontmatter.n', 'ne', 1), target)).toBe(true);
    expect(holds(c('filename', 'ne', 'notes/plan.md'), target)).toBe(false);
    expect(holds(c('filename', 'ne', 5), target)).toBe(true);
  });
});

describe('evaluateFilter: order', () => {
  it('orders numbers with numbers and strings with strings by code point, nothing else', () => {
    const target = on({ n: 10, s: 'b', t: true, z: null, l: [1] });
    expect(holds(c('metadata.n', 'lt', 11), target)).toBe(true);
    expect(holds(c('metadata.n', 'lt', 10), target)).toBe(false);
    expect(holds(c('metadata.n', 'lte', 10), target)).toBe(true);
    expect(holds(c('metadata.n', 'lte', 9.99), target)).toBe(false);
    expect(holds(c('metadata.n', 'gt', 9.99), target)).toBe(true);
    expect(holds(c('metadata.n', 'gt', 10), target)).toBe(false);
    expect(holds(c('metadata.n', 'gte', 10), target)).toBe(true);
    expect(holds(c('metadata.n', 'gte', 10.01), target)).toBe(false);
    expect(holds(c('metadata.n', 'lt', '11'), target)).toBe(false);
    expect(holds(c('metadata.n', 'gt', '1'), target)).toBe(false);
    expect(holds(c('metadata.s', 'gt', 'a'), target)).toBe(true);
    expect(holds(c('metadata.s', 'lt', 'ba'), target)).toBe(true);
    expect(holds(c('metadata.s', 'gte', 'b'), target)).toBe(true);
    expect(holds(c('metadata.s', 'lte', 'a'), target)).toBe(false);
    expect(holds(c('metadata.s', 'lt', 1), target)).toBe(false);
    for (const op of ['lt', 'lte', 'gt', 'gte']) {
      expect(holds(c('metadata.t', op, true), target)).toBe(false);
      expect(holds(c('metadata.z', op, null), target)).toBe(false);
      expect(holds(c('metadata.l', op, [1]), target)).toBe(false);
      expect(holds(c('metadata.missing', op, 1), target)).toBe(false);
    }
  });

  it('compares strings by code point, not UTF-16 unit', () => {
    // U+FF5E sorts before U+1F600 by code point, after its surrogates by code unit.
    const target = on({ s: '\uff5e' });
    expect(holds(c('metadata.s', 'lt', '😀'), target)).toBe(true);
    expect(holds(c('filename', 'lt', '😀'), file({ filename: '\uff5e.md' }))).toBe(true);
  });

  it('compares the fixed fields by their type', () => {
    const target = file();
    expect(holds(c('size_bytes', 'gte', 120), target)).toBe(true);
    expect(holds(c('size_bytes', 'gt', 120), target)).toBe(false);
    expect(holds(c('size_bytes', 'lt', '200'), target)).toBe(false);
    expect(holds(c('revision', 'eq', 3), target)).toBe(true);
    expect(holds(c('revision', 'lte', 2), target)).toBe(false);
    expect(holds(c('filename', 'gt', 'notes/'), target)).toBe(true);
    expect(holds(c('filename', 'lt', 'notes/plan.md'), target)).toBe(false);
  });

  it('compares dates as instants', () => {
    const target = file();
    expect(holds(c('created_date', 'eq', '2024-01-15T12:00:00Z'), target)).toBe(true);
    expect(holds(c('created_date', 'eq', '2024-01-15T13:00:00+01:00'), target)).toBe(true);
    expect(holds(c('created_date', 'eq', '2024-01-15T12:00:00'), target)).toBe(true);
    expect(holds(c('created_date', 'eq', '2024-01-15T12:00:00.001Z'), target)).toBe(false);
    expect(holds(c('created_date', 'ne', '2024-01-15T12:00:00.001Z'), target)).toBe(true);
    expect(holds(c('created_date', 'ne', '2024-01-15T12:00:00Z'), target)).toBe(false);
    expect(holds(c('created_date', 'lt', '2024-01-15T12:00:00.0005Z'), target)).toBe(true);
    expect(holds(c('created_date', 'lt', '2024-01-15T12:00:00Z'), target)).toBe(false);
    expect(holds(c('created_date', 'lte', '2024-01-15T12:00:00Z'), target)).toBe(true);
    expect(holds(c('created_date', 'gt', '2024-01-15'), target)).toBe(true);
    expect(holds(c('created_date', 'gt', '2024-01-16'), target)).toBe(false);
    expect(holds(c('created_date', 'gte', '2024-01-15T12:00:00Z'), target)).toBe(true);
    expect(holds(c('updated_date', 'gte', '2024-06-01'), target)).toBe(true);
    expect(holds(c('updated_date', 'gt', '2024-06-01'), target)).toBe(false);
    expect(holds(c('updated_date', 'in', ['2020-01-01', '2024-06-01T00:00:00Z']), target)).toBe(true);
    expect(holds(c('updated_date', 'in', ['2020-01-01']), target)).toBe(false);
    expect(holds(c('created_date', 'prefix', '2024'), target)).toBe(false);
    expect(holds(c('created_date', 'contains', '2024'), target)).toBe(false);
    expect(holds(c('created_date', 'exists', true), target)).toBe(true);
    expect(holds(c('updated_date', 'exists', false), target)).toBe(false);
  });
});

describe('evaluateFilter: in, contains, prefix, exists', () => {
  const target = on({ n: 2, s: 'hello world', l: ['a', 1, [2], { k: 'v' }], o: { k: 'v' }, z: null });

  it('in: the field equals an element', () => {
    expect(holds(c('metadata.n', 'in', [1, 2]), target)).toBe(true);
    expect(holds(c('metadata.n', 'in', ['2']), target)).toBe(false);
    expect(holds(c('metadata.n', 'in', []), target)).toBe(false);
    expect(holds(c('metadata.o', 'in', [{ k: 'v' }]), target)).toBe(true);
    expect(holds(c('metadata.z', 'in', [null]), target)).toBe(true);
    expect(holds(c('metadata.missing', 'in', [null]), target)).toBe(false);
    expect(holds(c('filename', 'in', ['x', 'notes/plan.md']), target)).toBe(true);
    expect(holds(c('size_bytes', 'in', [120]), target)).toBe(true);
  });

  it('contains: an equal array element, or a substring', () => {
    expect(holds(c('metadata.l', 'contains', 'a'), target)).toBe(true);
    expect(holds(c('metadata.l', 'contains', 1), target)).toBe(true);
    expect(holds(c('metadata.l', 'contains', '1'), target)).toBe(false);
    expect(holds(c('metadata.l', 'contains', [2]), target)).toBe(true);
    expect(holds(c('metadata.l', 'contains', 2), target)).toBe(false);
    expect(holds(c('metadata.l', 'contains', { k: 'v' }), target)).toBe(true);
    expect(holds(c('metadata.s', 'contains', 'lo wo'), target)).toBe(true);
    expect(holds(c('metadata.s', 'contains', ''), target)).toBe(true);
    expect(holds(c('metadata.s', 'contains', 'Hello'), target)).toBe(false);
    expect(holds(c('metadata.s', 'contains', ['hello']), target)).toBe(false);
    expect(holds(c('metadata.o', 'contains', 'v'), target)).toBe(false);
    expect(holds(c('metadata.n', 'contains', 2), target)).toBe(false);
    expect(holds(c('filename', 'contains', '/pl'), target)).toBe(true);
    expect(holds(c('size_bytes', 'contains', 12), target)).toBe(false);
  });

  it('prefix: a string field starting with the value', () => {
    expect(holds(c('metadata.s', 'prefix', 'hello'), target)).toBe(true);
    expect(holds(c('metadata.s', 'prefix', ''), target)).toBe(true);
    expect(holds(c('metadata.s', 'prefix', 'world'), target)).toBe(false);
    expect(holds(c('metadata.l', 'prefix', 'a'), target)).toBe(false);
    expect(holds(c('filename', 'prefix', 'notes/'), target)).toBe(true);
    expect(holds(c('filename', 'prefix', 'plan'), target)).toBe(false);
    expect(holds(c('revision', 'prefix', '3'), target)).toBe(false);
  });

  it('exists: present even when null; absent otherwise', () => {
    expect(holds(c('metadata.z', 'exists', true), target)).toBe(true);
    expect(holds(c('metadata.z', 'exists', false), target)).toBe(false);
    expect(holds(c('metadata.missing', 'exists', false), target)).toBe(true);
    expect(holds(c('metadata.missing', 'exists', true), target)).toBe(false);
    expect(holds(c('metadata.o.k', 'exists', true), target)).toBe(true);
    expect(holds(c('filename', 'exists', true), target)).toBe(true);
    expect(holds(c('revision', 'exists', false), target)).toBe(false);
    expect(holds(c('size_bytes', 'exists', false), target)).toBe(false);
  });
});

describe('evaluateFilter: paths', () => {
  it('never steps into arrays, nor into inherited members', () => {
    const target = on({ l: [{ k: 1 }], o: { k: 1 }, s: 'text' });
    expect(holds(c('metadata.l.0', 'exists', true), target)).toBe(false);
    expect(holds(c('metadata.l.0.k', 'eq', 1), target)).toBe(false);
    expect(holds(c('metadata.l.k', 'eq', 1), target)).toBe(false);
    expect(holds(c('metadata.o.k', 'eq', 1), target)).toBe(true);
    expect(holds(c('metadata.s.length', 'exists', true), target)).toBe(false);
    expect(holds(c('metadata.toString', 'exists', true), target)).toBe(false);
    expect(holds(c('metadata.o.constructor', 'exists', true), target)).toBe(false);
    expect(holds(c(['metadata', '__proto__'], 'exists', true), target)).toBe(false);
  });

  it('finds keys with dots, empty keys and __proto__ through the list form', () => {
    const metadata = JSON.parse('{"a.b": 1, "": {"": 2}, "__proto__": {"x": 3}}');
    const target = on(metadata);
    expect(holds(c(['metadata', 'a.b'], 'eq', 1), target)).toBe(true);
    expect(holds(c('metadata.a.b', 'exists', true), target)).toBe(false);
    expect(holds(c(['metadata', '', ''], 'eq', 2), target)).toBe(true);
    expect(holds(c(['metadata', '__proto__', 'x'], 'eq', 3), target)).toBe(true);
  });

  it('reads front matter and metadata apart, and a null root as absent', () => {
    const target = file({ metadata: { a: 1 }, frontmatter: { a: 2 } });
    expect(holds(c('metadata.a', 'eq', 1), target)).toBe(true);
    expect(holds(c('frontmatter.a', 'eq', 2), target)).toBe(true);
    expect(holds(c('frontmatter.a', 'eq', 1), target)).toBe(false);
    expect(holds(c('frontmatter.a', 'exists', false), file())).toBe(true);
    expect(holds(c('metadata.a', 'ne', 1), file())).toBe(true);
  });
});

describe('evaluateFilter: and, or, not', () => {
  it('combines', () => {
    const target = on({ a: 1 });
    const yes = c('metadata.a', 'eq', 1);
    const no = c('metadata.a', 'eq', 2);
    expect(holds({ and: [yes, yes] }, target)).toBe(true);
    expect(holds({ and: [yes, no] }, target)).toBe(false);
    expect(holds({ and: [] }, target)).toBe(true);
    expect(holds({ or: [no, yes] }, target)).toBe(true);
    expect(holds({ or: [no, no] }, target)).toBe(false);
    expect(holds({ or: [] }, target)).toBe(false);
    expect(holds({ not: no }, target)).toBe(true);
    expect(holds({ not: { not: no } }, target)).toBe(false);
  });
});

/**
 * The reference: the spec's rules written plainly and differently, on the raw filter JSON. Equality
 * compares canonical JSON texts (keys sorted; JSON writes 1.0 and -0 as 1 and 0).
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (ch) => ch.codePointAt(0)!);
  const y = Array.from(b, (ch) => ch.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

const FIXED: Record<string, (f: FilterableFile) => unknown> = {
  filename: (f) => f.filename,
  size_bytes: (f) => f.sizeBytes,
  revision: (f) => f.revision,
  created_date: (f) => f.createdAt,
  updated_date: (f) => f.updatedAt,
};

// biome-ignore lint/suspicious/noExplicitAny: the reference reads raw JSON.
function reference(filter: any, target: FilterableFile): boolean {
  if (filter.and) return filter.and.every((child: unknown) => reference(child, target));
  if (filter.or) return filter.or.some((child: unknown) => reference(child, target));
  if (filter.not) return !reference(filter.not, target);
  const { field, op, value } = filter;
  const path: string[] = typeof field === 'string' ? (FIXED[field] ? [field] : field.split('.')) : field;
  let present = true;
  let actual: unknown;
  const isDate = path.length === 1 && (path[0] === 'created_date' || path[0] === 'updated_date');
  if (path.length === 1) {
    actual = FIXED[path[0]!]!(target);
  } else {
    actual = path[0] === 'metadata' ? target.metadata : target.frontmatter;
    for (const key of path.slice(1)) {
      const isObject = actual !== null && typeof actual === 'object' && !Array.isArray(actual);
      if (!isObject || !Object.hasOwn(actual as object, key)) {
        present = false;
        break;
      }
      actual = (actual as Record<string, unknown>)[key];
    }
  }
  if (op === 'exists') return present === value;
  if (!present) return op === 'ne';
  if (isDate) {
    const at = (text: string) => Date.parse(text);
    if (op === 'contains' || op === 'prefix') return false;
    if (op === 'in') return value.some((item: string) => at(item) === actual);
    const instant = at(value);
    const n = actual as number;
    return {
      eq: n === instant,
      ne: n !== instant,
      lt: n < instant,
      lte: n <= instant,
      gt: n > instant,
      gte: n >= instant,
    }[op as 'eq'];
  }
  switch (op) {
    case 'eq':
      return same(actual, value);
    case 'ne':
      return !same(actual, value);
    case 'in':
      return value.some((item: unknown) => same(actual, item));
    case 'contains':
      if (Array.isArray(actual)) return actual.some((item) => same(item, value));
      return typeof actual === 'string' && typeof value === 'string' && actual.indexOf(value) !== -1;
    case 'prefix':
      return typeof actual === 'string' && actual.slice(0, value.length) === value;
  }
  let order: number;
  if (typeof actual === 'number' && typeof value === 'number') order = actual - value;
  else if (typeof actual === 'string' && typeof value === 'string') order = byCodePoint(actual, value);
  else return false;
  return { lt: order < 0, lte: order <= 0, gt: order > 0, gte: order >= 0 }[op as 'lt'];
}

const INSTANTS = [Date.UTC(2024, 0, 1), Date.UTC(2024, 0, 1, 0, 0, 0, 1), Date.UTC(2025, 5, 30, 12)];
const scalar = fc.oneof(
  fc.constantFrom(0, -0, 1, 1.5, 2, -1, 120, 3),
  fc.constantFrom('', 'a', 'ab', 'b', '1', 'notes/plan.md', 'é', '😀', '\uff5e'),
  fc.boolean(),
  fc.constant(null),
);
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const metadataObject = fc.oneof(
  fc.constant(null),
  fc.dictionary(fc.constantFrom('a', 'b', 'c'), json, { maxKeys: 3 }),
);
const field = fc.constantFrom<unknown>(
  'metadata.a',
  'metadata.a.b',
  'metadata.b.a.c',
  ['metadata', 'c'],
  'frontmatter.a',
  ['frontmatter', 'b', 'a'],
  'filename',
  'size_bytes',
  'revision',
  'created_date',
  'updated_date',
);
const dateText = fc.constantFrom(...INSTANTS).map((ms) => new Date(ms).toISOString());
const conditionOf = (values: fc.Arbitrary<unknown>) =>
  fc
    .tuple(field, fc.constantFrom('eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'exists', 'prefix'))
    .chain(([f, op]) => {
      const isDate = f === 'created_date' || f === 'updated_date';
      const base = isDate && !['contains', 'prefix', 'exists', 'in'].includes(op) ? dateText : values;
      const value =
        op === 'exists'
          ? fc.boolean()
          : op === 'in'
            ? fc.array(isDate ? dateText : values, { maxLength: 4 })
            : op === 'prefix'
              ? fc.constantFrom('', 'a', 'no', 'notes/', '1', 'é')
              : base;
      return value.map((v) => ({ field: f, op, value: v }));
    });
const filterOf = (values: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      conditionOf(values),
      fc.array(tie('node'), { maxLength: 3 }).map((filters) => ({ and: filters })),
      fc.array(tie('node'), { maxLength: 3 }).map((filters) => ({ or: filters })),
      tie('node').map((inner) => ({ not: inner })),
    ),
  })).node;

/** Every value inside a JSON value, so that filters often name values the file holds (as copies). */
function insideValues(value: unknown): unknown[] {
  if (value === null || typeof value !== 'object') return [value];
  const children = Array.isArray(value) ? value : Object.values(value);
  return [value, ...children.flatMap(insideValues)];
}
const target = fc.record({
  filename: fc.constantFrom('notes/plan.md', 'a', 'ab', 'é.md', '\uff5e.md'),
  sizeBytes: fc.constantFrom(0, 1, 2, 120),
  createdAt: fc.constantFrom(...INSTANTS),
  updatedAt: fc.constantFrom(...INSTANTS),
  revision: fc.constantFrom(1, 2, 3),
  metadata: metadataObject,
  frontmatter: metadataObject,
}) as fc.Arbitrary<FilterableFile>;

/** A file, and a filter whose values are random or copied (reordered) from the file's metadata. */
const filterCase = target.chain((candidate) => {
  const held = [...insideValues(candidate.metadata), ...insideValues(candidate.frontmatter)].map((value) =>
    reorderKeys(structuredClone(value)),
  );
  return fc.tuple(filterOf(fc.oneof(json, fc.constantFrom(...held))), fc.constant(candidate));
});

function reorderKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorderKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reorderKeys(item)]),
  );
}

describe('evaluateFilter: against a plain reference', () => {
  it('agrees on random metadata and random filters', () => {
    let parsed = 0;
    let matched = 0;
    fc.assert(
      fc.property(filterCase, ([raw, candidate]) => {
        let ast: ReturnType<typeof parseFilter>;
        try {
          ast = parseFilter(raw);
        } catch {
          return;
        }
        parsed += 1;
        const expected = reference(raw, candidate);
        if (expected) matched += 1;
        expect(evaluateFilter(ast, candidate)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
    // The generators reach both outcomes often.
    expect(parsed).toBeGreaterThan(4000);
    expect(matched).toBeGreaterThan(parsed / 10);
    expect(matched).toBeLessThan((parsed * 9) / 10);
  });
});
