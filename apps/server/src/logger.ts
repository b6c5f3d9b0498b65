/**
 * A small JSON-lines logger: one object per line, `debug`/`info` on stdout and `warn`/`error` on stderr.
 *
 * Callers must never pass API keys, `Authorization` headers or request bodies as fields. As a second
 * line of defence, any field named like `authorization`, `apiKey` or `api_key` (at any depth, any case)
 * is written as `[redacted]`.
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

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const REDACTED = '[redacted]';
const MAX_DEPTH = 8;

/** Field names whose values are secrets, compared without case, `-` or `_`. */
const SECRET_NAMES = new Set(['authorization', 'apikey', 'proxyauthorization', 'xapikey']);
const isSecretName = (name: string) => SECRET_NAMES.has(name.toLowerCase().replace(/[-_]/g, ''));

export function createLogger(options: LoggerOptions): Logger {
  const threshold = SEVERITY[options.level];
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const emit = (level: Exclude<LogLevel, 'silent'>) => (message: string, fields?: LogFields) => {
    if (SEVERITY[level] < threshold) return;
    const line = formatLine(level, message, { ...options.base, ...fields });
    (level === 'warn' || level === 'error' ? stderr : stdout).write(`${line}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function formatLine(level: string, message: string, fields: LogFields): string {
  const record = { time: new Date().toISOString(), level, msg: message, ...sanitise(fields, 0) };
  try {
    return JSON.stringify(record);
  } catch {
    return JSON.stringify({ time: record.time, level, msg: message, logError: 'unserialisable fields' });
  }
}

/** Copies the fields with secrets redacted, errors made readable, and cycles and depth bounded. */
function sanitise(value: LogFields, depth: number): LogFields {
  const out: LogFields = {};
  for (const [name, item] of Object.entries(value)) {
    out[name] = isSecretName(name) ? REDACTED : sanitiseValue(item, depth + 1);
  }
  return out;
}

function sanitiseValue(value: unknown, depth: number): unknown {
  if (value instanceof Error) return describeError(value, depth);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => sanitiseValue(item, depth + 1));
  return sanitise(value as LogFields, depth);
}

function describeError(error: Error, depth: number): LogFields {
  const code = (error as { code?: unknown }).code;
  const described: LogFields = { name: error.name, message: error.message };
  if (code !== undefined) described.code = code;
  if (error.stack) described.stack = error.stack;
  if (error.cause !== undefined && depth <= MAX_DEPTH)
    described.cause = sanitiseValue(error.cause, depth + 1);
  return described;
}
