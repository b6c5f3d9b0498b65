import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArchiveRow } from '@mdstore/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/create.js';
import { decodeRow, type Manifest } from '../../src/backup/format.js';
import { openBackupLocation } from '../../src/backup/location.js';
import { readLines } from '../../src/backup/verify.js';
import { skipWithoutPostgres } from '../support/adapters.js';
import { openPair, type PairName, text } from './pairs.js';

/**
 * Extensions §16: a backup taken while writes go on holds every write acknowledged before it began and
 * exactly a prefix of the writes in commit order (the change feed's order): the first M events of the
 * feed, the files they created, and counters that agree with them.
 */

const skipPostgres = await skipWithoutPostgres('backup under load');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mdstore-backup-load-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tableRows(
  backup: string,
  manifest: Manifest,
  name: string,
): Promise<Record<string, unknown>[]> {
  const table = manifest.tables.find((t) => t.name === name)!;
  const rows: Record<string, unknown>[] = [];
  const location = await openBackupLocation(backup);
  await readLines(location, table.file, (line) => {
    const row: ArchiveRow = decodeRow(table.columns, line);
    rows.push(Object.fromEntries(table.columns.map((column, i) => [column.name, row[i]])));
  });
  return rows;
}

const WRITERS = 3;

async function backupUnderLoad(name: PairName) {
  const pair = await openPair(name);
  try {
    const created = await pair.store.accounts.create({ name: 'writer' });
    const principal = await pair.store.authenticate({ apiKey: created.apiKey.apiKey });
    const projectId = created.defaultProject.id;
    const acknowledged: string[] = [];
    let stop = false;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let n = 0; !stop; n += 1) {
        const filename = `w${writer}/${n}.md`;
        // Some inline, some in the blob store.
        const body = n % 2 === 0 ? `# ${filename}\n` : `# ${filename}\n${'x'.repeat(100)}\n`;
        await pair.store.files.upload({ principal, projectId, filename, content: text(body) });
        acknowledged.push(filename);
      }
    });
    while (acknowledged.length < 12) await new Promise((resolve) => setTimeout(resolve, 5));
    const before = new Set(acknowledged);
    const path = join(dir, `${name}-under-load`);
    const { manifest } = await createBackup(pair, { to: path, pageRows: 4 });
    const duringBackup = acknowledged.length - before.size;
    while (acknowledged.length < before.size + duringBackup + 6)
      await new Promise((resolve) => setTimeout(resolve, 5));
    stop = true;
    await Promise.all(writers);
    // The writes went on while the backup ran.
    expect(duringBackup).toBeGreaterThan(0);

    const files = await tableRows(path, manifest, 'files');
    const names = new Set(files.map((file) => String(file.filename)));
    for (const filename of before) expect(names.has(filename), filename).toBe(true);

    // The backup's feed is the first M events of the store's final feed, with nothing missing or extra.
    const events = await tableRows(path, manifest, 'change_events');
    const final = await pair.archive.openSnapshot();
    const finalEvents: ArchiveRow[] = [];
    try {
      for await (const page of final.rows({ table: 'change_events', pageSize: 100 }))
        finalEvents.push(...page);
    } finally {
      await final.close();
    }
    const eventTable = manifest.tables.find((t) => t.name === 'change_events')!;
    const asObjects = finalEvents.map((row) =>
      Object.fromEntries(eventTable.columns.map((column, i) => [column.name, row[i]])),
    );
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(asObjects.length);
    expect(events).toEqual(asObjects.slice(0, events.length));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    // Exactly the files those events created, and the counters and feed head that go with them.
    const createdNames = events
      .filter((event) => event.type === 'file.created')
      .map((event) => event.filename);
    expect(createdNames.length).toBeGreaterThan(0);
    expect([...names].sort()).toEqual([...createdNames].sort());
    const [head] = await tableRows(path, manifest, 'change_feed_heads');
    expect(head?.last_seq).toBe(events.length);
    const project = (await tableRows(path, manifest, 'projects')).find((p) => p.id === projectId)!;
    expect(project.file_count).toBe(files.length);
    expect(project.total_size_bytes).toBe(files.reduce((sum, file) => sum + Number(file.size_bytes), 0));
    const revisions = await tableRows(path, manifest, 'file_revisions');
    expect(revisions.length).toBe(files.length);
    const saved = JSON.parse(await readFile(join(path, 'manifest.json'), 'utf8')) as Manifest;
    expect(saved.checksum).toBe(manifest.checksum);
  } finally {
    await pair.close();
  }
}

describe('a backup taken under a write load', () => {
  it(
    'SQLite + fs: holds every write acknowledged before it, and a prefix of the rest',
    () => backupUnderLoad('sqlite-fs'),
    120_000,
  );
  it.skipIf(skipPostgres)(
    'Postgres + S3: holds every write acknowledged before it, and a prefix of the rest',
    () => backupUnderLoad('postgres-s3'),
    120_000,
  );
});
