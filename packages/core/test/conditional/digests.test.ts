import { createHash } from 'node:crypto';
import { formatReprDigest, parseDigestField, parseSha256Hex } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const sha256 = (text: string) => createHash('sha256').update(text).digest();
/** The example representation of RFC 9530 §2, `{"hello": "world"}`. */
const HELLO = sha256('{"hello": "world"}');
const HELLO_HEX = HELLO.toString('hex');
const HELLO_B64 = HELLO.toString('base64');
const SHA512_B64 = createHash('sha512').update('{"hello": "world"}').digest('base64');

describe('parseDigestField (Content-Digest / Repr-Digest, RFC 9530)', () => {
  it('reads the RFC 9530 example', () => {
    expect(HELLO_B64).toBe('X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=');
    expect(parseDigestField(`sha-256=:${HELLO_B64}:`)).toEqual({ kind: 'sha-256', hex: HELLO_HEX });
  });

  it.each([
    ['after another algorithm', `sha-512=:${SHA512_B64}:, sha-256=:${HELLO_B64}:`],
    ['before another algorithm', `sha-256=:${HELLO_B64}:, sha-512=:${SHA512_B64}:`],
    ['with parameters', `sha-256=:${HELLO_B64}:;a=1;b;c="x"`],
    [
      'among members of every type',
      `a=1, b=2.5, c="s", d=tok/en, e=?0, f, g=(1 "x");p, h=@1, i=%"%c3%a9", sha-256=:${HELLO_B64}:`,
    ],
    ['without padding', `sha-256=:${HELLO_B64.replace('=', '')}:`],
    ['with spaces and tabs around commas', ` md5=:AAAA:\t,\t sha-256=:${HELLO_B64}: `],
    ['after a repeated member (the last value wins)', `sha-256=:AAAA:, sha-256=:${HELLO_B64}:`],
  ])('finds sha-256 %s', (_, value) => {
    expect(parseDigestField(value)).toEqual({ kind: 'sha-256', hex: HELLO_HEX });
  });

  it.each([
    ['absent', undefined],
    ['empty (an empty dictionary)', ''],
    ['only spaces', '   '],
    ['only other algorithms', `sha-512=:${SHA512_B64}:, md5=:AAAA:`],
    ['another algorithm whose value is not even bytes', 'sha-512=1, unixsum=?1, id-sha-256=(1 2)'],
    ['it is only inside a string', 'x="sha-256=:AAAA:"'],
    [
      'it is a parameter of another member (semicolons, not commas)',
      `sha-512=:${SHA512_B64}:; sha-256=:${HELLO_B64}:`,
    ],
  ])('has no sha-256 when %s', (_, value) => {
    expect(parseDigestField(value)).toEqual({ kind: 'absent' });
  });

  it.each([
    ['31 bytes', `sha-256=:${Buffer.alloc(31).toString('base64')}:`],
    ['33 bytes', `sha-256=:${Buffer.alloc(33).toString('base64')}:`],
    ['no bytes', 'sha-256=::'],
    ['hex instead of base64', `sha-256=:${HELLO_HEX}:`],
    ['base64 without the colons', `sha-256=${HELLO_B64}`],
    ['a string', `sha-256="${HELLO_B64}"`],
    ['a token', 'sha-256=abc'],
    ['a string of 32 characters', `sha-256="${'a'.repeat(32)}"`],
    ['a token of 32 characters', `sha-256=${'a'.repeat(32)}`],
    ['a boolean (bare key)', 'sha-256'],
    ['a boolean with parameters', 'sha-256;a=1'],
    ['an inner list', `sha-256=(:${HELLO_B64}:)`],
    ['an unterminated byte sequence', `sha-256=:${HELLO_B64}`],
    ['characters outside base64', `sha-256=:${HELLO_B64.slice(0, -2)}-_:`],
    ['padding in the middle', `sha-256=:X48E=qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:`],
    ['a base64 length that cannot be', `sha-256=:${HELLO_B64.slice(0, -2)}:`],
    ['spaces inside', `sha-256=: ${HELLO_B64}:`],
    ['an upper-case key', `SHA-256=:${HELLO_B64}:`],
    ['a trailing comma', `sha-256=:${HELLO_B64}:,`],
    ['a broken other member', `sha-256=:${HELLO_B64}:, md5=:AA`],
    ['a broken other member before it', `md5=(, sha-256=:${HELLO_B64}:`],
    ['a control character', `sha-256=:${HELLO_B64}:\u0000`],
    ['a non-ASCII character', `sha-256=:${HELLO_B64}:, x="é"`],
  ])('is malformed with %s', (_, value) => {
    expect(parseDigestField(value)).toEqual({ kind: 'malformed' });
  });

  it('never throws on hostile input', () => {
    const hostile = [
      `sha-256=:${'A'.repeat(1_000_000)}:`,
      `sha-256=:${'A'.repeat(1_000_000)}`,
      `${'a=1, '.repeat(100_000)}sha-256=:${HELLO_B64}:`,
      `a=${'('.repeat(10_000)}`,
      `a="${'\\'.repeat(100_001)}`,
      ' '.repeat(100_000),
      '\u0000\u0001\u001f\u007f',
      'sha-256=:\r\n:',
      '\ud800',
    ];
    for (const value of hostile)
      expect(['absent', 'malformed', 'sha-256']).toContain(parseDigestField(value).kind);
    expect(parseDigestField(`${'a=1, '.repeat(100_000)}sha-256=:${HELLO_B64}:`)).toEqual({
      kind: 'sha-256',
      hex: HELLO_HEX,
    });
  });

  it('never throws on random input around the syntax', () => {
    const unit = fc.constantFrom(...'sha-256=:,;()"?@%\\ \tAZaz09+/'.split(''), '\u0000', '\u00e9');
    fc.assert(
      fc.property(fc.string({ unit }), (value) => {
        expect(['absent', 'malformed', 'sha-256']).toContain(parseDigestField(value).kind);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('formatReprDigest', () => {
  it('writes the RFC 9530 example', () => {
    expect(formatReprDigest(HELLO_HEX)).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
  });

  it('round-trips any digest through parseDigestField', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const hex = Buffer.from(bytes).toString('hex');
        expect(formatReprDigest(hex)).toBe(`sha-256=:${Buffer.from(bytes).toString('base64')}:`);
        expect(parseDigestField(formatReprDigest(hex))).toEqual({ kind: 'sha-256', hex });
      }),
    );
  });

  it.each([
    ['upper-case hex', HELLO_HEX.toUpperCase()],
    ['63 digits', HELLO_HEX.slice(1)],
    ['65 digits', `${HELLO_HEX}0`],
    ['a non-hex character', `${HELLO_HEX.slice(1)}g`],
  ])('refuses %s', (_, value) => {
    expect(() => formatReprDigest(value)).toThrow(
      new RangeError('A SHA-256 digest is 64 lower-case hex digits'),
    );
  });
});

describe('parseSha256Hex (the upload form field sha256)', () => {
  it('reads 64 lower-case hex digits', () => {
    expect(parseSha256Hex(HELLO_HEX)).toEqual({ kind: 'sha-256', hex: HELLO_HEX });
    expect(parseSha256Hex('0'.repeat(64))).toEqual({ kind: 'sha-256', hex: '0'.repeat(64) });
    expect(parseSha256Hex('f'.repeat(64))).toEqual({ kind: 'sha-256', hex: 'f'.repeat(64) });
  });

  it('is absent when not sent', () => {
    expect(parseSha256Hex(undefined)).toEqual({ kind: 'absent' });
  });

  it.each([
    ['empty', ''],
    ['upper-case', HELLO_HEX.toUpperCase()],
    ['63 digits', HELLO_HEX.slice(1)],
    ['65 digits', `${HELLO_HEX}a`],
    ['a g', `g${HELLO_HEX.slice(1)}`],
    ['a leading space', ` ${HELLO_HEX}`],
    ['a trailing newline', `${HELLO_HEX}\n`],
    ['base64', HELLO_B64],
    ['the header form', `sha-256=:${HELLO_B64}:`],
  ])('is malformed when %s', (_, value) => {
    expect(parseSha256Hex(value)).toEqual({ kind: 'malformed' });
  });
});
