import type { ChangeNotifier } from '../../ports/changes.js';
import type { RecordsRepository, RecordsTransaction } from '../../ports/records.js';

/** A `ChangeNotifier` within one process: `publish` calls every listener (a throwing one is skipped). */
export class LocalChangeNotifier implements ChangeNotifier {
  private readonly listeners = new Set<(accountId: string) => void>();

  subscribe(listener: (accountId: string) => void): () => void {
    // A wrapper per subscription: the same function subscribed twice is two subscriptions.
    const entry = (accountId: string) => listener(accountId);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  publish(accountId: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(accountId);
      } catch {
        // A hint only: one listener's failure must not keep the others from hearing it.
      }
    }
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

/**
 * The records store, telling `publish` after each commit which accounts got events in it, and how many (never before
 * the commit, never for a transaction that rolled back). Nothing else changes.
 */
export function noticingRecords(
  records: RecordsRepository,
  publish: (accountId: string, events: number) => void,
): RecordsRepository {
  const withTransaction = async <T>(work: (tx: RecordsTransaction) => Promise<T>): Promise<T> => {
    const accounts = new Map<string, number>();
    const result = await records.withTransaction((tx) => {
      const noticing = new Proxy(tx, {
        get(target, name) {
          if (name === 'appendChangeEvents') {
            return (c: Parameters<RecordsTransaction['appendChangeEvents']>[0]) => {
              for (const event of c.events)
                accounts.set(event.accountId, (accounts.get(event.accountId) ?? 0) + 1);
              return target.appendChangeEvents(c);
            };
          }
          const value = Reflect.get(target, name, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      return work(noticing);
    });
    for (const [accountId, events] of accounts) publish(accountId, events);
    return result;
  };
  return new Proxy(records, {
    get(target, name) {
      if (name === 'withTransaction') return withTransaction;
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
