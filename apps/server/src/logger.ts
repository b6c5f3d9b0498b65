import { hostname } from 'node:os';
import { redactApiKeys } from '@mdstore/core';
import { pino } from 'pino';
import { requestLogFields } from './request-context.js';

/**
 * Structured logs on pino: one JSON object per line, `debug`/`info` on stdout and `warn`/`error` on
 * stderr, each with `level` (a word), `time` (ISO 8601), `pid`, `hostname`, `msg`, and `request_id` for
 * lines written while a request is served.
 *
 * Callers must never pass API keys, `Authorization` headers, file contents or metadata values as
 * fields. Two lines of defence behind that rule: any field named like `authorization`, `apiKey`,
 * `metadata`, `content` or `body` (at any depth, any case) is written as `[redacted]`, and pino's own
 * redaction censors the same names at the places a request or error would put them. And anything
 * shaped like an API key (`mds_…`) in a message or a string field (a path, an error message, a stack)
 * is written as `mds_[redacted]`: a key pasted into a URL is still a key.
 */

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Where lines go; anything with a `write(string)` (a stream, or an array collector in tests). */
export interface LineSink {
  write(line: string): unknown;
}

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Receives `debug` and `info` lines. Default `process.stdout`. */
  readonly stdout?: LineSink;
  /** Receives `warn` and `error` lines. Default `process.stderr`. */
  readonly stderr?: LineSink;
  /** Fields added to every line (e.g. `{ component: 'cli' }`). */
  readonly base?: LogFields;
}

export const REDACTED = '[redacted]';
const MAX_DEPTH = 8;

/** Field names whose values are secrets or user data, compared without case, `-` or `_`. */
const SECRET_NAMES = new Set([
  'authorization',
  'proxyauthorization',
  'apikey',
  'xapikey',
  'cookie',
  'metadata',
  'content',
  'body',
  'frontmatter',
]);
const isSecretName = (name: string) => SECRET_NAMES.has(name.toLowerCase().replace(/[-_]/g, ''));

/** pino's redaction: the same names where a request, its headers or an error would carry them. */
const REDACT_NAMES = ['authorization', 'apiKey', 'api_key', 'metadata', 'content', 'body', 'cookie'];
export const REDACT_PATHS: readonly string[] = [
  ...REDACT_NAMES,
  ...REDACT_NAMES.map((name) => `*.${name}`),
  ...['headers', 'req.headers', 'request.headers'].flatMap((at) => [
    `${at}.authorization`,
    `${at}["proxy-authorization"]`,
    `${at}["x-api-key"]`,
    `${at}.cookie`,
  ]),
];

export function createLogger(options: LoggerOptions): Logger {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const log = pino(
    {
      level: options.level,
      base: { pid: process.pid, hostname: hostname(), ...options.base },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: requestLogFields,
      formatters: {
        level: (label) => ({ level: label }),
        // Runs before pino serialises: errors made readable, secrets cut, cycles and depth bounded.
        log: (fields) => sanitise(fields, 0),
      },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    },
    // Synchronous writes: a line logged just before `process.exit` is not lost.
    pino.multistream(
      [
        { level: 'debug', stream: stdout },
        { level: 'warn', stream: stderr },
      ],
      { dedupe: true },
    ),
  );
  const emit = (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: LogFields) => {
    if (fields) log[level](fields, redactApiKeys(message));
    else log[level](redactApiKeys(message));
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Copies the fields with secrets redacted, errors made readable, and cycles and depth bounded. */
function sanitise(value: LogFields, depth: number, ancestors = new Set<object>()): LogFields {
  ancestors.add(value);
  const out: LogFields = {};
  for (const [name, item] of Object.entries(value)) {
    out[name] = isSecretName(name) ? REDACTED : sanitiseValue(item, depth + 1, ancestors);
  }
  ancestors.delete(value);
  return out;
}

function sanitiseValue(value: unknown, depth: number, ancestors: Set<object>): unknown {
  if (typeof value === 'string') return redactApiKeys(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (ancestors.has(value)) return '[circular]';
  if (depth > MAX_DEPTH) return '[too deep]';
  if (value instanceof Error) return describeError(value, depth, ancestors);
  if (Array.isArray(value)) {
    ancestors.add(value);
    const items = value.map((item) => sanitiseValue(item, depth + 1, ancestors));
    ancestors.delete(value);
    return items;
  }
  return sanitise(value as LogFields, depth, ancestors);
}

/**
 * Name, message, code, stack and cause only: other enumerable properties of driver errors (a
 * PostgreSQL error's `detail`, `where`, parameters…) may quote stored values.
 */
function describeError(error: Error, depth: number, ancestors: Set<object>): LogFields {
  const code = (error as { code?: unknown }).code;
  const described: LogFields = { name: error.name, message: redactApiKeys(error.message) };
  if (typeof code === 'string' || typeof code === 'number') described.code = code;
  if (error.stack) described.stack = redactApiKeys(error.stack);
  if (error.cause !== undefined) {
    ancestors.add(error);
    described.cause = sanitiseValue(error.cause, depth + 1, ancestors);
    ancestors.delete(error);
  }
  return described;
}
