import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel } from '../../src/logger.js';

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
});
