import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { POSTGRES_DIALECT } from '../src/dialect.js';
import { useStores } from './support/fixtures.js';
import { skipPostgres, TEST_DATABASE_URL } from './support/pg-available.js';

/**
 * Extensions §12: a wiki link names an attachment by its last path segment; the look-up reads the index
 * on that expression (migration 20), whatever the number of the project's attachments.
 */
describe.skipIf(skipPostgres)('postgres attachments by name', () => {
  const { open, newSchema } = useStores();

  it('searches attachments_name_idx, not the table', async () => {
    const schema = await newSchema();
    await open({ schema });
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`SET search_path TO ${schema}`);
      // A plan on an empty table prefers a scan: ask for the index's plan as a large table would get it.
      await client.query('SET enable_seqscan = off');
      const names = POSTGRES_DIALECT.inList(POSTGRES_DIALECT.attachmentName, '$2', 'text');
      const { rows } = await client.query(
        `EXPLAIN (FORMAT JSON) SELECT id FROM attachments WHERE project_id = $1 AND ${names}`,
        ['p', ['diagram.png']],
      );
      const plan = JSON.stringify(rows[0]['QUERY PLAN']);
      expect(plan).toContain('"Index Name":"attachments_name_idx"');
      expect(plan).not.toContain('Seq Scan');
    } finally {
      await client.end();
    }
  });
});
