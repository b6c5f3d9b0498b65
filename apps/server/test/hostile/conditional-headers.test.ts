import { describe, expect } from 'vitest';
import { multipartBody } from '../support/http-harness.js';
import { exchange, expectHealthy, type HostileContext, hostileTest, listedFiles } from './support.js';

/**
 * Hostile conditional, range and digest headers (extensions §2): malformed values, huge lists, control
 * and non-ASCII bytes, range bombs and enormous numbers. Each gets a clear 4xx or the defined fallback
 * (the whole file, the precondition ignored or failed), never a 500, in bounded time; the file is never
 * changed by a request whose precondition or digest could not be read.
 */
const test = hostileTest({ settings: { maxFileBytes: 64 * 1024 } });

const CONTENT = '# hostile conditions\nsome text\n';
/** Well under Node's 16 KiB header limit, so that the server, not the parser, judges them. */
const LONG = 12_000;
/** Each request must be answered in this time: no header value may cost more than linear work. */
const ANSWER_MS = 2_000;

async function withFile(ctx: HostileContext) {
  const { apiKey, defaultProjectId } = ctx.account;
  const file = (await ctx.h.uploadFile(apiKey, defaultProjectId, 'h.md', CONTENT)) as { etag: string };
  return { path: `/api/projects/${defaultProjectId}/files/h.md`, etag: file.etag };
}

/** One raw request (latin1, so any byte can be sent) with the account's key; the status and the time. */
async function send(
  ctx: HostileContext,
  o: { method: string; path: string; lines: string[]; body?: string | Buffer },
): Promise<{
  status: number | undefined;
  ms: number;
  headers: Map<string, string> | undefined;
  body: string;
}> {
  const body = o.body === undefined ? undefined : Buffer.from(o.body);
  const lines = [...o.lines];
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  const head =
    `${o.method} ${o.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
    `Authorization: Bearer ${ctx.account.apiKey}\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n`;
  const started = performance.now();
  const { response } = await exchange(
    ctx,
    body ? [Buffer.from(head, 'latin1'), body] : Buffer.from(head, 'latin1'),
  );
  return {
    status: response?.status,
    ms: performance.now() - started,
    headers: response?.headers,
    body: response?.body ?? '',
  };
}

const CONTROL = '\x01\x07\x1b\x7f';
const HIGH = '\xff\xfe\xe9';

const ENTITY_TAG_VALUES: Array<[string, string]> = [
  ['lone quote', '"'],
  ['unterminated', '"abc'],
  ['bare W/', 'W/'],
  ['weak unterminated', 'W/"x'],
  ['two stars', '*, *'],
  ['star and tag', '*, "a"'],
  ['empty tag', '""'],
  ['empty elements', '"a",,, ,"b"'],
  ['only commas', ','.repeat(LONG)],
  ['only spaces', ' '.repeat(LONG)],
  ['huge list', Array.from({ length: 1500 }, (_, i) => `"t${i}"`).join(',')],
  ['huge weak list', Array.from({ length: 1000 }, (_, i) => `W/"t${i}"`).join(', ')],
  ['one huge tag', `"${'x'.repeat(LONG)}"`],
  ['unterminated huge', `"${'x'.repeat(LONG)}`],
  ['quote runs', '"'.repeat(LONG)],
  ['W/ runs', 'W/'.repeat(LONG / 2)],
  ['control characters', `"a${CONTROL}b"`],
  ['high bytes', `"${HIGH}"`],
  ['tag glued to tag', '"a""b"'],
  ['lowercase weak', 'w/"a"'],
];

const DATE_VALUES: Array<[string, string]> = [
  ['garbage', 'not a date'],
  ['year 0000', 'Sat, 01 Jan 0000 00:00:00 GMT'],
  ['year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
  ['out of range fields', 'Sun, 99 Xyz 1994 99:99:99 GMT'],
  ['leap second', 'Sun, 06 Nov 1994 23:59:60 GMT'],
  ['31 February', 'Sun, 31 Feb 2026 00:00:00 GMT'],
  ['huge digits', `Sun, 06 Nov ${'9'.repeat(LONG)} 08:49:37 GMT`],
  ['padded', `${' '.repeat(LONG)}Sun, 06 Nov 1994 08:49:37 GMT${'\t'.repeat(100)}`],
  ['RFC 850 two-digit year', 'Sunday, 06-Nov-94 08:49:37 GMT'],
  ['asctime', 'Sun Nov  6 08:49:37 1994'],
  ['epoch number', '1700000000'],
  ['ISO', '2026-11-21T10:29:36Z'],
  ['control characters', `Sun, 06 Nov 1994 08:49:37 GMT${CONTROL}`],
  ['high bytes', `Sun, 06 Nov 1994 08:49:37 ${HIGH}`],
];

const RANGE_VALUES: Array<[string, string]> = [
  ['thousands of 0-0', `bytes=${Array(1200).fill('0-0').join(',')}`],
  ['thousands of suffixes', `bytes=${Array(1200).fill('-1').join(',')}`],
  ['only commas', `bytes=${','.repeat(LONG)}`],
  ['huge start', `bytes=${'9'.repeat(LONG)}-`],
  ['huge end', `bytes=0-${'9'.repeat(LONG)}`],
  ['huge suffix', `bytes=-${'9'.repeat(LONG)}`],
  ['huge both', `bytes=${'9'.repeat(LONG / 2)}-${'9'.repeat(LONG / 2 - 20)}`],
  ['leading zeros', `bytes=${'0'.repeat(LONG)}1-2`],
  ['negative', 'bytes=-5-2'],
  ['three parts', 'bytes=1-2-3'],
  ['dashes', `bytes=${'-'.repeat(LONG)}`],
  ['exponent', 'bytes=1e3-2e3'],
  ['fractions', 'bytes=0.5-1.5'],
  ['unicode digits', 'bytes=\xd9\xa1-\xd9\xa2'],
  ['control characters', `bytes=0-1${CONTROL}`],
  ['other unit', 'items=0-1'],
  ['no equals', 'bytes 0-1'],
  ['long unit', `${'b'.repeat(LONG)}=0-1`],
];

const DIGEST_VALUES: Array<[string, string]> = [
  ['long byte sequence', `sha-256=:${'A'.repeat(LONG)}:`],
  ['unterminated byte sequence', `sha-256=:${'A'.repeat(LONG)}`],
  ['many members', Array.from({ length: 1200 }, (_, i) => `k${i}=1`).join(', ')],
  ['many parameters', `sha-256=:AAAA:${';p=1'.repeat(2500)}`],
  ['inner lists', `sha-256=(${'1 '.repeat(3000)})`],
  ['nested parentheses', `sha-256=${'('.repeat(LONG)}`],
  ['integer', 'sha-256=1'],
  ['boolean', 'sha-256=?1'],
  ['string', 'sha-256="abc"'],
  ['padding only', 'sha-256=:====:'],
  ['31 bytes', `sha-256=:${Buffer.alloc(31).toString('base64')}:`],
  ['33 bytes', `sha-256=:${Buffer.alloc(33).toString('base64')}:`],
  ['upper-case key', `SHA-256=:${Buffer.alloc(32).toString('base64')}:`],
  ['control characters', `sha-256=:AAAA${CONTROL}:`],
  ['high bytes', `sha-256=:${HIGH}:`],
  ['huge integer', `sha-256=${'9'.repeat(LONG)}`],
  ['huge decimal', `sha-256=1.${'9'.repeat(LONG)}`],
  ['long string', `sha-256="${'a'.repeat(LONG)}"`],
  ['display string', `sha-256=%"${'%zz'.repeat(1000)}"`],
  ['date', 'sha-256=@99999999999999999999'],
  ['trailing comma', `sha-256=:${Buffer.alloc(32).toString('base64')}:,`],
  ['empty', ''],
];

function expectNever500(
  label: string,
  answer: { status: number | undefined; ms: number },
  allowed: readonly number[],
): void {
  expect(answer.status, label).toBeDefined();
  expect(allowed, `${label}: ${answer.status}`).toContain(answer.status);
  expect(answer.ms, `${label}: ${answer.ms.toFixed(0)} ms`).toBeLessThan(ANSWER_MS);
}

async function expectFileIntact(ctx: HostileContext, path: string, etag: string): Promise<void> {
  const response = await ctx.h.fetch(path, { key: ctx.account.apiKey });
  expect(response.headers.get('etag')).toBe(etag);
  expect(await response.text()).toBe(CONTENT);
}

describe('hostile conditional, range and digest headers', () => {
  test('If-Match that cannot match: 412 on reads and writes, nothing changes; never 500', async (ctx) => {
    const { path, etag } = await withFile(ctx);
    for (const [name, value] of ENTITY_TAG_VALUES) {
      const label = `If-Match ${name}`;
      const read = await send(ctx, { method: 'GET', path, lines: [`If-Match: ${value}`] });
      // The parser may refuse a byte it does not allow in a header (400).
      expectNever500(label, read, [400, 412]);
      const write = await send(ctx, {
        method: 'PUT',
        path: `${path}/content`,
        lines: [`If-Match: ${value}`, 'Content-Type: text/markdown'],
        body: '# overwritten',
      });
      // A condition that cannot be read never lets a write through, nor does a list without the tag.
      expectNever500(label, write, [400, 412]);
      const remove = await send(ctx, { method: 'DELETE', path, lines: [`If-Match: ${value}`] });
      expectNever500(label, remove, [400, 412]);
    }
    await expectFileIntact(ctx, path, etag);
    await expectHealthy(ctx);
  });

  test('If-None-Match: unreadable fails a write (412) and is disregarded on a read; never 500', async (ctx) => {
    const { path } = await withFile(ctx);
    for (const [name, value] of ENTITY_TAG_VALUES) {
      const label = `If-None-Match ${name}`;
      const read = await send(ctx, { method: 'GET', path, lines: [`If-None-Match: ${value}`] });
      expectNever500(label, read, [200, 400]);
      // A readable list without the current tag lets the write through: it writes the same bytes.
      const write = await send(ctx, {
        method: 'PUT',
        path: `${path}/content`,
        lines: [`If-None-Match: ${value}`, 'Content-Type: text/markdown'],
        body: CONTENT,
      });
      expectNever500(label, write, [200, 400, 412]);
    }
    const unreadable = await send(ctx, {
      method: 'PUT',
      path: `${path}/content`,
      lines: ['If-None-Match: "unterminated', 'Content-Type: text/markdown'],
      body: '# overwritten',
    });
    expect(unreadable.status).toBe(412);
    const now = await ctx.h.fetch(path, { key: ctx.account.apiKey });
    expect(await now.text()).toBe(CONTENT);
    await expectHealthy(ctx);
  });

  test('malformed dates are ignored (RFC 9110 §13.1.3-4), never 500', async (ctx) => {
    const { path } = await withFile(ctx);
    for (const [name, value] of DATE_VALUES) {
      for (const header of ['If-Modified-Since', 'If-Unmodified-Since', 'If-Range']) {
        const lines = [`${header}: ${value}`, ...(header === 'If-Range' ? ['Range: bytes=0-1'] : [])];
        const read = await send(ctx, { method: 'GET', path, lines });
        expectNever500(`${header} ${name}`, read, [200, 206, 304, 400, 412]);
      }
      const write = await send(ctx, {
        method: 'PUT',
        path,
        lines: [`If-Unmodified-Since: ${value}`, 'Content-Type: application/json'],
        body: '{"metadata":{"n":1}}',
      });
      // A valid date in the past fails (412); an invalid one is ignored and the write goes through.
      expectNever500(`If-Unmodified-Since write ${name}`, write, [200, 400, 412]);
    }
    await expectHealthy(ctx);
    const now = await ctx.h.fetch(path, { key: ctx.account.apiKey });
    expect(await now.text()).toBe(CONTENT);
  });

  test('range bombs and enormous numbers: 200 whole, 206 or 416, in bounded time', async (ctx) => {
    const { path } = await withFile(ctx);
    for (const [name, value] of RANGE_VALUES) {
      for (const method of ['GET', 'HEAD']) {
        const answer = await send(ctx, { method, path, lines: [`Range: ${value}`] });
        expectNever500(`${method} Range ${name}`, answer, [200, 206, 400, 416]);
        if (answer.status === 200 && method === 'GET') expect(answer.body, name).toBe(CONTENT);
        if (answer.status === 416)
          expect(answer.headers?.get('content-range')).toBe(`bytes */${CONTENT.length}`);
      }
    }
    // The big ones, exactly: many ranges are served whole, a huge start is past the end.
    const bomb = await send(ctx, { method: 'GET', path, lines: [`Range: ${RANGE_VALUES[0]![1]}`] });
    expect(bomb.status).toBe(200);
    const huge = await send(ctx, { method: 'GET', path, lines: [`Range: bytes=${'9'.repeat(LONG)}-`] });
    expect(huge.status).toBe(416);
    const hugeEnd = await send(ctx, { method: 'GET', path, lines: [`Range: bytes=0-${'9'.repeat(LONG)}`] });
    expect(hugeEnd.status).toBe(206);
    expect(hugeEnd.body).toBe(CONTENT);
    await expectHealthy(ctx);
  });

  test('malformed Content-Digest / Repr-Digest: 400 or ignored, never stored unchecked, never 500', async (ctx) => {
    const { path, etag } = await withFile(ctx);
    for (const [name, value] of DIGEST_VALUES) {
      for (const header of ['Content-Digest', 'Repr-Digest']) {
        const answer = await send(ctx, {
          method: 'PUT',
          path: `${path}/content`,
          lines: [`${header}: ${value}`, 'Content-Type: text/markdown', `If-Match: "no"`],
          body: '# maybe',
        });
        // With the stale If-Match the write can never succeed: 400 for the field, else 412.
        expectNever500(`${header} ${name}`, answer, [400, 412]);
        if (answer.status === 400 && answer.body.startsWith('{"detail":[')) {
          const issues = JSON.parse(answer.body).detail as Array<{ loc: string[]; type: string }>;
          expect(issues.map((issue) => issue.loc)).toEqual([['header', header.toLowerCase()]]);
          expect(issues[0]!.type).toBe('value_error');
        }
      }
    }
    await expectFileIntact(ctx, path, etag);
    await expectHealthy(ctx);
  });

  test('hostile sha256 form fields: 400, nothing stored, never 500', async (ctx) => {
    const projectPath = `/api/projects/${ctx.account.defaultProjectId}/files`;
    const values = [
      'A'.repeat(64),
      'g'.repeat(64),
      '0'.repeat(63),
      '0'.repeat(65),
      `${'0'.repeat(64)}\n`,
      '0'.repeat(900_000),
      `\u0000${'0'.repeat(63)}`,
      'é'.repeat(32),
      '',
    ];
    for (const [index, value] of values.entries()) {
      for (const late of [false, true]) {
        const parts = [
          { name: 'file', filename: `s${index}.md`, data: '# x' },
          { name: 'sha256', data: value },
        ];
        const form = multipartBody(late ? parts : parts.reverse());
        const answer = await send(ctx, {
          method: 'POST',
          path: projectPath,
          lines: [`Content-Type: ${form.contentType}`],
          body: form.body,
        });
        expectNever500(`sha256 #${index} ${late ? 'late' : 'early'}`, answer, [400]);
      }
    }
    const twice = multipartBody([
      { name: 'sha256', data: '0'.repeat(64) },
      { name: 'sha256', data: '1'.repeat(64) },
      { name: 'file', filename: 'twice.md', data: '# x' },
    ]);
    const repeated = await send(ctx, {
      method: 'POST',
      path: projectPath,
      lines: [`Content-Type: ${twice.contentType}`],
      body: twice.body,
    });
    expectNever500('two sha256 fields', repeated, [400]);
    expect((await listedFiles(ctx)).files).toEqual([]);
    await expectHealthy(ctx);
  });
});
