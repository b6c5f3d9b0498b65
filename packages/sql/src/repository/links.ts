import type {
  FileLinksRecord,
  LinkRecord,
  RecordsReader,
  RecordsTransaction,
  SourcedLinkRecord,
} from '@mdstore/core';
import { parameterList, type Row, type SqlExecutor } from '../executor.js';
import type { SqlContext } from './context.js';

type LinkReads = Pick<
  RecordsReader,
  'findFileLinks' | 'listLinksTo' | 'listLinkTargets' | 'listLinkPage' | 'listFilesWithoutLinks'
>;
type LinkWrites = Pick<RecordsTransaction, 'indexLinks'>;

const LINK_COLUMNS = 'l.seq, l.line, l.kind, l.raw, l.path, l.stem, l.anchor, l.start_offset, l.end_offset';
const LINK_INSERT_COLUMNS =
  'file_id, seq, project_id, line, kind, raw, path, stem, anchor, start_offset, end_offset';
/** Rows per INSERT: 11 parameters each, far under every engine's limit. */
const INSERT_BATCH = 50;

const intOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);
const textOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

const linkFromRow = (row: Row): LinkRecord => ({
  seq: Number(row.seq),
  line: Number(row.line),
  kind: row.kind as LinkRecord['kind'],
  raw: String(row.raw),
  path: textOrNull(row.path),
  stem: textOrNull(row.stem),
  anchor: textOrNull(row.anchor),
  start: intOrNull(row.start_offset),
  end: intOrNull(row.end_offset),
});

const sourcedFromRow = (row: Row): SourcedLinkRecord => ({
  sourceId: String(row.file_id),
  source: String(row.source),
  link: linkFromRow(row),
  ...(Number(row.sure) === 1 && { resolved: true }),
});

/**
 * Whether a link of a page certainly resolves with no anchor to check (`SourcedLinkRecord.resolved`): a
 * Markdown link whose path names a file of the project (one look-up in the files' unique index), or a
 * wiki link whose stem exactly one indexed file of the project has (its exact name, if any, is then
 * that file or another: resolved either way), or any link whose path is an attachment's (extensions
 * §12: a path no file can have, so the attachment is its target; one probe of the attachments' unique
 * index). Anything else is left to the core's resolution. The
 * look-up is a scalar subquery with `LIMIT 1`, not `EXISTS`: PostgreSQL turns that `EXISTS` into one
 * hashed scan of the whole `files` table per page (47 ms at 20 000 files, growing with every project),
 * while this stays one index probe per link (17 ms for a page of 2 000, generic plan).
 */
const SURE = `CASE WHEN (l.anchor IS NULL OR l.anchor = '') AND l.path IS NOT NULL AND (
    (l.kind = 'markdown' AND (SELECT 1 FROM files t WHERE t.project_id = f.project_id AND t.filename = l.path LIMIT 1) IS NOT NULL)
    OR (l.kind = 'wiki' AND l.stem IS NOT NULL AND (SELECT COUNT(*) FROM (SELECT 1 FROM file_links e
      JOIN files t ON t.id = e.file_id WHERE e.project_id = f.project_id AND e.stem = l.stem LIMIT 2) two) = 1)
    OR (SELECT 1 FROM attachments a WHERE a.project_id = f.project_id AND a.path = l.path LIMIT 1) IS NOT NULL
  ) THEN 1 ELSE 0 END AS sure`;

/** A limit written into a statement: a positive safe integer, else a programming error. */
function literalLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`not a page limit: ${limit}`);
  return limit;
}

const strings = (json: unknown): string[] => JSON.parse(String(json ?? '[]')) as string[];

/**
 * The link index (extensions §9): an entry per file and its links, replaced whole by every content
 * write. Nothing is resolved when written: a link's `path`/`stem` meet the files' names when read.
 */
export function linkStatements(c: SqlContext) {
  const { files, dialect } = c;
  const s = {
    entry: c.sql('SELECT * FROM file_links WHERE file_id = ?'),
    linksOf: c.sql(`SELECT ${LINK_COLUMNS} FROM links l WHERE l.file_id = ? ORDER BY l.seq`),
    linksPage: (limit: number | undefined) =>
      c.sql(
        `SELECT ${LINK_COLUMNS} FROM links l WHERE l.file_id = ? AND l.seq > ? ORDER BY l.seq${limit === undefined ? '' : ` LIMIT ${literalLimit(limit)}`}`,
      ),
    deleteEntry: c.sql('DELETE FROM file_links WHERE file_id = ?'),
    deleteLinks: c.sql('DELETE FROM links WHERE file_id = ?'),
    insertEntry: c.sql(
      'INSERT INTO file_links (file_id, project_id, status, stem, slugs_json, headings_json) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    // Driven by the files' (project_id, filename) index, each file's links by their primary key: a
    // page costs its size, not the project's. The limit is written into the statement (the core uses
    // three window sizes): with `LIMIT $n` PostgreSQL's generic plan costs the page as the whole
    // project with its per-link subqueries, past `jit_above_cost`, and JIT-compiles every execution
    // (about 45 ms for a query that runs in 1 ms).
    page: (limit: number) =>
      c.sql(
        `SELECT l.file_id, f.filename AS source, ${LINK_COLUMNS}, ${SURE} FROM files f JOIN links l ON l.file_id = f.id
       WHERE f.project_id = ? ORDER BY f.filename, l.seq LIMIT ${literalLimit(limit)}`,
      ),
    pageAfter: (limit: number) =>
      c.sql(
        `SELECT l.file_id, f.filename AS source, ${LINK_COLUMNS}, ${SURE} FROM files f JOIN links l ON l.file_id = f.id
       WHERE f.project_id = ? AND f.filename >= ? AND (f.filename > ? OR l.seq > ?)
       ORDER BY f.filename, l.seq LIMIT ${literalLimit(limit)}`,
      ),
    withoutLinks: c.sql(
      `SELECT ${files.columns()} FROM files WHERE NOT EXISTS (SELECT 1 FROM file_links e WHERE e.file_id = files.id)
       ORDER BY id LIMIT ?`,
    ),
  };
  const insertLinks = (count: number) =>
    c.sql(
      `INSERT INTO links (${LINK_INSERT_COLUMNS}) VALUES ${Array.from({ length: count }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    );
  const fullBatch = insertLinks(INSERT_BATCH);

  return {
    reads: (x: SqlExecutor): LinkReads => ({
      findFileLinks: async (q) => {
        const row = await x.get(s.entry, [q.fileId]);
        if (!row) return null;
        const rows =
          q.afterSeq === undefined && q.limit === undefined
            ? await x.all(s.linksOf, [q.fileId])
            : await x.all(s.linksPage(q.limit), [q.fileId, q.afterSeq ?? -1]);
        const links = rows.map(linkFromRow);
        return {
          fileId: String(row.file_id),
          projectId: String(row.project_id),
          status: row.status as FileLinksRecord['status'],
          stem: String(row.stem),
          slugs: strings(row.slugs_json),
          headings: strings(row.headings_json),
          links,
        };
      },
      listLinksTo: async (q) => {
        // Two index range scans (links_path, links_stem), not one OR that no index serves; with a
        // `limit`, each scan and their union stop after it (a page reads its size, not every link).
        const { params, param } = parameterList(dialect);
        const select = `SELECT l.file_id, f.filename AS source, ${LINK_COLUMNS} FROM links l JOIN files f ON f.id = l.file_id`;
        const limit = q.limit === undefined ? '' : ` LIMIT ${literalLimit(q.limit)}`;
        const after = () =>
          q.after
            ? ` AND f.filename >= ${param(q.after.source)} AND (f.filename > ${param(q.after.source)} OR l.seq > ${param(q.after.seq)})`
            : '';
        const bounded = (where: string) =>
          limit === ''
            ? `${select} WHERE ${where}`
            : `SELECT * FROM (${select} WHERE ${where} ORDER BY f.filename, l.seq${limit}) p`;
        const parts: string[] = [];
        if (q.paths.length > 0) {
          parts.push(
            bounded(
              `l.project_id = ${param(q.projectId)} AND ${dialect.inList('l.path', param(dialect.list(q.paths, 'text')), 'text')}${after()}`,
            ),
          );
        }
        if (q.stems.length > 0) {
          parts.push(
            bounded(
              `l.project_id = ${param(q.projectId)} AND l.kind = 'wiki' AND ${dialect.inList('l.stem', param(dialect.list(q.stems, 'text')), 'text')}${after()}`,
            ),
          );
        }
        if (parts.length === 0) return [];
        const sql = `SELECT * FROM (${parts.join(' UNION ')}) u ORDER BY u.source, u.seq${limit}`;
        return (await x.all(sql, params)).map(sourcedFromRow);
      },
      listLinkTargets: async (q) => {
        const { params, param } = parameterList(dialect);
        const select = `SELECT f.id, f.filename, e.stem, e.slugs_json, e.headings_json FROM files f
          LEFT JOIN file_links e ON e.file_id = f.id`;
        const parts: string[] = [];
        if (q.filenames.length > 0) {
          parts.push(
            `${select} WHERE f.project_id = ${param(q.projectId)} AND ${dialect.inList('f.filename', param(dialect.list(q.filenames, 'text')), 'text')}`,
          );
        }
        if (q.stems.length > 0) {
          parts.push(
            `SELECT f.id, f.filename, e.stem, e.slugs_json, e.headings_json FROM file_links e JOIN files f ON f.id = e.file_id
             WHERE e.project_id = ${param(q.projectId)} AND ${dialect.inList('e.stem', param(dialect.list(q.stems, 'text')), 'text')}`,
          );
        }
        if (parts.length === 0) return [];
        const sql = `SELECT * FROM (${parts.join(' UNION ')}) u ORDER BY u.filename`;
        return (await x.all(sql, params)).map((row) => ({
          fileId: String(row.id),
          filename: String(row.filename),
          stem: textOrNull(row.stem),
          slugs: strings(row.slugs_json),
          headings: strings(row.headings_json),
        }));
      },
      listLinkPage: async (q) => {
        const rows = q.after
          ? await x.all(s.pageAfter(q.limit), [q.projectId, q.after.source, q.after.source, q.after.seq])
          : await x.all(s.page(q.limit), [q.projectId]);
        return rows.map(sourcedFromRow);
      },
      listFilesWithoutLinks: async (q) => (await x.all(s.withoutLinks, [q.limit])).map(files.fromRow),
    }),
    writes: (x: SqlExecutor): LinkWrites => ({
      indexLinks: async ({ entry }) => {
        await x.write(s.deleteLinks, [entry.fileId]);
        await x.write(s.deleteEntry, [entry.fileId]);
        await x.write(s.insertEntry, [
          entry.fileId,
          entry.projectId,
          entry.status,
          entry.stem,
          JSON.stringify(entry.slugs),
          JSON.stringify(entry.headings),
        ]);
        for (let at = 0; at < entry.links.length; at += INSERT_BATCH) {
          const batch = entry.links.slice(at, at + INSERT_BATCH);
          const values = batch.flatMap((link) => [
            entry.fileId,
            link.seq,
            entry.projectId,
            link.line,
            link.kind,
            link.raw,
            link.path,
            link.stem,
            link.anchor,
            link.start,
            link.end,
          ]);
          await x.write(batch.length === INSERT_BATCH ? fullBatch : insertLinks(batch.length), values);
        }
      },
    }),
  };
}

/** Removes the link index of one file (with its delete; a deleting project's go by `purgeProjectRecords`). */
export function unindexLinks(c: SqlContext) {
  const byFile = ['links', 'file_links'].map((table) => c.sql(`DELETE FROM ${table} WHERE file_id = ?`));
  return {
    file: async (x: SqlExecutor, fileId: string) => {
      for (const sql of byFile) await x.write(sql, [fileId]);
    },
  };
}
