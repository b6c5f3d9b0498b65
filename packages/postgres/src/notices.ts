import type { ChangeNotifier } from '@mdstore/core';
import pg from 'pg';
import { mergeStartupOptions, quoteIdentifier } from './pool.js';

/** The channel every writing transaction notifies at commit (the dialect's `changeNotice`). */
export const CHANGES_CHANNEL = 'mdstore_changes';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;

export interface PostgresChangeNotices extends ChangeNotifier {
  close(): Promise<void>;
}

/**
 * Listens for the change feed's notices of every instance sharing the database (`LISTEN`, on a
 * dedicated connection that is opened again after it drops, with a growing pause), and tells the
 * subscribers which account got events (from the first subscription on). A notice is a hint: one lost while reconnecting is covered by
 * the readers' slow safety poll.
 */
export function listenForChanges(o: {
  connectionString: string;
  schema: string | undefined;
}): PostgresChangeNotices {
  const listeners = new Set<(accountId: string) => void>();
  let client: pg.Client | undefined;
  let closed = false;
  let pause = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const deliver = (payload: string | undefined, schema: string): void => {
    if (payload === undefined) return;
    const space = payload.indexOf(' ');
    if (space < 0 || payload.slice(0, space) !== schema) return;
    const accountId = payload.slice(space + 1);
    for (const listener of [...listeners]) {
      try {
        listener(accountId);
      } catch {
        // A hint only.
      }
    }
  };

  const retry = (): void => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, pause);
    timer.unref();
    pause = Math.min(pause * 2, RECONNECT_MAX_MS);
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client(
      mergeStartupOptions(
        o.connectionString,
        o.schema === undefined ? undefined : `-c search_path=${quoteIdentifier(o.schema)}`,
      ),
    );
    next.on('error', () => {
      if (client === next) client = undefined;
      next.end().catch(() => undefined);
      retry();
    });
    try {
      await next.connect();
      const { rows } = await next.query<{ schema: string }>('SELECT current_schema() AS schema');
      const schema = rows[0]?.schema ?? 'public';
      next.on('notification', (message) => {
        if (message.channel === CHANGES_CHANNEL) deliver(message.payload, schema);
      });
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (closed) {
        await next.end();
        return;
      }
      client = next;
      pause = RECONNECT_MIN_MS;
    } catch {
      await next.end().catch(() => undefined);
      retry();
    }
  };

  let started = false;
  return {
    subscribe(listener) {
      const entry = (accountId: string) => listener(accountId);
      listeners.add(entry);
      // The connection opens with the first subscriber: a store nobody listens on (the admin CLI) has none.
      if (!started && !closed) {
        started = true;
        void connect();
      }
      return () => {
        listeners.delete(entry);
      };
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
