import type { ChangeNotifier } from '@mdstore/core';
import { type Db, openConnection } from './connections.js';

/** How often the database is asked whether another connection committed (`PRAGMA data_version`). */
export const COMMIT_WATCH_INTERVAL_MS = 500;
/** Events are looked for from this long before the newest one seen: a transaction's `at` precedes its commit. */
const LOOK_BACK_MS = 2_000;

export interface SqliteChangeNotices extends ChangeNotifier {
  close(): void;
}

/**
 * Notices of change events committed by any process sharing the database file (extensions §7): SQLite
 * has no `NOTIFY`, so a connection of its own asks `PRAGMA data_version` (a counter that moves when
 * another connection commits; reading it costs no table read) every `intervalMs`, and only when it
 * moved, which accounts got events since it last looked (by the events' age index). A hint, like
 * Postgres's notices: held reads re-read the feed themselves, so a commit whose event is older than the
 * look-back when it lands is still seen by their slow safety read. Nothing runs before the first
 * subscription; the timer does not keep the process alive.
 */
export function watchChangeNotices(o: {
  path: string;
  busyTimeoutMs: number;
  intervalMs?: number;
}): SqliteChangeNotices {
  const listeners = new Set<(accountId: string) => void>();
  const intervalMs = o.intervalMs ?? COMMIT_WATCH_INTERVAL_MS;
  let db: Db | undefined;
  let timer: NodeJS.Timeout | undefined;
  let version: number | undefined;
  /** The newest event time seen, and each account's newest seq seen from it on. */
  let newestAt = 0;
  let seen = new Map<string, number>();

  const recent = (): Array<{ account_id: string; seq: number; at: number }> =>
    db!
      .prepare<[number], { account_id: string; seq: number; at: number }>(
        'SELECT account_id, MAX(seq) AS seq, MAX(at) AS at FROM change_events WHERE at >= ? GROUP BY account_id',
      )
      .all(newestAt - LOOK_BACK_MS);

  const look = (): void => {
    try {
      const now = Number(db!.pragma('data_version', { simple: true }));
      if (now === version) return;
      if (version === undefined) {
        // The first look only finds where the feed stands (one index read), announcing nothing.
        version = now;
        newestAt = Number(db!.prepare('SELECT COALESCE(MAX(at), 0) FROM change_events').pluck().get());
        return;
      }
      version = now;
      const rows = recent();
      const next = new Map<string, number>();
      let newest = newestAt;
      for (const row of rows) {
        next.set(row.account_id, row.seq);
        newest = Math.max(newest, row.at);
        if (row.seq > (seen.get(row.account_id) ?? 0)) publish(row.account_id);
      }
      seen = next;
      newestAt = newest;
    } catch {
      // A hint only: a busy or failing read is tried again at the next tick.
    }
  };

  const publish = (accountId: string): void => {
    for (const listener of [...listeners]) {
      try {
        listener(accountId);
      } catch {
        // A listener's failure is its own.
      }
    }
  };

  const start = (): void => {
    db = openConnection({
      path: o.path,
      busyTimeoutMs: o.busyTimeoutMs,
      synchronous: 'NORMAL',
      readonly: true,
    });
    look();
    timer = setInterval(look, intervalMs);
    timer.unref();
  };

  return {
    subscribe(listener) {
      if (db === undefined) start();
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      if (timer) clearInterval(timer);
      db?.close();
      listeners.clear();
    },
  };
}
