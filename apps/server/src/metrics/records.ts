import type { RecordsRepository } from '@mdstore/core';
import type { ServerMetrics } from './metrics.js';

/**
 * The records repository with every `withTransaction` timed (commit or rollback); everything else goes
 * straight to the adapter. A proxy rather than a copy: the adapters are classes whose methods live on
 * their prototypes.
 */
export function instrumentRecords(
  records: RecordsRepository,
  metrics: Pick<ServerMetrics, 'observeTransaction'>,
): RecordsRepository {
  const withTransaction: RecordsRepository['withTransaction'] = async (work) => {
    const started = performance.now();
    try {
      const result = await records.withTransaction(work);
      metrics.observeTransaction('commit', (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      metrics.observeTransaction('rollback', (performance.now() - started) / 1000);
      throw error;
    }
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(records, {
    get(target, property) {
      if (property === 'withTransaction') return withTransaction;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!bound.has(property)) bound.set(property, value.bind(target));
      return bound.get(property);
    },
  });
}
