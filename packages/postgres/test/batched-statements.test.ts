import { aRevision } from '@mdstore/core/testing';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inlineParameters } from '../src/literals.js';
import { runTransaction } from '../src/transaction.js';
import { aFile, anAccount, aProject, useStores } from './support/fixtures.js';
import { skipPostgres } from './support/pg-available.js';

/** A client that records every message it is sent and answers each with no rows. */
const recordingPool = (fail?: (text: string) => Error | undefined) => {
  const log: string[] = [];
  const client = {
    on: () => undefined,
    removeListener: () => undefined,
    query: async (text: string) => {
      log.push(text);
      const error = fail?.(text);
      if (error) throw error;
      return { rows: [{ n: 1 }], rowCount: 1 };
    },
    release: () => undefined,
  };
  return { pool: { connect: async () => client } as unknown as pg.Pool, log };
};

describe('a transaction sends its statements in as few messages as it can', () => {
  it('BEGIN and the deferred writes go with the next statement; the rest with the COMMIT', async () => {
    const { pool, log } = recordingPool();
    await runTransaction(pool, async ({ query, defer }) => {
      defer('INSERT INTO t (a, b) VALUES ($1, $2)', ['x', 2]);
      await query('SELECT * FROM t WHERE a = $1 FOR UPDATE', ['x']);
      defer('UPDATE t SET b = $1', [3]);
      defer('DELETE FROM u WHERE id = $1', ['y']);
    });
    expect(log).toEqual([
      "BEGIN;\nINSERT INTO t (a, b) VALUES ('x', '2');\nSELECT * FROM t WHERE a = 'x' FOR UPDATE",
      "UPDATE t SET b = '3';\nDELETE FROM u WHERE id = 'y';\nCOMMIT",
    ]);
  });

  it('a statement with nothing pending keeps its parameters (extended protocol)', async () => {
    const { pool, log } = recordingPool();
    await runTransaction(pool, async ({ query }) => {
      await query('SELECT 1');
      await query('SELECT $1', ['kept']);
    });
    expect(log).toEqual(['BEGIN;\nSELECT 1', 'SELECT $1', 'COMMIT']);
  });

  it('a transaction that sends nothing costs no round trip; one that fails before sending, no ROLLBACK', async () => {
    const { pool, log } = recordingPool();
    await runTransaction(pool, async () => undefined);
    const boom = new Error('boom');
    await expect(
      runTransaction(pool, async ({ defer }) => {
        defer('INSERT INTO t (a) VALUES ($1)', ['x']);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(log).toEqual([]);
  });

  it('a failed statement the work swallowed prevents the COMMIT (Postgres would silently roll back)', async () => {
    const failure = Object.assign(new Error('unique'), {
      code: '23505',
      constraint: 'files_project_filename_key',
    });
    const { pool, log } = recordingPool((text) => (text.includes('INSERT') ? failure : undefined));
    const outcome = runTransaction(pool, async ({ query, defer }) => {
      defer('INSERT INTO files (a) VALUES ($1)', ['x']);
      await query('SELECT 1').catch(() => undefined);
      return 'done';
    });
    await expect(outcome).rejects.toMatchObject({ code: 'RECORD_CONFLICT', rule: 'filename' });
    expect(log).toEqual(["BEGIN;\nINSERT INTO files (a) VALUES ('x');\nSELECT 1", 'ROLLBACK']);
  });
});

describe('parameters written in as literals', () => {
  it('quotes strings, numbers, booleans, arrays and bytes; NULL for null; $10 is not $1', () => {
    const values = ['a', 2, true, null, [1, 2], ['x"y', 'z\\'], new Uint8Array([0, 255]), "it's", 'a\\b'];
    const sql = inlineParameters('$1 $2 $3 $4 $5 $6 $7 $8 $9 $10', [...values, 'ten']);
    // pg.escapeLiteral writes a string holding a backslash as ` E'…'` with the backslash doubled.
    expect(sql).toBe(
      String.raw`'a' '2' 'true' NULL '{1,2}'  E'{"x\\"y","z\\\\"}'  E'\\x00ff' 'it''s'  E'a\\b' 'ten'`,
    );
  });
});

describe.skipIf(skipPostgres)('batched statements on Postgres', () => {
  const { open } = useStores();
  afterEach(() => vi.restoreAllMocks());

  it('values written through literals read back exactly: quotes, backslashes, $n, emoji, every byte', async () => {
    const { records } = await open();
    const account = anAccount({ name: `it's \\ $1 '' E'x' 😀 ${Math.random()}` });
    const project = aProject({ accountId: account.id, description: "a 'quoted' \\x00 \\\\ description" });
    const file = aFile({
      projectId: project.id,
      filename: "q'uote\\back$2.md",
      metadataJson: '{"s":"\\\\u0000 \' \\"","n":5000000000}',
      sizeBytes: 5_000_000_000,
    });
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    await records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      await tx.insertProject({ project });
      await tx.insertInlineContent({ projectId: project.id, contentKey: 'k', bytes });
      await tx.insertFile({ file });
      await tx.insertRevision({ revision: aRevision(file, { revision: 1 }) });
      await tx.insertRevision({ revision: aRevision(file, { revision: 2 }) });
      await tx.deleteRevisions({ fileId: file.id, revisions: [1] });
    });
    await expect(records.findAccountById({ accountId: account.id })).resolves.toEqual(account);
    await expect(records.findProjectById({ projectId: project.id })).resolves.toEqual(project);
    await expect(records.findFile({ projectId: project.id, filename: file.filename })).resolves.toEqual(file);
    expect([
      ...((await records.readInlineContent({ projectId: project.id, contentKey: 'k' })) ?? []),
    ]).toEqual([...bytes]);
    expect((await records.listRevisions({ fileId: file.id, limit: 10 })).map((r) => r.revision)).toEqual([2]);
  });

  it('a commit transaction of an upload is two round trips: BEGIN with the first writes and the lock, the rest with COMMIT', async () => {
    const { records } = await open();
    const account = anAccount();
    const project = aProject({ accountId: account.id });
    await records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      await tx.insertProject({ project });
    });
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    const file = aFile({ projectId: project.id });
    await records.withTransaction(async (tx) => {
      await tx.insertInlineContent({
        projectId: project.id,
        contentKey: file.contentKey,
        bytes: new Uint8Array([1]),
      });
      const locked = await tx.lockProject({ projectId: project.id });
      await tx.insertFile({ file });
      await tx.indexFile({ file, contentText: '# Hello' });
      await tx.insertRevision({ revision: aRevision(file, { revision: 1 }) });
      await tx.updateProject({ project: { ...locked!, fileCount: 1 } });
    });
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();
    expect((await records.findProjectById({ projectId: project.id }))?.fileCount).toBe(1);
    expect((await records.listFiles({ projectId: project.id })).map((f) => f.id)).toEqual([file.id]);
  });

  it("a deferred write's unique conflict rolls back the whole transaction, reported by withTransaction", async () => {
    const { records } = await open();
    const taken = anAccount({ name: 'taken' });
    await records.withTransaction(async (tx) => tx.insertAccount({ account: taken }));
    const fresh = anAccount();
    const failing = records.withTransaction(async (tx) => {
      await tx.insertAccount({ account: fresh });
      await tx.insertAccount({ account: anAccount({ name: 'taken' }) });
    });
    await expect(failing).rejects.toMatchObject({ code: 'RECORD_CONFLICT', rule: 'account_name' });
    await expect(records.findAccountById({ accountId: fresh.id })).resolves.toBeNull();
  });
});
