import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { projectPageStatement } from '../listing.js';
import { count, orNull, type SqlContext } from './context.js';

type ProjectReads = Pick<
  RecordsReader,
  | 'findProjectById'
  | 'findActiveProjectByName'
  | 'listProjects'
  | 'listProjectsByStatus'
  | 'listProjectPage'
  | 'countProjects'
>;
type ProjectWrites = Pick<RecordsTransaction, 'lockProject' | 'insertProject' | 'updateProject'>;

/** Projects. */
export function projectStatements(c: SqlContext) {
  const { projects, dialect } = c;
  const PROJECT = `SELECT ${projects.columns()} FROM projects`;
  const s = {
    byId: c.sql(`${PROJECT} WHERE id = ?`),
    activeByName: c.sql(`${PROJECT} WHERE account_id = ? AND name = ? AND status = 'active'`),
    ofAccount: c.sql(`${PROJECT} WHERE account_id = ? ORDER BY created_at, id`),
    byStatus: c.sql(`${PROJECT} WHERE status = ? ORDER BY created_at, id`),
    count: c.sql('SELECT COUNT(*) AS n FROM projects WHERE account_id = ?'),
    // The row lock of the port: FOR UPDATE, or nothing where the transaction holds the write lock.
    lock: c.sql(`${PROJECT} WHERE id = ?${dialect.lockClause}`),
  };
  return {
    reads: (x: SqlExecutor): ProjectReads => ({
      findProjectById: async (q) => orNull(await x.get(s.byId, [q.projectId]), projects.fromRow),
      findActiveProjectByName: async (q) =>
        orNull(await x.get(s.activeByName, [q.accountId, q.name]), projects.fromRow),
      listProjects: async (q) => (await x.all(s.ofAccount, [q.accountId])).map(projects.fromRow),
      listProjectsByStatus: async (q) => (await x.all(s.byStatus, [q.status])).map(projects.fromRow),
      listProjectPage: async (q) => {
        const { sql, params } = projectPageStatement(projects.columns(), dialect, q);
        return (await x.all(sql, params)).map(projects.fromRow);
      },
      countProjects: async (q) => count((await x.get(s.count, [q.accountId]))?.n),
    }),
    writes: (x: SqlExecutor): ProjectWrites => ({
      lockProject: async (q) => orNull(await x.get(s.lock, [q.projectId]), projects.fromRow),
      insertProject: async (c) => {
        await x.write(projects.insert, projects.insertValues(c.project));
      },
      updateProject: async (c) => {
        await x.write(projects.update, projects.updateValues(c.project));
      },
    }),
  };
}
