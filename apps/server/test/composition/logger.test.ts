import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel, REDACT_PATHS, REDACTED } from '../../src/logger.js';
import { requestContext } from '../../src/request-context.js';

function collect(level: LogLevel) {
  const out: string[] = [];
  const err: string[] = [];
  const logger = createLogger({
    level,
    stdout: { write: (line) => out.push(line) },
    stderr: { write: (line) => err.push(line) },
  });
  const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, out, err, parse };
}

describe('createLogger', () => {
  it('writes one JSON object per line: debug/info to stdout, warn/error to stderr', () => {
    const { logger, out, err, parse } = collect('debug');
    logger.debug('d');
    logger.info('i', { port: 8080 });
    logger.warn('w');
    logger.error('e');
    expect(out.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    expect(parse(out).map((r) => [r.level, r.msg])).toEqual([
      ['debug', 'd'],
      ['info', 'i'],
    ]);
    expect(parse(out)[1]).toMatchObject({ port: 8080 });
    expect(parse(out)[0]!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(parse(err).map((r) => r.level)).toEqual(['warn', 'error']);
  });

  it('drops lines below the level, and everything when silent', () => {
    const warn = collect('warn');
    warn.logger.debug('d');
    warn.logger.info('i');
    warn.logger.warn('w');
    expect(warn.out).toEqual([]);
    expect(warn.err).toHaveLength(1);
    const silent = collect('silent');
    silent.logger.error('e');
    expect(silent.err).toEqual([]);
  });

  it('redacts fields named like authorization or API keys, at any depth', () => {
    const { logger, out } = collect('info');
    logger.info('request', {
      Authorization: 'Bearer secret-1',
      apiKey: 'secret-2',
      api_key: 'secret-3',
      headers: { authorization: 'Bearer secret-4', 'x-api-key': 'secret-5', host: 'h' },
      list: [{ API_KEY: 'secret-6' }],
    });
    expect(out[0]).not.toMatch(/secret-/);
    expect(JSON.parse(out[0]!)).toMatchObject({
      Authorization: '[redacted]',
      headers: { authorization: '[redacted]', host: 'h' },
      list: [{ API_KEY: '[redacted]' }],
    });
  });

  it('describes errors with their name, message, code and cause', () => {
    const { logger, err } = collect('info');
    const cause = new Error('socket hang up');
    const error = Object.assign(new Error('store down', { cause }), { code: 'STORE_UNAVAILABLE' });
    logger.error('failed', { error });
    const line = JSON.parse(err[0]!) as { error: Record<string, unknown> };
    expect(line.error).toMatchObject({ name: 'Error', message: 'store down', code: 'STORE_UNAVAILABLE' });
    expect(line.error.cause).toMatchObject({ message: 'socket hang up' });
    expect(typeof line.error.stack).toBe('string');
  });

  it('survives cyclic fields and bigints', () => {
    const { logger, out } = collect('info');
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    logger.info('cyclic', { cyclic });
    expect(JSON.parse(out[0]!)).toMatchObject({ msg: 'cyclic', cyclic: { n: '1' } });
  });

  it('redacts request bodies, contents and metadata by name, at any depth', () => {
    const { logger, out } = collect('info');
    logger.info('oops', {
      metadata: { tag: 'secret-1' },
      nested: { content: 'secret-2', deeper: [{ Body: 'secret-3', frontmatter: { a: 'secret-4' } }] },
      cookie: 'secret-5',
      kept: 'visible',
    });
    expect(out[0]).not.toMatch(/secret-/);
    expect(JSON.parse(out[0]!)).toMatchObject({ metadata: REDACTED, kept: 'visible' });
  });

  it("keeps only an error's name, message, code, stack and cause (a driver's `detail` may quote data)", () => {
    const { logger, err } = collect('info');
    const error = Object.assign(new Error('duplicate key'), {
      code: '23505',
      detail: 'Key (name)=(secret-row) already exists.',
      parameters: ['secret-param'],
    });
    logger.error('failed', { error });
    expect(err[0]).not.toMatch(/secret-/);
    expect(JSON.parse(err[0]!).error).toMatchObject({
      name: 'Error',
      message: 'duplicate key',
      code: '23505',
    });
  });

  it("adds the request's id to every line written while it is served", async () => {
    const { logger, out } = collect('info');
    logger.info('outside');
    await requestContext.run({ requestId: 'req-42' }, async () => {
      await Promise.resolve();
      logger.info('inside, after an await');
      logger.info('explicit wins', { request_id: 'given' });
    });
    expect(out.map((line) => JSON.parse(line).request_id)).toEqual([undefined, 'req-42', 'given']);
  });

  it('configures pino redaction that censors the paths a request or error would carry, on its own', () => {
    // The second line of defence, checked without the first: a bare pino with only these paths.
    const lines: string[] = [];
    const bare = pino(
      { redact: { paths: [...REDACT_PATHS], censor: REDACTED } },
      { write: (line: string) => lines.push(line) },
    );
    bare.info({
      authorization: 'secret-1',
      apiKey: 'secret-2',
      metadata: { a: 'secret-3' },
      headers: { authorization: 'secret-4', 'x-api-key': 'secret-5', cookie: 'secret-6', host: 'h' },
      req: { headers: { authorization: 'secret-7', 'proxy-authorization': 'secret-8' } },
      error: { body: 'secret-9', content: 'secret-10' },
    });
    expect(lines[0]).not.toMatch(/secret-/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ headers: { host: 'h', authorization: REDACTED } });
  });

  it('writes anything shaped like an API key as mds_[redacted], in the message, fields and errors', () => {
    const { logger, err, parse } = collect('info');
    const key = `mds_${'Ab-_9'.repeat(8)}xyz`;
    const error = new Error(`no file ${key}.md`);
    logger.error(`failed for ${key}`, {
      path: `/api/projects/${key}`,
      nested: { list: [`MDS%5F${key.slice(4)}`] },
      error,
      short: 'mds_tooShort',
    });
    const [line] = parse(err);
    expect(line).toMatchObject({
      msg: 'failed for mds_[redacted]',
      path: '/api/projects/mds_[redacted]',
      nested: { list: ['mds_[redacted]'] },
      error: { message: 'no file mds_[redacted].md' },
      short: 'mds_tooShort',
    });
    expect(err.join('')).not.toContain(key.slice(4));
  });
});
