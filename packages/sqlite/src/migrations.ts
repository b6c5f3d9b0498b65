import { StoreUnavailableError } from '@mdstore/core';
import { type Db, DEFAULT_BUSY_TIMEOUT_MS, enableWal, openConnection, retryOnBusy } from './connections.js';
import { toStoreError } from './errors.js';
import { MIGRATIONS, type Migration } from './schema.js';

export interface MigrationReport {
  readonly fromVersion: number;
  readonly toVersion: number;
  /** Versions applied by this call (empty when another process had already applied them). */
  readonly applied: readonly number[];
}

const userVersion = (db: Db): number => Number(db.pragma('user_version', { simple: true }));

const latestOf = (migrations: readonly Migration[]): number => {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) throw new Error('Migrations must be numbered 1, 2, 3… in order');
  });
  return migrations.length;
};

const refuseNewer = (current: number, latest: number): void => {
  if (current > latest) {
    throw new StoreUnavailableError(
      `SQLite: the database has schema version ${current}, newer than this mdstore (${latest}); upgrade mdstore`,
    );
  }
};

/**
 * Brings the schema of `db` to the latest version. The version is SQLite's `user_version`, read and
 * written inside one `BEGIN IMMEDIATE` transaction with the DDL (SQLite's DDL is transactional): when two
 * processes open a fresh file at once, the second waits for the write lock, then finds nothing to do.
 * The version is first read without the lock so that an up-to-date database costs no write lock at open.
 */
export async function applyMigrations(
  db: Db,
  o: { busyTimeoutMs: number; migrations?: readonly Migration[] },
): Promise<MigrationReport> {
  const migrations = o.migrations ?? MIGRATIONS;
  const latest = latestOf(migrations);
  const before = userVersion(db);
  refuseNewer(before, latest);
  if (before === latest) return { fromVersion: before, toVersion: latest, applied: [] };

  await retryOnBusy(() => db.exec('BEGIN IMMEDIATE'), o);
  try {
    const current = userVersion(db);
    refuseNewer(current, latest);
    const pending = migrations.filter((migration) => migration.version > current);
    for (const migration of pending) db.exec(migration.sql);
    db.pragma(`user_version = ${latest}`);
    db.exec('COMMIT');
    return {
      fromVersion: current,
      toVersion: latest,
      applied: pending.map((migration) => migration.version),
    };
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw toStoreError(error);
  }
}

/** Creates or upgrades the database at `path` (WAL mode, latest schema), then closes it. For the CLI. */
export async function migrateSqlite(o: { path: string; busyTimeoutMs?: number }): Promise<MigrationReport> {
  const busyTimeoutMs = o.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const db = openConnection({ path: o.path, busyTimeoutMs, synchronous: 'FULL' });
  try {
    await enableWal(db, busyTimeoutMs);
    return await applyMigrations(db, { busyTimeoutMs });
  } finally {
    db.close();
  }
}
