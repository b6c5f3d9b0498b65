import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BareItem,
  type Item,
  type Member,
  parseDictionary,
  parseItem,
  parseList,
} from '../../src/conditional/structured-fields.js';

/**
 * The parser against the HTTP WG's Structured Field test suite (vendored in `structured-field-tests/`,
 * see its README): every parsing case, with its expected value. A `can_fail` case (the RFC's SHOULDs)
 * may fail; when it parses, the value must be the expected one.
 */

interface SuiteCase {
  readonly name: string;
  readonly raw: readonly string[];
  readonly header_type: 'item' | 'list' | 'dictionary';
  readonly expected?: unknown;
  readonly must_fail?: boolean;
  readonly can_fail?: boolean;
}

const folder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'structured-field-tests');
const suite = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .flatMap((file) =>
    (JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as SuiteCase[]).map((test) => ({
      file,
      ...test,
    })),
  );

/** RFC 4648 base32, which the suite uses for byte sequences. */
function base32Decode(text: string): number[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  return (bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2));
}

/** Our values in the suite's JSON shape. */
function bare(value: BareItem): unknown {
  switch (value.type) {
    case 'token':
      return { __type: 'token', value: value.value };
    case 'byte-sequence':
      return { __type: 'binary', value: Array.from(value.value) };
    case 'date':
      return { __type: 'date', value: value.value };
    case 'display-string':
      return { __type: 'displaystring', value: value.value };
    case 'integer':
    case 'decimal':
    case 'string':
    case 'boolean':
      return value.value;
  }
}
const params = (parameters: ReadonlyMap<string, BareItem>) =>
  [...parameters].map(([key, v]) => [key, bare(v)]);
const item = (it: Item) => [bare(it.value), params(it.parameters)];
const member = (m: Member) => (m.kind === 'item' ? item(m) : [m.items.map(item), params(m.parameters)]);

/** The suite's expected value with base32 byte sequences decoded, so both sides compare as arrays. */
function normalise(expected: unknown): unknown {
  if (Array.isArray(expected)) return expected.map(normalise);
  if (typeof expected === 'object' && expected !== null) {
    const typed = expected as { __type: string; value: unknown };
    if (typed.__type === 'binary') return { __type: 'binary', value: base32Decode(typed.value as string) };
    return typed;
  }
  return expected;
}

function parse(test: SuiteCase): unknown {
  const value = test.raw.join(', ');
  if (test.header_type === 'item') {
    const parsed = parseItem(value);
    return parsed && item(parsed);
  }
  if (test.header_type === 'list') return parseList(value)?.map(member);
  const parsed = parseDictionary(value);
  return parsed && [...parsed].map(([key, m]) => [key, member(m)]);
}

describe('Structured Field parser (RFC 9651) against the HTTP WG test suite', () => {
  it('has the suite', () => {
    expect(suite.length).toBeGreaterThan(1500);
  });

  it.each(suite.map((test) => [`${test.file}: ${test.name}`, test] as const))('%s', (_, test) => {
    const parsed = parse(test);
    if (test.must_fail) {
      expect(parsed).toBeUndefined();
    } else if (!(test.can_fail && parsed === undefined)) {
      expect(parsed).toEqual(normalise(test.expected));
    }
  });
});

describe('Structured Field parser: beyond the suite', () => {
  it('parses 1024 members, 256 parameters and long tokens (the minimums of §4.2)', () => {
    const members = Array.from({ length: 1024 }, (_, i) => `k${i}=t${'x'.repeat(512)}`).join(', ');
    expect(parseDictionary(members)?.size).toBe(1024);
    const parameters = Array.from({ length: 256 }, (_, i) => `;p${i}=${i}`).join('');
    expect(parseItem(`1${parameters}`)?.parameters.size).toBe(256);
  });

  it('never gives a negative zero', () => {
    expect(Object.is(parseItem('-0')?.value.value, 0)).toBe(true);
    expect(Object.is(parseItem('-0.0')?.value.value, 0)).toBe(true);
    expect(parseItem('-12.5')?.value).toEqual({ type: 'decimal', value: -12.5 });
    expect(parseItem('-12')?.value).toEqual({ type: 'integer', value: -12 });
  });

  it('reads a date followed by parameters and further members', () => {
    const dictionary = parseDictionary('a=@1659578233;p=?0, b=@-5');
    expect(dictionary?.get('a')).toEqual({
      kind: 'item',
      value: { type: 'date', value: 1659578233 },
      parameters: new Map([['p', { type: 'boolean', value: false }]]),
    });
    expect(dictionary?.get('b')).toEqual({
      kind: 'item',
      value: { type: 'date', value: -5 },
      parameters: new Map(),
    });
  });

  it('keeps a byte order mark in a display string', () => {
    expect(parseItem('%"%ef%bb%bfa"')?.value).toEqual({ type: 'display-string', value: '\ufeffa' });
  });

  it('refuses DEL and the end of input in strings and display strings', () => {
    expect(parseItem('%"a\u007f"')).toBeUndefined();
    expect(parseItem('"a\u007f"')).toBeUndefined();
    expect(parseItem('%"~ "')?.value).toEqual({ type: 'display-string', value: '~ ' });
    expect(parseItem('"~ "')?.value).toEqual({ type: 'string', value: '~ ' });
    expect(parseItem('%"a')).toBeUndefined();
    expect(parseItem('"a')).toBeUndefined();
    expect(parseItem('"a\\')).toBeUndefined();
  });

  it('starts a display string only with %', () => {
    for (const start of ['!', '&', '#', '$', '^', '~']) expect(parseItem(`${start}"a"`)).toBeUndefined();
    expect(parseItem('%"a"')?.value).toEqual({ type: 'display-string', value: 'a' });
  });

  it('refuses non-ASCII input wherever it stands', () => {
    for (const field of [
      'é',
      'a=é',
      'a="é"',
      'a=%"é"',
      'a=:é:',
      'a=1;é',
      'aé=1',
      'a=1,\u00a0b=2',
      'a=(1\u00a02)',
    ]) {
      expect(parseDictionary(field)).toBeUndefined();
    }
  });

  it('tells integers from decimals', () => {
    expect(parseItem('12')?.value).toEqual({ type: 'integer', value: 12 });
    expect(parseItem('12.0')?.value).toEqual({ type: 'decimal', value: 12 });
    expect(parseItem('1.2.3')).toBeUndefined();
  });

  it('reads an empty inner list with spaces', () => {
    expect(parseItem('( )')).toBeUndefined();
    expect(parseList('( );a')).toEqual([
      { kind: 'inner-list', items: [], parameters: new Map([['a', { type: 'boolean', value: true }]]) },
    ]);
  });

  it('accepts HTAB around dictionary commas but not at the start', () => {
    expect(parseDictionary('a=1\t,\tb=2')?.size).toBe(2);
    expect(parseDictionary('\ta=1')).toBeUndefined();
  });

  it('never throws, and ignores spaces around the field (§4.2), whatever the input', () => {
    const alphabet = fc.constantFrom(...'abz*09-_.;=,:"()?@%\\ \t+/AZ\u0000\u007f\u00e9'.split(''));
    const unit = fc.oneof(
      alphabet,
      fc.integer({ min: 0, max: 0x2ff }).map((code) => String.fromCharCode(code)),
    );
    fc.assert(
      fc.property(fc.string({ unit }), (input) => {
        for (const parse of [parseDictionary, parseList, parseItem]) {
          expect(parse(`  ${input}  `)).toEqual(parse(input));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
