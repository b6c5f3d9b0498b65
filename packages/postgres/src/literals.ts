import pg from 'pg';

/**
 * A statement's parameters written into its text as literals, for statements sent together in one
 * simple-protocol message (which takes no parameters). Every value becomes a quoted literal of unknown
 * type, as a parameter sent by `pg` is (text, type unspecified): Postgres gives it the type its place
 * asks for, so `'12'` fills a bigint column as `$1` with the value 12 does. Strings are quoted with
 * `pg.escapeLiteral` (quotes doubled; backslashes doubled in an `E''` string).
 */
export function inlineParameters(sql: string, values: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, index: string) => literal(values[Number(index) - 1]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return `'${String(value)}'`;
  // bytea in its hex input form.
  if (value instanceof Uint8Array)
    return pg.escapeLiteral(
      `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`,
    );
  if (Array.isArray(value)) return pg.escapeLiteral(`{${value.map(arrayElement).join(',')}}`);
  throw new TypeError(`No SQL literal for a ${typeof value}`);
}

/** An element of an array literal: NULL, or quoted with `"` and `\` escaped. */
function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError(`No SQL array element for a ${typeof value}`);
}
