/**
 * One description of a record's table, from which each SQL adapter derives its column lists, its
 * INSERT and UPDATE statements, its parameter lists and its row mapper. A new field is added here once
 * (and in each adapter's migration), never by hand in four mappers.
 */

/** How a value is stored. `integer` covers epoch milliseconds and counters (exact up to 2^53). */
export type ColumnType = 'text' | 'integer' | 'boolean' | 'bytes';

export interface Column<R> {
  /** The record's field. */
  readonly field: keyof R & string;
  /** The SQL column. */
  readonly name: string;
  readonly type: ColumnType;
}

export interface Table<R> {
  readonly name: string;
  /** In the order of the table's INSERT and SELECT lists. */
  readonly columns: readonly Column<R>[];
  /** The fields that identify a row (the WHERE of an update). */
  readonly key: readonly (keyof R & string)[];
  /** Fields an update never writes (besides the key). */
  readonly immutable: readonly (keyof R & string)[];
}

type ColumnSpec = readonly [name: string, type: ColumnType];

/** Every field of `R` must be described: forgetting one is a type error. */
export function defineTable<R>(
  name: string,
  fields: { readonly [K in keyof R & string]-?: ColumnSpec },
  options: { key: readonly (keyof R & string)[]; immutable?: readonly (keyof R & string)[] },
): Table<R> {
  const columns = (Object.entries(fields) as [keyof R & string, ColumnSpec][]).map(
    ([field, [column, type]]) => ({
      field,
      name: column,
      type,
    }),
  );
  return Object.freeze({ name, columns, key: options.key, immutable: options.immutable ?? [] });
}

/** What differs between SQL engines in the statements and values this package builds. */
export interface Dialect {
  /** The placeholder of the `index`-th parameter (1-based): `?` or `$1`. */
  placeholder(index: number): string;
  /** A record's value as the driver takes it. */
  encode(type: ColumnType, value: unknown): unknown;
  /** A driver's value as the record holds it. */
  decode(type: ColumnType, value: unknown): unknown;
  /** The 1-based character position of `needle` in `haystack`, 0 when absent (SQL expressions). */
  indexOf(haystack: string, needle: string): string;
}

/** The statements and mappers of one table on one dialect, built once. */
export interface TableSql<R> {
  /** `a, b, c`, or `t.a, t.b, t.c` with an alias. */
  columns(alias?: string): string;
  /** `t.a AS <prefix>a, …`: the columns of `alias` named apart from another table's in one row. */
  prefixedColumns(alias: string, prefix: string): string;
  readonly insert: string;
  /** `UPDATE … SET <every mutable column> WHERE <key>`. */
  readonly update: string;
  insertValues(record: R): unknown[];
  /** In the order of `update`'s placeholders: the mutable columns, then the key. */
  updateValues(record: R): unknown[];
  fromRow(row: Readonly<Record<string, unknown>>): R;
  /** The record of the columns `prefixedColumns` named with `prefix`. */
  fromPrefixedRow(row: Readonly<Record<string, unknown>>, prefix: string): R;
}

export function tableSql<R>(table: Table<R>, dialect: Dialect): TableSql<R> {
  const { columns } = table;
  const isKey = (field: string) => (table.key as readonly string[]).includes(field);
  const mutable = columns.filter(
    (column) => !isKey(column.field) && !(table.immutable as readonly string[]).includes(column.field),
  );
  const keys = table.key.map((field) => columns.find((column) => column.field === field)!);
  const names = columns.map((column) => column.name);
  const insert = `INSERT INTO ${table.name} (${names.join(', ')}) VALUES (${names
    .map((_, i) => dialect.placeholder(i + 1))
    .join(', ')})`;
  const sets = mutable.map((column, i) => `${column.name} = ${dialect.placeholder(i + 1)}`);
  const where = keys.map((column, i) => `${column.name} = ${dialect.placeholder(mutable.length + i + 1)}`);
  const update = `UPDATE ${table.name} SET ${sets.join(', ')} WHERE ${where.join(' AND ')}`;
  const valuesOf = (record: R, list: readonly Column<R>[]) =>
    list.map((column) => dialect.encode(column.type, record[column.field]));
  const fromPrefixedRow = (row: Readonly<Record<string, unknown>>, prefix: string): R => {
    const record: Record<string, unknown> = {};
    for (const column of columns)
      record[column.field] = dialect.decode(column.type, row[prefix + column.name]);
    return record as R;
  };
  return {
    columns: (alias) => (alias ? names.map((name) => `${alias}.${name}`) : names).join(', '),
    insert,
    update,
    insertValues: (record) => valuesOf(record, columns),
    updateValues: (record) => [...valuesOf(record, mutable), ...valuesOf(record, keys)],
    prefixedColumns: (alias, prefix) =>
      names.map((name) => `${alias}.${name} AS ${prefix}${name}`).join(', '),
    fromRow: (row) => fromPrefixedRow(row, ''),
    fromPrefixedRow,
  };
}
