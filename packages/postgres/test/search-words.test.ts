import { SEARCH_COST_LIMITS } from '@mdstore/core';
import { aRevision } from '@mdstore/core/testing';
import type { Row, SqlExecutor } from '@mdstore/sql';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { POSTGRES_DIALECT } from '../src/dialect.js';
import { aFile, anAccount, aProject, useStores } from './support/fixtures.js';
import { skipPostgres, TEST_DATABASE_URL } from './support/pg-available.js';

/** Rows read from `search_words` (its table or indexes) by the nodes of an `EXPLAIN (ANALYZE, FORMAT JSON)` plan. */
function wordRowsRead(node: Record<string, unknown>): number {
  const own =
    typeof node['Relation Name'] === 'string' && node['Relation Name'] === 'search_words'
      ? ((node['Actual Rows'] as number) + ((node['Rows Removed by Filter'] as number | undefined) ?? 0)) *
        (node['Actual Loops'] as number)
      : 0;
  const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
  return own + children.reduce((sum, child) => sum + wordRowsRead(child), 0);
}

describe.skipIf(skipPostgres)('postgres search word list (issue 34)', () => {
  const { open, newSchema } = useStores();

  it(`expands a prefix from its word list, reading about \`limit\` rows of it whatever the number of words`, async () => {
    const schema = await newSchema();
    const { records } = await open({ schema });
    const account = anAccount();
    const project = aProject({ accountId: account.id });
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    // 2 028 words `loaaa` … `lozzc`, far more than the bound.
    const words = [...letters].flatMap((a) =>
      [...letters].flatMap((b) => [...'abc'].map((c) => `lo${a}${b}${c}`)),
    );
    const file = aFile({ projectId: project.id, filename: 'all.md' });
    await records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      await tx.insertProject({ project });
      await tx.insertFile({ file });
      await tx.insertRevision({ revision: aRevision(file) });
      await tx.indexFile({ file, contentText: words.join(' ') });
    });
    // Without the word list Postgres has no vocabulary to read and answers null (`:*` over the GIN index).
    const max = SEARCH_COST_LIMITS.prefixMaxTerms;
    expect(await records.expandSearchPrefix({ word: 'lo', limit: max + 1 })).toEqual(words.slice(0, max + 1));

    // The dialect's own statement, explained: the rows it reads from search_words follow the limit.
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`SET search_path TO ${schema}`);
      const read: number[] = [];
      const explaining: SqlExecutor = {
        all: async (sql, params) => {
          const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, [...params]);
          const plan = (rows[0] as { 'QUERY PLAN': [{ Plan: Record<string, unknown> }] })['QUERY PLAN'][0]
            .Plan;
          read.push(wordRowsRead(plan));
          return [] as Row[];
        },
        get: () => undefined,
        run: () => 0,
        write: () => undefined,
      };
      const limits = [1, 10, max + 1];
      for (const limit of limits) await POSTGRES_DIALECT.search.expandPrefix!(explaining, 'lo', limit);
      // One row per word kept, and at most one more where the scan looks past the last one.
      for (const [index, limit] of limits.entries()) {
        expect(read[index]).toBeGreaterThanOrEqual(limit);
        expect(read[index]).toBeLessThanOrEqual(limit + 1);
      }
    } finally {
      await client.end();
    }
  });
});
