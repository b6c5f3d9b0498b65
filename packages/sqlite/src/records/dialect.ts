import {
  type FileRecord,
  fileSearchDocument,
  fts5ColumnText,
  fts5MatchExpression,
  ftsTerm,
  SEARCH_LIMITS,
  truncateUtf8,
  wordOfFtsTerm,
} from '@mdstore/core';
import {
  type JsonSqlDialect,
  type SearchIndexDialect,
  type SearchSqlDialect,
  type SqlDialect,
  type SqlExecutor,
  sqlRecords,
} from '@mdstore/sql';

/**
 * The search index on SQLite: `search_texts` keeps each file's text, and `search_fts`, an FTS5 table
 * without its own copy (`content=''`, `contentless_delete=1`), is keyed by `search_texts.rowid`.
 */
const SEARCH: SearchIndexDialect = {
  textTable: 'search_texts',
  match: (param, query) =>
    `s.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ${param(fts5MatchExpression(query))})`,
  pushdown: (param): SearchSqlDialect => ({
    param,
    startsWith: (column, value) => `instr(${column}, ${value}) = 1`,
    contains: (column, value) => `instr(${column}, ${value}) > 0`,
    inList: (column, list) => `${column} IN (SELECT value FROM json_each(${param(JSON.stringify(list))}))`,
  }),
  json: (param): JsonSqlDialect => ({
    param,
    // json_extract gives a string as text, a number as a number (1 = 1.0), true/false as 1/0 (a
    // superset for booleans, which the core then decides).
    equalsAny: (column, keys, list) =>
      `json_extract(${column}, ${param(jsonPath(keys))}) IN (SELECT value FROM json_each(${param(JSON.stringify(list))}))`,
    // An array holding the string, or a string containing it: json_each gives an array's elements,
    // or the string itself; any string containing the value passes.
    contains: (column, keys, value) =>
      `EXISTS (SELECT 1 FROM json_each(${column}, ${param(jsonPath(keys))}) e WHERE e.type = 'text' AND instr(e.value, ${param(value)}) > 0)`,
    startsWith: (column, keys, value) =>
      `json_type(${column}, ${param(jsonPath(keys))}) = 'text' AND instr(json_extract(${column}, ${param(jsonPath(keys))}), ${param(value)}) = 1`,
    exists: (column, keys) => `json_type(${column}, ${param(jsonPath(keys))}) IS NOT NULL`,
  }),
  async index(x: SqlExecutor, file: FileRecord, contentText: string | null) {
    const stored = await x.get('SELECT rowid, text FROM search_texts WHERE file_id = ?', [file.id]);
    const text =
      contentText === null
        ? ((stored?.text as string | undefined) ?? '')
        : truncateUtf8(contentText, SEARCH_LIMITS.contentMaxBytes);
    let rowid: number;
    if (stored) {
      rowid = stored.rowid as number;
      await x.write('DELETE FROM search_fts WHERE rowid = ?', [rowid]);
      if (contentText !== null)
        await x.write('UPDATE search_texts SET text = ? WHERE rowid = ?', [text, rowid]);
    } else {
      const inserted = await x.get(
        'INSERT INTO search_texts (file_id, project_id, text) VALUES (?, ?, ?) RETURNING rowid',
        [file.id, file.projectId, text],
      );
      rowid = inserted!.rowid as number;
    }
    const doc = fileSearchDocument(file, text);
    await x.write('INSERT INTO search_fts (rowid, filename, content, meta) VALUES (?, ?, ?, ?)', [
      rowid,
      fts5ColumnText(doc.filename),
      fts5ColumnText(doc.content),
      fts5ColumnText(doc.meta),
    ]);
  },
  async expandPrefix(x, word, limit) {
    // The FTS5 vocabulary, a per-connection view of the index's terms (`term` ranges use its b-tree).
    await x.write(
      'CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocab USING fts5vocab(main, search_fts, row)',
      [],
    );
    const prefix = ftsTerm(word);
    // Encodings use the letters a-p only: every term with this prefix sorts below prefix + 'q'.
    const rows = await x.all('SELECT term FROM temp.search_vocab WHERE term >= ? AND term < ? LIMIT ?', [
      prefix,
      `${prefix}q`,
      limit,
    ]);
    return rows.map((row) => wordOfFtsTerm(row.term as string));
  },
  async unindexFile(x, fileId) {
    const stored = await x.get('SELECT rowid FROM search_texts WHERE file_id = ?', [fileId]);
    if (!stored) return;
    await x.write('DELETE FROM search_fts WHERE rowid = ?', [stored.rowid]);
    await x.write('DELETE FROM search_texts WHERE rowid = ?', [stored.rowid]);
  },
  async unindexProject(x, projectId, limit) {
    // The same first `limit` rows twice: the index `search_texts_project` gives them in rowid order.
    const some = 'SELECT rowid FROM search_texts WHERE project_id = ? ORDER BY rowid LIMIT ?';
    await x.write(`DELETE FROM search_fts WHERE rowid IN (${some})`, [projectId, limit]);
    return x.run(`DELETE FROM search_texts WHERE rowid IN (${some})`, [projectId, limit]);
  },
};

/** A JSON path of object keys, each quoted (planFilter narrows only on keys without `"` or `\\`). */
const jsonPath = (keys: readonly string[]): string => `$${keys.map((key) => `."${key}"`).join('')}`;

/**
 * SQLite's side of the shared records implementation: `?` placeholders; booleans stored as 0/1 (STRICT
 * INTEGER); BLOBs bound as Buffers (better-sqlite3 refuses plain Uint8Arrays) and read as Buffers;
 * lists as JSON arrays read with `json_each`; no `FOR UPDATE` (a transaction's `BEGIN IMMEDIATE` holds
 * the database's write lock); the search index on FTS5.
 */
export const SQLITE_DIALECT: SqlDialect = {
  placeholder: () => '?',
  encode: (type, value) => {
    if (type === 'boolean') return value ? 1 : 0;
    // A view of the same memory: nothing is copied.
    if (type === 'bytes' && value instanceof Uint8Array && !Buffer.isBuffer(value))
      return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return value;
  },
  decode: (type, value) => (type === 'boolean' ? value === 1 : value),
  indexOf: (haystack, needle) => `instr(${haystack}, ${needle})`,
  lockClause: '',
  inList: (column, placeholder) => `${column} IN (SELECT value FROM json_each(${placeholder}))`,
  list: (values) => JSON.stringify(values),
  attachmentName: "substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)",
  search: SEARCH,
  changeNotice: null,
};

/** The records port's statements on SQLite, built once. */
export const SQLITE_RECORDS = sqlRecords(SQLITE_DIALECT);
