import { copyFile } from 'node:fs/promises';
import { anAccount } from '@mdstore/core/testing';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Checkpointer, startCheckpointer } from '../src/checkpointer.js';
import { openSqliteStore, type SqliteStore } from '../src/index.js';
import { tempDatabase } from './temp-db.js';

let database: Awaited<ReturnType<typeof tempDatabase>>;
beforeEach(async () => {
  database = await tempDatabase();
});
afterEach(async () => {
  await database.remove();
});

/** The rows of `table` found in the database file alone, without its WAL: what checkpoints copied. */
async function rowsInDatabaseFile(table: string): Promise<number> {
  const copy = `${database.path}.copy`;
  await copyFile(database.path, copy);
  const db = new Database(copy, { readonly: true });
  try {
    return Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
  } finally {
    db.close();
  }
}

const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('checkpointer (a worker thread)', () => {
  let checkpointer: Checkpointer | undefined;
  afterEach(async () => {
    await checkpointer?.close();
  });

  it('copies committed WAL pages into the database file, off the writer', async () => {
    const writer = new Database(database.path);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0'); // the writer itself never checkpoints here
    writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
    const insert = writer.prepare('INSERT INTO t (body) VALUES (?)');
    for (let row = 0; row < 50; row += 1) insert.run(Buffer.alloc(4096, row));
    expect(await rowsInDatabaseFile('t').catch(() => 0)).toBe(0);

    checkpointer = startCheckpointer(database.path, 10);
    checkpointer.committed();
    await until(() => checkpointer!.completed() >= 1);
    expect(await rowsInDatabaseFile('t')).toBe(50);
    writer.close();
  });

  it('runs at most one checkpoint per interval however many commits report in', async () => {
    const writer = new Database(database.path);
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    checkpointer = startCheckpointer(database.path, 60_000);
    for (let commit = 0; commit < 100; commit += 1) checkpointer.committed();
    await until(() => checkpointer!.completed() >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(checkpointer.completed()).toBe(1);
    writer.close();
  });
});

describe('SQLite store: checkpoints', () => {
  let store: SqliteStore | undefined;
  afterEach(async () => {
    await store?.close();
  });

  it('checkpoints its commits in the background (the writer alone would wait for a far larger WAL)', async () => {
    store = await openSqliteStore({ path: database.path });
    const names = Array.from({ length: 20 }, (_, index) => `account-${index}`);
    for (const name of names) {
      await store.records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name }) }));
    }
    await until(async () => (await rowsInDatabaseFile('accounts').catch(() => 0)) === names.length);
  });
});
