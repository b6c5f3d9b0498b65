import type { FileRecord, SearchQuery } from '@mdstore/core';
import type { JsonSqlDialect, SearchSqlDialect } from './search.js';
import type { Dialect } from './table.js';

/** A row as the driver gives it, keyed by column name. */
export type Row = Readonly<Record<string, unknown>>;

/** A value, or a promise of it: what an executor's call gives (the shared code awaits either). */
export type Awaitable<T> = T | Promise<T>;

/**
 * Runs statements, in the dialect's placeholders, on one engine. The shared code awaits every call: the
 * Postgres executor returns promises (the statement goes to the server); SQLite's runs the statement
 * synchronously (better-sqlite3, its statement cache) and returns the value itself, so its hot reads
 * allocate no promise of their own. Errors come out in the core's vocabulary (`RecordConflictError`,
 * `StoreUnavailableError`), translated by the executor, thrown or as a rejection.
 */
export interface SqlExecutor {
  /** Every row of a statement that returns rows (a SELECT, or a write with RETURNING). */
  all(sql: string, params: readonly unknown[]): Awaitable<Row[]>;
  /** The first row, or undefined. */
  get(sql: string, params: readonly unknown[]): Awaitable<Row | undefined>;
  /** A statement that returns no rows; gives the number of rows it changed. */
  run(sql: string, params: readonly unknown[]): Awaitable<number>;
  /**
   * A write whose answer nobody reads. Inside a transaction an executor may hold it and send it with
   * the next statement or the commit (Postgres: one round trip for several statements); its error then
   * surfaces there, at `withTransaction` at the latest, which rolls the whole transaction back.
   */
  write(sql: string, params: readonly unknown[]): Awaitable<void>;
}

/** The element type of a list parameter (`inList`). */
export type ListType = 'text' | 'integer' | 'number';

/**
 * What the search index keeps and how it is written: FTS5 (SQLite) or a `tsvector` (Postgres). The text
 * table (`textTable`) has the columns `file_id`, `project_id` and `text` on both engines.
 */
export interface SearchIndexDialect {
  /** The table holding each indexed file's text: `file_id`, `project_id`, `text`. */
  readonly textTable: string;
  /** A condition on the text table aliased `s`: the row may match `query` (a superset of the matches). */
  match(param: (value: unknown) => string, query: SearchQuery): string;
  /** The pushed-down filter conditions' tests (`pushdownSql`). */
  pushdown(param: (value: unknown) => string): SearchSqlDialect;
  /** The narrowing's tests on JSON stored as text (`narrowingSql`). */
  json(param: (value: unknown) => string): JsonSqlDialect;
  /** `indexFile` of the port: the text (the stored one when `contentText` is null) and the index. */
  index(x: SqlExecutor, file: FileRecord, contentText: string | null): Promise<void>;
  /**
   * The indexed words starting with `word`, at most `limit`, in encoding order, from the engine's
   * vocabulary; absent where the engine has none to read (the store then answers null).
   */
  expandPrefix?(x: SqlExecutor, word: string, limit: number): Promise<string[]>;
  /** Drops one file's text and index. */
  unindexFile(x: SqlExecutor, fileId: string): Promise<void>;
  /**
   * Drops at most `limit` rows of a project's search index: its files' texts and index entries (and, on
   * Postgres, its rows of the word list), a deleting project's purge batch by batch; gives how many.
   */
  unindexProject(x: SqlExecutor, projectId: string, limit: number): Promise<number>;
}

/** Everything the shared records implementation needs to know about an engine. */
export interface SqlDialect extends Dialect {
  /** Appended to the SELECT of `lockProject`: ` FOR UPDATE`, or '' where the transaction already locks. */
  readonly lockClause: string;
  /** `column` equals one element of the list parameter `placeholder` (a value made by `list`). */
  inList(column: string, placeholder: string, type: ListType): string;
  /** A list as one parameter of `inList`: a JSON array (SQLite) or an array (Postgres). */
  list(values: readonly unknown[], type: ListType): unknown;
  /**
   * The last `/`-separated segment of the attachments' `path` column, written exactly as the index on
   * it (the stores' migrations 20), so that a comparison with it reads the index.
   */
  readonly attachmentName: string;
  readonly search: SearchIndexDialect;
  /**
   * A statement run in the transaction that appends change events, with the account id as its one
   * parameter, that tells every instance of the store at commit (Postgres: `pg_notify`); null where the
   * instances are told in process.
   */
  readonly changeNotice: string | null;
}

/** `text` with each `?` replaced by the dialect's placeholder, numbered in order. */
export function placeholders(dialect: Dialect, text: string): string {
  let index = 0;
  return text.replace(/\?/g, () => dialect.placeholder(++index));
}

/** Collects the parameters of a statement built piece by piece and hands out their placeholders. */
export function parameterList(dialect: Dialect): { params: unknown[]; param: (value: unknown) => string } {
  const params: unknown[] = [];
  return { params, param: (value) => dialect.placeholder(params.push(value)) };
}
