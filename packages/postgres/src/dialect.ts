import {
  type FileRecord,
  fileSearchDocument,
  SEARCH_LIMITS,
  truncateUtf8,
  tsqueryLiteral,
  tsvectorLiteral,
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
 * The search index on Postgres: `search_documents` keeps each file's text and a `tsvector` of the core's
 * lexemes (no positions) under a GIN index; queries are `tsquery` literals cast with `::tsquery`.
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
    await x.write(
      `INSERT INTO search_documents (file_id, project_id, text, lexemes) VALUES ($1, $2, $3, $4::tsvector)
       ON CONFLICT (file_id) DO UPDATE SET text = EXCLUDED.text, lexemes = EXCLUDED.lexemes`,
      [file.id, file.projectId, text, tsvectorLiteral(fileSearchDocument(file, text))],
    );
  },
  async unindexFile(x, fileId) {
    await x.write('DELETE FROM search_documents WHERE file_id = $1', [fileId]);
  },
  async unindexProject(x, projectId, limit) {
    return x.run(
      `DELETE FROM search_documents WHERE project_id = $1
       AND file_id IN (SELECT file_id FROM search_documents WHERE project_id = $1 LIMIT $2)`,
      [projectId, limit],
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
  search: SEARCH,
  // The payload names the schema: instances of other stores on the same database ignore it.
  changeNotice: "SELECT pg_notify('mdstore_changes', current_schema() || ' ' || ?)",
};

/** The records port's statements on Postgres, built once. */
export const POSTGRES_RECORDS = sqlRecords(POSTGRES_DIALECT);
