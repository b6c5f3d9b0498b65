import type { FilePageQuery, FileSortField } from '@mdstore/core';
import {
  FILES,
  fileCountsStatement,
  filePageStatement,
  PROJECTS,
  projectPageStatement,
  tableSql,
} from '@mdstore/sql';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateSqlite } from '../src/index.js';
import { SQLITE_DIALECT } from '../src/records/dialect.js';
import { tempDatabase } from './temp-db.js';

const files = tableSql(FILES, SQLITE_DIALECT);
const projects = tableSql(PROJECTS, SQLITE_DIALECT);

let database: Awaited<ReturnType<typeof tempDatabase>>;
beforeEach(async () => {
  database = await tempDatabase();
  await migrateSqlite({ path: database.path });
});
afterEach(async () => {
  await database.remove();
});

/** SQLite's plan of a statement, one line per step. */
function plan(statement: { sql: string; params: unknown[] }): string {
  const db = new Database(database.path, { readonly: true });
  try {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...statement.params) as {
      detail: string;
    }[];
    return rows.map((row) => row.detail).join('\n');
  } finally {
    db.close();
  }
}

const SORTS: readonly FileSortField[] = ['filename', 'createdAt', 'updatedAt', 'sizeBytes'];

describe('the list statements are index range scans (a page costs the same at any project size)', () => {
  it('every sort and order, with a position and a prefix, reads an index in order: no sort step', () => {
    for (const sort of SORTS) {
      for (const descending of [false, true]) {
        const query: FilePageQuery = {
          projectId: 'p',
          sort,
          descending,
          prefix: sort === 'filename' ? 'docs/' : '',
          limit: 100,
          after: { filename: 'docs/a.md', ...(sort !== 'filename' && { value: 5 }) },
        };
        const detail = plan(filePageStatement(files.columns(), SQLITE_DIALECT, query));
        expect(detail, `${sort} ${descending}`).toMatch(/SEARCH files USING INDEX/);
        expect(detail, `${sort} ${descending}`).not.toMatch(/TEMP B-TREE|SCAN files/);
      }
    }
  });

  it('counts of a prefix and the projects page use their indexes', () => {
    const counts = plan(
      fileCountsStatement(SQLITE_DIALECT, { projectId: 'p', prefix: 'docs/', delimiter: true }),
    );
    expect(counts).toMatch(
      /SEARCH files USING (COVERING )?INDEX files_filename_unique \(project_id=\? AND filename>\? AND filename<\?\)/,
    );
    const page = plan(
      projectPageStatement(projects.columns(), SQLITE_DIALECT, {
        accountId: 'a',
        after: { createdAt: 1, id: 'x' },
        limit: 10,
      }),
    );
    expect(page).toMatch(/SEARCH projects USING INDEX projects_account/);
    expect(page).not.toMatch(/TEMP B-TREE/);
  });
});

describe('attachments by name (extensions §12)', () => {
  it('a look-up by last path segment searches the index on that expression', () => {
    const names = SQLITE_DIALECT.inList(SQLITE_DIALECT.attachmentName, '?', 'text');
    const detail = plan({
      sql: `SELECT id FROM attachments WHERE project_id = ? AND ${names}`,
      params: ['p', JSON.stringify(['diagram.png', 'report.pdf'])],
    });
    expect(detail).toMatch(/SEARCH attachments USING INDEX attachments_name \(project_id=\? AND <expr>=\?\)/);
    expect(detail).not.toMatch(/SCAN attachments/);
  });
});
