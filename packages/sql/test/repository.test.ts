import { anAccount, aProject } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { placeholders, type Row, type SqlDialect, type SqlExecutor, sqlRecords } from '../src/index.js';

/** A dialect with `$n` placeholders and a search index that records what it is asked. */
const dialect = (lockClause: string): SqlDialect => ({
  placeholder: (index) => `$${index}`,
  encode: (type, value) => (type === 'boolean' ? (value ? 1 : 0) : value),
  decode: (type, value) => (type === 'boolean' ? value === 1 : value),
  indexOf: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  lockClause,
  changeNotice: null,
  inList: (column, placeholder) => `${column} IN LIST(${placeholder})`,
  list: (values) => JSON.stringify(values),
  attachmentName: 'NAME(path)',
  search: {
    textTable: 'texts',
    match: (param) => `MATCHES(${param('q')})`,
    pushdown: (param) => ({ param, startsWith: () => '', contains: () => '', inList: () => '' }),
    json: (param) => ({
      param,
      equalsAny: () => '',
      contains: () => '',
      startsWith: () => '',
      exists: () => '',
    }),
    index: async (x, file) => {
      await x.write('INDEX', [file.id]);
    },
    unindexFile: async (x, fileId) => {
      await x.write('UNINDEX', [fileId]);
    },
    unindexProject: async (x, projectId, limit) => x.run('UNINDEX PROJECT', [projectId, limit]),
  },
});

/** An executor that records every statement and answers with `rows`. */
const recording = (rows: Row[] = []) => {
  const sent: { kind: string; sql: string; params: readonly unknown[] }[] = [];
  const record = (kind: string, sql: string, params: readonly unknown[]) => {
    sent.push({ kind, sql, params });
  };
  const x: SqlExecutor = {
    all: (sql, params) => {
      record('all', sql, params);
      return rows;
    },
    get: (sql, params) => {
      record('get', sql, params);
      return rows[0];
    },
    run: async (sql, params) => {
      record('run', sql, params);
      return rows.length;
    },
    write: (sql, params) => record('write', sql, params),
  };
  return { x, sent };
};

describe('placeholders', () => {
  it('numbers each ? in order in the dialect', () => {
    expect(placeholders(dialect(''), 'a = ? AND b = ? OR c = ?')).toBe('a = $1 AND b = $2 OR c = $3');
  });
});

describe('sqlRecords: every statement once, in the dialect', () => {
  it("reads with the dialect's placeholders and maps rows through the column descriptions", async () => {
    const { x, sent } = recording([{ id: 'a1', name: 'acme', tier: 'standard', created_at: 5 }]);
    const account = await sqlRecords(dialect('')).reader(x).findAccountByName({ name: 'acme' });
    expect(account).toEqual({ id: 'a1', name: 'acme', tier: 'standard', createdAt: 5 });
    expect(sent).toEqual([
      {
        kind: 'get',
        sql: 'SELECT id, name, tier, created_at FROM accounts WHERE name = $1',
        params: ['acme'],
      },
    ]);
  });

  it("locks a project with the dialect's lock clause", async () => {
    const project = aProject({ accountId: 'a1' });
    for (const clause of ['', ' FOR UPDATE']) {
      const { x, sent } = recording([]);
      await expect(
        sqlRecords(dialect(clause)).transaction(x).lockProject({ projectId: project.id }),
      ).resolves.toBeNull();
      expect(sent[0]?.sql.endsWith(`WHERE id = $1${clause}`)).toBe(true);
    }
  });

  it('writes nobody reads go through `write`; results that matter through `run`', async () => {
    const { x, sent } = recording([]);
    const tx = sqlRecords(dialect('')).transaction(x);
    await tx.insertAccount({ account: anAccount({ id: 'a1', name: 'n', createdAt: 1 }) });
    await expect(tx.updateAccountTier({ accountId: 'a1', tier: 'premium' })).resolves.toBe(false);
    await tx.deleteRevisions({ fileId: 'f1', revisions: [] });
    await tx.deleteRevisions({ fileId: 'f1', revisions: [1, 2] });
    expect(sent.map(({ kind, sql, params }) => [kind, sql, params])).toEqual([
      [
        'write',
        'INSERT INTO accounts (id, name, tier, created_at) VALUES ($1, $2, $3, $4)',
        ['a1', 'n', 'standard', 1],
      ],
      ['run', 'UPDATE accounts SET tier = $1 WHERE id = $2', ['premium', 'a1']],
      ['write', 'DELETE FROM file_revisions WHERE file_id = $1 AND revision IN LIST($2)', ['f1', '[1,2]']],
    ]);
  });

  it("purges a project's rows in bounded statements: search and link indexes first, then revisions, contents, trash, attachments and files, each LIMIT what is left", async () => {
    const { x, sent } = recording([]);
    const removed = await sqlRecords(dialect(''))
      .transaction(x)
      .purgeProjectRecords({ projectId: 'p1', limit: 9 });
    expect(removed).toBe(0);
    const key = (table: string, columns: string) =>
      `run DELETE FROM ${table} WHERE project_id = $1 AND (${columns}) IN (SELECT ${columns} FROM ${table} WHERE project_id = $2 LIMIT $3)`;
    expect(sent.map(({ kind, sql }) => `${kind} ${sql}`)).toEqual([
      'run UNINDEX PROJECT',
      key('links', 'file_id, seq'),
      key('file_links', 'file_id'),
      key('file_revisions', 'file_id, revision'),
      key('inline_contents', 'content_key'),
      key('trash_items', 'id'),
      key('attachments', 'id'),
      key('files', 'id'),
    ]);
    expect(sent.every(({ params }) => params.at(-1) === 9)).toBe(true);
  });

  it('stops a purge once its limit is spent, each statement limited to what is left', async () => {
    const counts = [2, 4, 3];
    const sent: { sql: string; params: readonly unknown[] }[] = [];
    const x: SqlExecutor = {
      all: () => [],
      get: () => undefined,
      run: async (sql, params) => {
        sent.push({ sql, params });
        return counts.shift() ?? 0;
      },
      write: () => undefined,
    };
    const removed = await sqlRecords(dialect(''))
      .transaction(x)
      .purgeProjectRecords({ projectId: 'p1', limit: 9 });
    expect(removed).toBe(9);
    // 2 index entries, 4 links, then 3 of file_links: the batch is full, nothing else is asked.
    expect(sent.map(({ params }) => params.at(-1))).toEqual([9, 7, 3]);
  });

  it('builds a search over the dialect: its list parameters, its match fragment, its text table', async () => {
    const { x, sent } = recording([]);
    await sqlRecords(dialect(''))
      .reader(x)
      .findSearchCandidates({
        projectIds: ['p1', 'p2'],
        query: { kind: 'term', term: 'x' } as never,
        conditions: [],
        withText: true,
        limit: 10,
      });
    expect(sent[0]?.sql.replace(/\s+/g, ' ')).toContain(
      'JOIN texts s ON s.file_id = f.id WHERE f.project_id IN LIST($1) AND MATCHES($2) ORDER BY f.project_id, f.filename LIMIT $3',
    );
    expect(sent[0]?.params).toEqual(['["p1","p2"]', 'q', 10]);
  });

  it('bounds a scan batch in the statement: a LIMIT, and no text column unless asked (search cost bounds)', async () => {
    const { x, sent } = recording([]);
    await sqlRecords(dialect(''))
      .reader(x)
      .findSearchCandidates({
        projectIds: ['p1'],
        query: { kind: 'term', term: 'x' } as never,
        conditions: [],
        withText: false,
        after: { projectId: 'p1', filename: 'a.md' },
        limit: 501,
      });
    const sql = sent[0]!.sql.replace(/\s+/g, ' ');
    expect(sql).not.toContain('s.text');
    expect(sql).toMatch(/ORDER BY f\.project_id, f\.filename LIMIT \$\d+\s*$/);
    expect(sent[0]?.params.at(-1)).toBe(501);
  });
});
