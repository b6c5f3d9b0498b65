import { type Filter, InvalidInputError, parseFilter } from '@mdstore/core';
import { describe, expect, it } from 'vitest';

const F = ['body', 'filter'];

function issue(value: unknown) {
  try {
    parseFilter(value);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    const { issues } = error as InvalidInputError;
    expect(issues).toHaveLength(1);
    return issues[0]!;
  }
  throw new Error('expected a rejection');
}

const cond = (field: unknown, op: unknown, value: unknown) => ({ field, op, value });

describe('parseFilter: what it accepts', () => {
  it('parses every operator on every kind of field', () => {
    for (const op of ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'contains']) {
      expect(parseFilter(cond('metadata.a', op, 1))).toEqual({
        kind: 'condition',
        field: { kind: 'json', root: 'metadata', keys: ['a'] },
        op,
        value: 1,
        instants: null,
      });
    }
    expect(parseFilter(cond('filename', 'in', ['a.md', 'b.md']))).toMatchObject({
      op: 'in',
      value: ['a.md', 'b.md'],
    });
    expect(parseFilter(cond('size_bytes', 'exists', false))).toMatchObject({ op: 'exists', value: false });
    expect(parseFilter(cond('frontmatter.title', 'prefix', 'Intro'))).toMatchObject({
      field: { kind: 'json', root: 'frontmatter', keys: ['title'] },
      op: 'prefix',
      value: 'Intro',
    });
    for (const name of ['filename', 'size_bytes', 'revision']) {
      expect(parseFilter(cond(name, 'eq', 'x'))).toMatchObject({
        field: { kind: 'fixed', name },
        instants: null,
      });
    }
  });

  it('parses nested paths and the list form with any key', () => {
    expect(parseFilter(cond('metadata.a.b.c', 'eq', 1))).toMatchObject({ field: { keys: ['a', 'b', 'c'] } });
    expect(parseFilter(cond(['metadata', 'key.with.dots', '', '__proto__'], 'exists', true))).toMatchObject({
      field: { kind: 'json', root: 'metadata', keys: ['key.with.dots', '', '__proto__'] },
    });
    expect(parseFilter(cond(['frontmatter', 'a'], 'exists', true))).toMatchObject({
      field: { kind: 'json', root: 'frontmatter', keys: ['a'] },
    });
  });

  it('parses and, or, not, with empty lists allowed', () => {
    const filter = parseFilter({
      and: [{ or: [cond('revision', 'gt', 1)] }, { not: cond('filename', 'eq', 'x') }, { or: [] }],
    });
    expect(filter).toEqual({
      kind: 'and',
      filters: [
        {
          kind: 'or',
          filters: [
            {
              kind: 'condition',
              field: { kind: 'fixed', name: 'revision' },
              op: 'gt',
              value: 1,
              instants: null,
            },
          ],
        },
        {
          kind: 'not',
          filter: {
            kind: 'condition',
            field: { kind: 'fixed', name: 'filename' },
            op: 'eq',
            value: 'x',
            instants: null,
          },
        },
        { kind: 'or', filters: [] },
      ],
    } satisfies Filter);
  });

  it('turns date values into instants (UTC without a zone)', () => {
    expect(parseFilter(cond('created_date', 'gte', '2024-01-02'))).toMatchObject({
      instants: [Date.UTC(2024, 0, 2)],
    });
    expect(
      parseFilter(cond('updated_date', 'in', ['2024-01-02T03:04:05', '2024-01-02T03:04:05+01:00'])),
    ).toMatchObject({
      instants: [Date.UTC(2024, 0, 2, 3, 4, 5), Date.UTC(2024, 0, 2, 2, 4, 5)],
    });
    expect(parseFilter(cond('created_date', 'prefix', '2024'))).toMatchObject({ instants: null });
    expect(parseFilter(cond('created_date', 'contains', 5))).toMatchObject({ instants: null });
    expect(parseFilter(cond('metadata.created_date', 'gte', 'not a date'))).toMatchObject({ instants: null });
  });

  it('keeps values of other kinds: they simply never match', () => {
    expect(parseFilter(cond('size_bytes', 'lt', 'ten'))).toMatchObject({ value: 'ten' });
    expect(parseFilter(cond('metadata.a', 'eq', { x: [1, { y: null }] }))).toMatchObject({
      value: { x: [1, { y: null }] },
    });
    expect(parseFilter(cond('filename', 'in', []))).toMatchObject({ value: [] });
  });
});

describe('parseFilter: limits', () => {
  const nest = (levels: number): unknown =>
    levels === 1 ? cond('revision', 'eq', 1) : { not: nest(levels - 1) };

  it('takes 8 levels and refuses 9', () => {
    expect(() => parseFilter(nest(8))).not.toThrow();
    expect(issue(nest(9))).toEqual({
      loc: [...F, 'not', 'not', 'not', 'not', 'not', 'not', 'not', 'not'],
      msg: 'Value error, filter must be nested at most 8 levels deep',
      type: 'value_error',
    });
    expect(
      issue({ and: [{ or: [{ and: [{ or: [{ and: [{ or: [{ and: [{ or: [{}] }] }] }] }] }] }] }] }).loc,
    ).toEqual([...F, ...['and', 0, 'or', 0, 'and', 0, 'or', 0, 'and', 0, 'or', 0, 'and', 0, 'or', 0]]);
  });

  it('takes 50 conditions and refuses 51, wherever they are', () => {
    const many = (n: number) => Array.from({ length: n }, () => cond('revision', 'eq', 1));
    expect(() => parseFilter({ and: many(50) })).not.toThrow();
    expect(issue({ and: many(51) })).toEqual({
      loc: [...F, 'and', 50],
      msg: 'Value error, filter must have at most 50 conditions',
      type: 'value_error',
    });
    expect(issue({ or: [{ and: many(25) }, { not: { and: many(26) } }] }).loc).toEqual([
      ...F,
      'or',
      1,
      'not',
      'and',
      25,
    ]);
  });

  it('takes strings of 1 KiB of UTF-8 and refuses more, in values, keys and fields', () => {
    const kib = 'é'.repeat(512);
    expect(() => parseFilter(cond('metadata.a', 'eq', kib))).not.toThrow();
    expect(() => parseFilter(cond(['metadata', kib], 'eq', { [kib]: [kib] }))).not.toThrow();
    const tooLong = {
      loc: [] as unknown[],
      msg: 'String should have at most 1024 bytes',
      type: 'string_too_long',
    };
    expect(issue(cond('metadata.a', 'eq', `${kib}x`))).toEqual({ ...tooLong, loc: [...F, 'value'] });
    expect(issue(cond('metadata.a', 'in', ['a', 'x'.repeat(1025)]))).toEqual({
      ...tooLong,
      loc: [...F, 'value', 1],
    });
    expect(issue(cond('metadata.a', 'eq', { k: { [`${kib}x`]: 1 } }))).toEqual({
      ...tooLong,
      loc: [...F, 'value', 'k', `${kib}x`],
    });
    expect(issue(cond(['metadata', 'a', `${kib}x`], 'eq', 1))).toEqual({
      ...tooLong,
      loc: [...F, 'field', 2],
    });
    expect(issue(cond(`metadata.${'x'.repeat(1016)}`, 'eq', 1))).toEqual({
      ...tooLong,
      loc: [...F, 'field'],
    });
    expect(() => parseFilter(cond(`metadata.${'x'.repeat(1015)}`, 'eq', 1))).not.toThrow();
  });

  it('takes 100 values for in and refuses 101', () => {
    expect(() =>
      parseFilter(
        cond(
          'revision',
          'in',
          Array.from({ length: 100 }, (_, i) => i),
        ),
      ),
    ).not.toThrow();
    expect(
      issue(
        cond(
          'revision',
          'in',
          Array.from({ length: 101 }, (_, i) => i),
        ),
      ),
    ).toEqual({
      loc: [...F, 'value'],
      msg: 'List should have at most 100 items',
      type: 'too_long',
    });
  });

  it('takes values 32 levels deep and paths of 32 keys, not more', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 32; level += 1) deep = [deep];
    expect(() => parseFilter(cond('metadata.a', 'eq', deep))).not.toThrow();
    expect(issue(cond('metadata.a', 'eq', [deep]))).toMatchObject({
      loc: [...F, 'value', ...Array.from({ length: 32 }, () => 0)],
      type: 'value_error',
    });
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);
    expect(() => parseFilter(cond(['metadata', ...keys(32)], 'exists', true))).not.toThrow();
    expect(() => parseFilter(cond(`metadata.${keys(32).join('.')}`, 'exists', true))).not.toThrow();
    expect(issue(cond(['metadata', ...keys(33)], 'exists', true))).toEqual({
      loc: [...F, 'field'],
      msg: 'Value error, field path must have at most 32 keys',
      type: 'value_error',
    });
  });
});

describe('parseFilter: malformed filters', () => {
  it.each<[string, unknown, unknown[], string]>([
    ['not an object', 'x', [], 'model_attributes_type'],
    ['null', null, [], 'model_attributes_type'],
    ['a list', [], [], 'model_attributes_type'],
    ['an empty object', {}, [], 'value_error'],
    ['unknown members only', { foo: 1 }, [], 'value_error'],
    ['and with another member', { and: [], or: [] }, ['or'], 'extra_forbidden'],
    ['not with another member', { not: {}, field: 'x' }, ['field'], 'extra_forbidden'],
    ['and not a list', { and: {} }, ['and'], 'list_type'],
    ['or child not an object', { or: [1] }, ['or', 0], 'model_attributes_type'],
    ['not of a list', { not: [] }, ['not'], 'model_attributes_type'],
    ['a condition with an extra member', { ...cond('revision', 'eq', 1), x: 1 }, ['x'], 'extra_forbidden'],
    ['no field', { op: 'eq', value: 1 }, ['field'], 'missing'],
    ['no op', { field: 'revision', value: 1 }, ['op'], 'missing'],
    ['no value', { field: 'revision', op: 'eq' }, ['value'], 'missing'],
    ['no value for exists', { field: 'revision', op: 'exists' }, ['value'], 'missing'],
    ['an unknown op', cond('revision', 'like', 1), ['op'], 'literal_error'],
    ['an op in capitals', cond('revision', 'EQ', 1), ['op'], 'literal_error'],
    ['an op not a string', cond('revision', 1, 1), ['op'], 'literal_error'],
    ['an unknown field', cond('title', 'eq', 1), ['field'], 'value_error'],
    ['metadata without a key', cond('metadata', 'eq', 1), ['field'], 'value_error'],
    ['metadata with an empty key', cond('metadata.a..b', 'eq', 1), ['field'], 'value_error'],
    ['metadata with a trailing dot', cond('metadata.', 'eq', 1), ['field'], 'value_error'],
    ['an unknown root', cond('meta.a', 'eq', 1), ['field'], 'value_error'],
    ['a field of another type', cond(5, 'eq', 1), ['field'], 'value_error'],
    ['a list field with a fixed root', cond(['filename'], 'eq', 1), ['field'], 'value_error'],
    ['a list field without a key', cond(['metadata'], 'eq', 1), ['field'], 'value_error'],
    ['a list field with a number', cond(['metadata', 1], 'eq', 1), ['field', 1], 'string_type'],
    ['a lone surrogate in a field', cond('metadata.\ud800', 'eq', 1), ['field'], 'value_error'],
    ['a lone surrogate in a value', cond('metadata.a', 'eq', ['\udc00']), ['value', 0], 'value_error'],
    [
      'a lone surrogate in a value key',
      cond('metadata.a', 'eq', { '\udc00': 1 }),
      ['value', '\udc00'],
      'value_error',
    ],
    ['exists with a string', cond('metadata.a', 'exists', 'true'), ['value'], 'bool_type'],
    ['exists with null', cond('metadata.a', 'exists', null), ['value'], 'bool_type'],
    ['in with a string', cond('metadata.a', 'in', 'a'), ['value'], 'list_type'],
    ['prefix with a number', cond('filename', 'prefix', 1), ['value'], 'string_type'],
    [
      'a date that does not parse',
      cond('created_date', 'eq', '2024-13-01'),
      ['value'],
      'datetime_from_date_parsing',
    ],
    [
      'a date that is a number',
      cond('updated_date', 'lt', 1700000000000),
      ['value'],
      'datetime_from_date_parsing',
    ],
    [
      'a date in a list',
      cond('created_date', 'in', ['2024-01-01', 'soon']),
      ['value', 1],
      'datetime_from_date_parsing',
    ],
    ['a number that is not JSON', cond('revision', 'eq', Number.NaN), ['value'], 'value_error'],
    ['a value that is not JSON', cond('revision', 'eq', new Date(0)), ['value'], 'value_error'],
    ['undefined', cond('revision', 'eq', undefined), ['value'], 'value_error'],
  ])('%s', (_name, filter, loc, type) => {
    const found = issue(filter);
    expect(found.loc).toEqual([...F, ...loc]);
    expect(found.type).toBe(type);
  });

  it('reports nested problems where they are', () => {
    expect(
      issue({ and: [cond('revision', 'eq', 1), { or: [{ not: cond('metadata.a', 'in', 3) }] }] }).loc,
    ).toEqual([...F, 'and', 1, 'or', 0, 'not', 'value']);
  });

  it('never repeats the input in messages', () => {
    const secret = 'SECRET-VALUE';
    for (const filter of [
      cond(secret, 'eq', 1),
      cond('revision', secret, 1),
      { [secret]: 1 },
      cond('created_date', 'eq', secret),
    ]) {
      expect(issue(filter).msg).not.toContain(secret);
    }
  });
});
