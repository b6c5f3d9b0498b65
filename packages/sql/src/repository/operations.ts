import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import type { SqlContext } from './context.js';

type OperationReads = Pick<RecordsReader, 'listBlobIntents' | 'listInstances'>;
type OperationWrites = Pick<
  RecordsTransaction,
  'insertBlobIntent' | 'deleteBlobIntent' | 'upsertInstance' | 'deleteInstance'
>;

/** What keeps writes whole: blob intents, and the instances that own them. */
export function operationStatements(c: SqlContext) {
  const { blobIntents, instances } = c;
  const s = {
    // Keyset pagination on the primary key; the first page starts after '', below every (non-empty) id.
    intents: c.sql(`SELECT ${blobIntents.columns()} FROM blob_intents WHERE id > ? ORDER BY id LIMIT ?`),
    deleteIntent: c.sql('DELETE FROM blob_intents WHERE id = ?'),
    instances: `SELECT ${instances.columns()} FROM instances ORDER BY started_at, id`,
    upsertInstance: `${instances.insert} ON CONFLICT (id) DO UPDATE SET hostname = excluded.hostname,
      pid = excluded.pid, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
    deleteInstance: c.sql('DELETE FROM instances WHERE id = ?'),
  };
  return {
    reads: (x: SqlExecutor): OperationReads => ({
      listBlobIntents: async (q) =>
        (await x.all(s.intents, [q.afterId ?? '', q.limit])).map(blobIntents.fromRow),
      listInstances: async () => (await x.all(s.instances, [])).map(instances.fromRow),
    }),
    writes: (x: SqlExecutor): OperationWrites => ({
      insertBlobIntent: async (c) => {
        await x.write(blobIntents.insert, blobIntents.insertValues(c.intent));
      },
      deleteBlobIntent: async (c) => (await x.run(s.deleteIntent, [c.intentId])) > 0,
      upsertInstance: async (c) => {
        await x.write(s.upsertInstance, instances.insertValues(c.instance));
      },
      deleteInstance: async (c) => {
        await x.write(s.deleteInstance, [c.instanceId]);
      },
    }),
  };
}
