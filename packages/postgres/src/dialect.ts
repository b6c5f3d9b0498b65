import {
  type FileRecord,
  fileSearchDocument,
  ftsTerm,
  SEARCH_LIMITS,
  truncateUtf8,
  tsqueryLiteral,
  tsvectorLiteral,
  wordOfFtsTerm,
} from '@mdstore/core';
import {
  type JsonSqlDialect,
  type ListType,
  type SearchIndexDialect,
  type SqlDialect,
  type SqlExecutor,
  sqlRecords,
} from '@mdstore/sql';

const ARRAY_TYPES: Readonly<Record<ListType, string>> = { text: 'text', integer: 'int8', number: 'numeric' };

/**
 * The words of the documents `doc` (a relation with `project_id` and `lexemes`) that `other` does not
 * hold, as `(project_id, word)` rows: a document's words as its index write adds or removes them.
 */
const wordsNotIn = (doc: string, other: string) =>
  `SELECT d.project_id, unnest(tsvector_to_array(d.lexemes)) AS word FROM ${doc} d
   EXCEPT SELECT o.project_id, unnest(tsvector_to_array(o.lexemes)) FROM ${other} o`;

/** Takes one document off each of the `(project_id, word)` rows of `removed` (a subquery). */
const uncount = (removed: string) =>
  `UPDATE search_words w SET documents = w.documents - 1 FROM (${removed}) r
   WHERE w.project_id = r.project_id AND w.word = r.word`;

/**
 * The words no document holds any more, dropped in the transaction that took their last document (the
 * partial index `search_words_unused_idx` finds them; no other transaction's are visible).
 */
const DROP_UNUSED_WORDS = 'DELETE FROM search_words WHERE documents = 0';

/**
 * The search index on Postgres: `search_documents` keeps each file's text and a `tsvector` of the core's
 * lexemes (no positions) under a GIN index; queries are `tsquery` literals cast with `::tsquery`.
 * `search_words` is the index's word list (issue 34): each lexeme of a project with the number of its
 * documents holding it, kept by the same statements that write `search_documents`, so that a `word*`
 * prefix is expanded from a B-tree range instead of by `:*` over every lexeme of the GIN index.
 */
const SEARCH: SearchIndexDialect = {
  textTable: 'search_documents',
  match: (param, query) => `s.lexemes @@ ${param(tsqueryLiteral(query))}::tsquery`,
  pushdown: (param) => ({
    param: (value) => `${param(value)}::${typeof value === 'number' ? 'numeric' : 'text'}`,
    startsWith: (column, value) => `starts_with(${column}, ${value})`,
    contains: (column, value) => `strpos(${column}, ${value}) > 0`,
    inList: (column, list) =>
      `${column} = ANY(${param([...list])}::${typeof list[0] === 'number' ? 'numeric' : 'text'}[])`,
  }),
  json: jsonDialect,
  async index(x: SqlExecutor, file: FileRecord, contentText: string | null) {
    const text =
      contentText === null
        ? (((await x.get('SELECT text FROM search_documents WHERE file_id = $1', [file.id]))?.text as
            | string
            | undefined) ?? '')
        : // Postgres text cannot hold U+0000; it is no word character, so search reads it as a space.
          truncateUtf8(contentText, SEARCH_LIMITS.contentMaxBytes).replaceAll('\0', ' ');
    // One statement: the document, then its word list's counts by the difference between the lexemes it
    // had (`old`, the statement's snapshot) and has (`doc`). Words are counted in their order, so two
    // transactions counting the same words lock their rows in one order.
    await x.write(
      `WITH old AS (SELECT project_id, lexemes FROM search_documents WHERE file_id = $1),
       doc AS (
         INSERT INTO search_documents (file_id, project_id, text, lexemes) VALUES ($1, $2, $3, $4::tsvector)
         ON CONFLICT (file_id) DO UPDATE SET text = EXCLUDED.text, lexemes = EXCLUDED.lexemes
         RETURNING project_id, lexemes),
       added AS (
         INSERT INTO search_words (project_id, word, documents)
         SELECT project_id, word, 1 FROM (${wordsNotIn('doc', 'old')}) a ORDER BY word
         ON CONFLICT (project_id, word) DO UPDATE SET documents = search_words.documents + 1)
       ${uncount(wordsNotIn('old', 'doc'))}`,
      [file.id, file.projectId, text, tsvectorLiteral(fileSearchDocument(file, text))],
    );
    await x.write(DROP_UNUSED_WORDS, []);
  },
  async expandPrefix(x, word, limit) {
    // A loose index scan of `search_words_word_idx`: each step one descent to the next distinct word of
    // the range, so the cost is `limit` descents whatever the number of words, projects or documents.
    const prefix = ftsTerm(word);
    const rows = await x.all(
      `WITH RECURSIVE found(word) AS (
         (SELECT word FROM search_words WHERE word >= $1 AND word < $2 ORDER BY word LIMIT 1)
         UNION ALL
         SELECT (SELECT w.word FROM search_words w WHERE w.word > found.word AND w.word < $2
                 ORDER BY w.word LIMIT 1)
         FROM found WHERE found.word IS NOT NULL)
       SELECT word FROM found WHERE word IS NOT NULL LIMIT $3`,
      // Encodings use the letters a-p only: every word with this prefix sorts below prefix + 'q'.
      [prefix, `${prefix}q`, limit],
    );
    return rows.map((row) => wordOfFtsTerm(row.word as string));
  },
  async unindexFile(x, fileId) {
    await x.write(
      `WITH doc AS (DELETE FROM search_documents WHERE file_id = $1 RETURNING project_id, lexemes)
       ${uncount('SELECT project_id, unnest(tsvector_to_array(lexemes)) AS word FROM doc')}`,
      [fileId],
    );
    await x.write(DROP_UNUSED_WORDS, []);
  },
  async unindexProject(x, projectId, limit) {
    // The project's word list first (no count to keep: all its documents go), then its documents.
    const words = await x.run(
      `DELETE FROM search_words WHERE project_id = $1
       AND word IN (SELECT word FROM search_words WHERE project_id = $1 LIMIT $2)`,
      [projectId, limit],
    );
    if (words >= limit) return words;
    return (
      words +
      (await x.run(
        `DELETE FROM search_documents WHERE project_id = $1
         AND file_id IN (SELECT file_id FROM search_documents WHERE project_id = $1 LIMIT $2)`,
        [projectId, limit - words],
      ))
    );
  },
};

/**
 * The narrowing of a search on JSON stored as text: each test reads the text as `jsonb`, except text
 * holding the escape `\u0000`, which `jsonb` refuses: such a row passes (the core decides it). Numbers
 * compare as doubles (`float8`), as the filter language says; `CASE` keeps every cast on its own type.
 */
function jsonDialect(param: (value: unknown) => string): JsonSqlDialect {
  const at = (column: string, keys: readonly string[]) => `(${column}::jsonb #> ${param([...keys])}::text[])`;
  const textAt = (column: string, keys: readonly string[]) =>
    `(${column}::jsonb #>> ${param([...keys])}::text[])`;
  const guarded = (column: string, test: string) =>
    `CASE WHEN strpos(${column}, '\\u0000') > 0 THEN TRUE ELSE ${test} END`;
  return {
    param,
    equalsAny: (column, keys, values) => {
      const strings = values.filter((value) => typeof value === 'string');
      const numbers = values.filter((value) => typeof value === 'number');
      const booleans = values.filter((value) => typeof value === 'boolean').map(String);
      const tests = [
        ...(strings.length > 0 ? [`${textAt(column, keys)} = ANY(${param(strings)}::text[])`] : []),
        ...(numbers.length > 0
          ? [
              `CASE WHEN jsonb_typeof(${at(column, keys)}) = 'number' THEN ${textAt(column, keys)}::float8 = ANY(${param(numbers)}::float8[]) ELSE FALSE END`,
            ]
          : []),
        ...(booleans.length > 0 ? [`${at(column, keys)} = ANY(${param(booleans)}::jsonb[])`] : []),
      ];
      return guarded(column, `COALESCE(${tests.join(' OR ')}, FALSE)`);
    },
    contains: (column, keys, value) =>
      guarded(
        column,
        `CASE jsonb_typeof(${at(column, keys)}) WHEN 'array' THEN ${at(column, keys)} @> jsonb_build_array(${param(value)}::text) WHEN 'string' THEN strpos(${textAt(column, keys)}, ${param(value)}::text) > 0 ELSE FALSE END`,
      ),
    startsWith: (column, keys, value) =>
      guarded(
        column,
        `CASE WHEN jsonb_typeof(${at(column, keys)}) = 'string' THEN starts_with(${textAt(column, keys)}, ${param(value)}::text) ELSE FALSE END`,
      ),
    exists: (column, keys) => guarded(column, `${at(column, keys)} IS NOT NULL`),
  };
}

/**
 * Postgres's side of the shared records implementation: `$n` placeholders, native booleans, bytea bound
 * as Buffers and read as Buffers (Uint8Arrays), int8 parsed to numbers by the pool (`pool.ts`), lists
 * as SQL arrays (`= ANY($n::text[])`), `FOR UPDATE` row locks, the search index on `tsvector`.
 */
export const POSTGRES_DIALECT: SqlDialect = {
  placeholder: (index) => `$${index}`,
  encode: (type, value) =>
    type === 'bytes' && value instanceof Uint8Array && !Buffer.isBuffer(value)
      ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      : value,
  decode: (_type, value) => value,
  indexOf: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  lockClause: ' FOR UPDATE',
  inList: (column, placeholder, type) => `${column} = ANY(${placeholder}::${ARRAY_TYPES[type]}[])`,
  list: (values) => [...values],
  attachmentName: "regexp_replace(path, '^.*/', '')",
  search: SEARCH,
  // The payload names the schema: instances of other stores on the same database ignore it.
  changeNotice: "SELECT pg_notify('mdstore_changes', current_schema() || ' ' || ?)",
};

/** The records port's statements on Postgres, built once. */
export const POSTGRES_RECORDS = sqlRecords(POSTGRES_DIALECT);
