import type { RecordsReader, RecordsTransaction, SearchCandidatesQuery } from '@mdstore/core';
import { parameterList, type SqlExecutor } from '../executor.js';
import { narrowingSql, pushdownSql } from '../search.js';
import type { SqlContext } from './context.js';

type SearchReads = Pick<RecordsReader, 'findSearchCandidates' | 'listUnindexedFiles' | 'expandSearchPrefix'>;
type SearchWrites = Pick<RecordsTransaction, 'indexFile'>;

/** The search index (extensions §3): one statement skeleton, the engine's index behind the dialect. */
export function searchStatements(c: SqlContext) {
  const { files, dialect } = c;
  const { textTable } = dialect.search;
  const unindexed = c.sql(
    `SELECT ${files.columns()} FROM files WHERE NOT EXISTS (SELECT 1 FROM ${textTable} s WHERE s.file_id = files.id)
     ORDER BY id LIMIT ?`,
  );

  /** The SQL of a search's candidates, every value a parameter (user text reaches the index as terms only). */
  const candidates = (q: SearchCandidatesQuery) => {
    const { params, param } = parameterList(dialect);
    const where = [dialect.inList('f.project_id', param(dialect.list(q.projectIds, 'text')), 'text')];
    if (q.fileIds) where.push(dialect.inList('f.id', param(dialect.list(q.fileIds, 'text')), 'text'));
    if (q.after)
      where.push(`(f.project_id, f.filename) > (${param(q.after.projectId)}, ${param(q.after.filename)})`);
    if (q.query) where.push(dialect.search.match(param, q.query));
    where.push(
      ...pushdownSql(q.conditions, 'f', dialect.search.pushdown(param)),
      ...narrowingSql(q.narrowing ?? [], 'f', dialect.search.json(param)),
    );
    const join = q.query ? 'JOIN' : q.withText ? 'LEFT JOIN' : '';
    const sql = `SELECT ${files.columns('f')}${q.withText ? ', s.text AS search_text' : ''} FROM files f
      ${join ? `${join} ${textTable} s ON s.file_id = f.id` : ''}
      WHERE ${where.join(' AND ')} ORDER BY f.project_id, f.filename LIMIT ${param(q.limit)}`;
    return { sql, params };
  };

  return {
    reads: (x: SqlExecutor): SearchReads => ({
      findSearchCandidates: async (q) => {
        const { sql, params } = candidates(q);
        return (await x.all(sql, params)).map((row) => ({
          file: files.fromRow(row),
          contentText: q.withText ? ((row.search_text as string | null) ?? '') : null,
        }));
      },
      expandSearchPrefix: async (q) =>
        dialect.search.expandPrefix ? dialect.search.expandPrefix(x, q.word, q.limit) : null,
      listUnindexedFiles: async (q) => (await x.all(unindexed, [q.limit])).map(files.fromRow),
    }),
    writes: (x: SqlExecutor): SearchWrites => ({
      indexFile: (c) => dialect.search.index(x, c.file, c.contentText),
    }),
  };
}
