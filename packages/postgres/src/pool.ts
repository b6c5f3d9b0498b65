import pg from 'pg';

export interface PoolOptions {
  readonly connectionString: string;
  /** Already validated by `assertSchemaName`; undefined keeps the server's default search_path. */
  readonly schema: string | undefined;
  readonly poolMax: number;
  readonly connectTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly idleInTransactionTimeoutMs: number;
}

const INT8_OID = 20;

/**
 * int8 comes back as a JS number: every BIGINT column holds epoch milliseconds, byte sizes or counts,
 * all far below 2^53. Set per pool through `types`, so other users of `pg` in the process are unaffected.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export const assertSchemaName = (schema: string): string => {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(`Invalid schema name '${schema}': use letters, digits and '_' (at most 63)`);
  }
  return schema;
};

export const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Settings sent in the startup packet, so that every connection has them from its first statement on
 * (no extra round trip, no window in which a fresh connection runs without them).
 */
const startupOptions = (o: PoolOptions): string => {
  const settings = [
    `statement_timeout=${o.statementTimeoutMs}`,
    `idle_in_transaction_session_timeout=${o.idleInTransactionTimeoutMs}`,
  ];
  // The name is validated: no space or backslash to escape; quoted to keep its case.
  if (o.schema !== undefined) settings.push(`search_path=${quoteIdentifier(o.schema)}`);
  return settings.map((setting) => `-c ${setting}`).join(' ');
};

/**
 * The connection string and startup `options` to hand to `pg`: the string's own `options` parameter
 * (libpq's `-c name=value` list, e.g. `?options=-c%20synchronous_commit%3Doff`) comes first, then ours.
 * `pg` lets a connection string's parameters override the config's, so a string with `options` would
 * otherwise drop our settings (the schema's search_path among them) without a word.
 */
export const mergeStartupOptions = (
  connectionString: string,
  ours: string | undefined,
): { connectionString: string; options?: string } => {
  let url: URL | undefined;
  try {
    url = new URL(connectionString);
  } catch {
    url = undefined;
  }
  const theirs = url?.searchParams.get('options') ?? null;
  if (url === undefined || theirs === null) {
    return ours === undefined ? { connectionString } : { connectionString, options: ours };
  }
  url.searchParams.delete('options');
  const options = [theirs.trim(), ours].filter((part) => part !== undefined && part !== '').join(' ');
  return { connectionString: url.toString(), ...(options !== '' && { options }) };
};

export interface ManagedPool {
  readonly pool: pg.Pool;
  /** The last error the pool reported for an idle connection (e.g. the server closed it), if any. */
  lastError(): Error | undefined;
}

export const createPool = (o: PoolOptions): ManagedPool => {
  let lastError: Error | undefined;
  const pool = new pg.Pool({
    ...mergeStartupOptions(o.connectionString, startupOptions(o)),
    max: o.poolMax,
    connectionTimeoutMillis: o.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'mdstore',
    types,
  });
  // An idle connection that dies (server restart, network cut) is already removed from the pool;
  // without a listener the emitted 'error' would crash the process. The next checkout reconnects.
  pool.on('error', (error) => {
    lastError = error;
  });
  return { pool, lastError: () => lastError };
};
