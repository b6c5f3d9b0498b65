import { canonicalJson, decodeCursor, encodeCursor, InvalidInputError, SEARCH_LIMITS } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const KEY = new Uint8Array(32).fill(7);
const OTHER_KEY = new Uint8Array(32).fill(8);
const BINDING = {
  account: 'acc-1',
  projects: ['p1'],
  sort: 'filename',
  order: 'asc',
  prefix: 'notes/',
  delimiter: null,
};
const QUERY = ['query', 'cursor'];
const BODY = ['body', 'cursor'];
const PAYLOAD = { values: ['notes/a.md'], filename: 'notes/a.md', project: 'p1' };

async function refusal(
  token: unknown,
  binding: Record<string, unknown> = BINDING,
  key: Uint8Array = KEY,
  loc = QUERY,
) {
  try {
    await decodeCursor(token, binding, key, loc);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).issues;
  }
  throw new Error('expected a refusal');
}

const refused = (loc: string[]) => [{ loc, msg: 'Value error, invalid cursor', type: 'value_error' }];

const toBytes = (token: string) =>
  Uint8Array.from(atob(token.replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0));
const toToken = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');

describe('cursors', () => {
  it('round-trips any JSON payload, with raw or imported keys', async () => {
    const token = await encodeCursor(PAYLOAD, BINDING, KEY);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await decodeCursor(token, BINDING, KEY, QUERY)).toEqual(PAYLOAD);
    const key = await globalThis.crypto.subtle.importKey(
      'raw',
      KEY,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    expect(await decodeCursor(await encodeCursor(PAYLOAD, BINDING, key), BINDING, KEY, QUERY)).toEqual(
      PAYLOAD,
    );
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (payload) => {
        const roundTrip = await decodeCursor(await encodeCursor(payload, BINDING, KEY), BINDING, KEY, BODY);
        expect(roundTrip).toEqual(JSON.parse(JSON.stringify(payload)));
      }),
      { numRuns: 50 },
    );
  });

  it('binds to the binding in any key order, and to nothing else', async () => {
    const token = await encodeCursor(PAYLOAD, BINDING, KEY);
    const reordered = Object.fromEntries(Object.entries(BINDING).reverse());
    expect(await decodeCursor(token, reordered, KEY, QUERY)).toEqual(PAYLOAD);
    for (const other of [
      { ...BINDING, account: 'acc-2' },
      { ...BINDING, projects: ['p2'] },
      { ...BINDING, projects: ['p1', 'p2'] },
      { ...BINDING, sort: 'size_bytes' },
      { ...BINDING, order: 'desc' },
      { ...BINDING, prefix: 'notes' },
      { ...BINDING, delimiter: '/' },
      { ...BINDING, extra: 1 },
      { account: 'acc-1' },
    ]) {
      expect(await refusal(token, other)).toEqual(refused(QUERY));
    }
    expect(await refusal(token, BINDING, OTHER_KEY)).toEqual(refused(QUERY));
  });

  it('refuses every changed bit', async () => {
    const token = await encodeCursor(PAYLOAD, BINDING, KEY);
    const bytes = toBytes(token);
    for (let index = 0; index < bytes.length; index += 1) {
      for (const bit of [0x01, 0x80]) {
        const tampered = bytes.slice();
        tampered[index]! ^= bit;
        expect(await refusal(toToken(tampered), BINDING, KEY, BODY)).toEqual(refused(BODY));
      }
    }
  });

  it('refuses truncated, extended, empty and non-canonical tokens', async () => {
    const token = await encodeCursor(PAYLOAD, BINDING, KEY);
    const bytes = toBytes(token);
    for (const bad of [
      token.slice(0, -1),
      token.slice(0, -4),
      token.slice(1),
      `${token}A`,
      `${token}AA`,
      toToken(bytes.subarray(0, 33)),
      toToken(bytes.subarray(0, 32)),
      toToken(new Uint8Array([1])),
      '',
      `${token}=`,
      `${token.slice(0, 10)} ${token.slice(10)}`,
      token.replaceAll('-', '+').replaceAll('_', '/'),
      `${token}\n`,
    ]) {
      if (bad === token) continue;
      expect(await refusal(bad)).toEqual(refused(QUERY));
    }
  });

  it('refuses a token whose last character carries stray bits', async () => {
    // Find a token whose length leaves spare bits, then set them.
    let token = '';
    for (let n = 0; token.length % 4 === 0; n += 1) token = await encodeCursor({ n }, BINDING, KEY);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.at(-1)!);
    const stray = `${token.slice(0, -1)}${alphabet[last | 1]}`;
    expect(stray).not.toBe(token);
    expect(await refusal(stray)).toEqual(refused(QUERY));
  });

  it('refuses another version byte even with a valid MAC for it', async () => {
    const bytes = toBytes(await encodeCursor(PAYLOAD, BINDING, KEY));
    bytes[0] = 2;
    expect(await refusal(toToken(bytes))).toEqual(refused(QUERY));
  });

  it('refuses anything that is not a string', async () => {
    for (const value of [undefined, null, 1, ['a'], { token: 'a' }]) {
      expect(await refusal(value, BINDING, KEY, BODY)).toEqual(refused(BODY));
    }
  });

  it('takes tokens of 2 KiB and refuses longer ones before any work', async () => {
    expect(SEARCH_LIMITS.cursorMaxLength).toBe(2048);
    // A payload whose token is exactly 2048 characters: 1 + 32 + n bytes, 4 characters per 3 bytes.
    const exact = await encodeCursor('x'.repeat(1536 - 33 - 2), BINDING, KEY);
    expect(exact).toHaveLength(2048);
    expect(await decodeCursor(exact, BINDING, KEY, QUERY)).toBe('x'.repeat(1501));
    expect(await refusal(`${exact}A`)).toEqual(refused(QUERY));
    expect(await refusal('A'.repeat(1_000_000))).toEqual(refused(QUERY));
    await expect(encodeCursor('x'.repeat(1502), BINDING, KEY)).rejects.toThrow(RangeError);
    await expect(encodeCursor(undefined, BINDING, KEY)).rejects.toThrow(TypeError);
  });

  it('never repeats the token in the message', async () => {
    const secret = 'SECRETSECRET';
    const error = await decodeCursor(secret, BINDING, KEY, QUERY).catch((e: unknown) => e);
    expect((error as Error).message).not.toContain(secret);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null }, u: undefined })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson('x"y')).toBe('"x\\"y"');
    expect(canonicalJson({ '"': 1 })).toBe('{"\\"":1}');
  });
});
