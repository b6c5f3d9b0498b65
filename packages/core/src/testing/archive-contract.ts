import { describe, expect } from 'vitest';
import { isMdStoreError } from '../errors.js';
import type {
  ArchiveRow,
  ArchiveTable,
  ArchiveValue,
  RecordsArchive,
  RecordsSnapshot,
} from '../ports/archive.js';
import type { RecordsRepository } from '../ports/records.js';
import { anAccount, BASE_TIME } from './builders.js';
import { testWithHarness } from './harness.js';

export interface RecordsArchiveHarness {
  /** The archive of a fresh, empty store. */
  archive: RecordsArchive;
  /** The records of the same store, for writes made while a snapshot is open. */
  records: RecordsRepository;
  cleanup(): Promise<void>;
}

const tableOf = (archive: RecordsArchive, name: string): ArchiveTable => {
  const table = archive.tables.find((t) => t.name === name);
  if (!table) throw new Error(`no table ${name}`);
  return table;
};

/** A row of `table` from values by column name; columns not named are null. */
const rowOf = (table: ArchiveTable, values: Readonly<Record<string, ArchiveValue>>): ArchiveRow =>
  table.columns.map((column) => values[column.name] ?? null);

async function allRows(snapshot: RecordsSnapshot, table: string, pageSize = 1000): Promise<ArchiveRow[]> {
  const rows: ArchiveRow[] = [];
  for await (const page of snapshot.rows({ table, pageSize })) {
    expect(page.length).toBeLessThanOrEqual(pageSize);
    rows.push(...page);
  }
  return rows;
}

const accountRow = (archive: RecordsArchive, id: string) =>
  rowOf(tableOf(archive, 'accounts'), { id, name: `name ${id}`, tier: 'standard', created_at: BASE_TIME });

const projectRow = (archive: RecordsArchive, o: { id: string; accountId: string; bucket: string }) =>
  rowOf(tableOf(archive, 'projects'), {
    id: o.id,
    account_id: o.accountId,
    name: `project ${o.id}`,
    description: null,
    bucket_name: o.bucket,
    is_default: true,
    status: 'active',
    file_count: 0,
    // Beyond 2^32, up to 2^53 - 1: integers are carried exactly.
    total_size_bytes: Number.MAX_SAFE_INTEGER,
    history_size_bytes: 2 ** 40 + 7,
    trash_size_bytes: 0,
    attachment_count: 0,
    attachment_bytes: 0,
    require_if_match: false,
    keep_revisions: 20,
    keep_revisions_days: 0,
    trash_retention_days: 0,
    created_at: BASE_TIME,
    updated_at: BASE_TIME + 1,
  });

const revisionRow = (
  archive: RecordsArchive,
  o: { fileId: string; revision: number; projectId: string; key: string; inline: boolean; sha256: string },
) =>
  rowOf(tableOf(archive, 'file_revisions'), {
    file_id: o.fileId,
    revision: o.revision,
    project_id: o.projectId,
    size_bytes: 10 + o.revision,
    sha256: o.sha256,
    metadata_json: '{"b":1,"a":[true,null]}',
    change: 'created',
    content_key: o.key,
    inline: o.inline,
    created_at: BASE_TIME,
    changeset_id: null,
    message: null,
    filename: `notes ${o.revision}.md`,
  });

const hex = (char: string) => char.repeat(64);

/**
 * The compliance suite of `RecordsArchive` (extensions §16): rows carried exactly by type and read in
 * binary key order page by page, snapshots isolated from later commits without blocking them, the blob
 * references of a snapshot, and restores that refuse a store in use and are redone after a crash.
 */
export function describeRecordsArchiveContract(
  adapterName: string,
  open: () => Promise<RecordsArchiveHarness>,
): void {
  const test = testWithHarness(open);

  describe(`RecordsArchive contract: ${adapterName}`, () => {
    test('a fresh store is empty, and its snapshot holds no rows', async ({ archive }) => {
      expect(await archive.state()).toBe('empty');
      expect(await archive.unfinishedRestore()).toBe(false);
      const snapshot = await archive.openSnapshot();
      try {
        expect(snapshot.schemaVersion).toBe(archive.schemaVersion);
        for (const table of archive.tables) {
          if (table.name === 'store_secrets') continue;
          expect(await allRows(snapshot, table.name), table.name).toEqual([]);
        }
      } finally {
        await snapshot.close();
      }
    });

    test('rows load and read back exactly (text, integers, booleans, bytes, null), in binary key order, by pages', async ({
      archive,
    }) => {
      await archive.beginRestore();
      // Code point order, not a locale's: 'B' < 'Z' < '_' < 'a' < 'é' < '𝒜'.
      const ids = ['a', 'é', 'B', '_', '𝒜', 'Z'];
      await archive.load({ table: 'accounts', rows: ids.map((id) => accountRow(archive, id)) });
      await archive.load({
        table: 'projects',
        rows: [projectRow(archive, { id: 'p1', accountId: 'a', bucket: 'bucket-1' })],
      });
      const inline = tableOf(archive, 'inline_contents');
      const bytes = new Uint8Array([0, 255, 10, 13, 0x80, 0]);
      await archive.load({
        table: 'inline_contents',
        rows: [
          rowOf(inline, { project_id: 'p1', content_key: 'k2', bytes }),
          rowOf(inline, { project_id: 'p1', content_key: 'k1', bytes: new Uint8Array([]) }),
        ],
      });
      await archive.finishRestore();
      expect(await archive.state()).toBe('in-use');

      const snapshot = await archive.openSnapshot();
      try {
        const accounts = await allRows(snapshot, 'accounts', 2);
        const sorted = [...ids].sort((x, y) => (Buffer.from(x) < Buffer.from(y) ? -1 : 1));
        expect(accounts).toEqual(sorted.map((id) => accountRow(archive, id)));
        expect(await allRows(snapshot, 'projects')).toEqual([
          projectRow(archive, { id: 'p1', accountId: 'a', bucket: 'bucket-1' }),
        ]);
        const contents = await allRows(snapshot, 'inline_contents', 1);
        expect(
          contents.map((row) => row.map((value) => (value instanceof Uint8Array ? [...value] : value))),
        ).toEqual([
          ['p1', 'k1', []],
          ['p1', 'k2', [...bytes]],
        ]);
      } finally {
        await snapshot.close();
      }
    });

    test('a snapshot sees the store as it was when opened; writers are not held up by it', async ({
      archive,
      records,
    }) => {
      const first = anAccount();
      const second = anAccount();
      await records.withTransaction((tx) => tx.insertAccount({ account: first }));
      const snapshot = await archive.openSnapshot();
      try {
        // Committed while the snapshot is open: a writer blocked by it would never get here.
        await records.withTransaction((tx) => tx.insertAccount({ account: second }));
        expect((await allRows(snapshot, 'accounts')).map((row) => row[0])).toEqual([first.id]);
      } finally {
        await snapshot.close();
      }
      const later = await archive.openSnapshot();
      try {
        expect((await allRows(later, 'accounts')).map((row) => row[0]).sort()).toEqual(
          [first.id, second.id].sort(),
        );
      } finally {
        await later.close();
      }
    });

    test('a snapshot lists the blobs of revisions not held inline and of attachments, in their project bucket', async ({
      archive,
    }) => {
      await archive.beginRestore();
      await archive.load({ table: 'accounts', rows: [accountRow(archive, 'a')] });
      await archive.load({
        table: 'projects',
        rows: [
          projectRow(archive, { id: 'p1', accountId: 'a', bucket: 'bucket-1' }),
          projectRow(archive, { id: 'p2', accountId: 'a', bucket: 'bucket-2' }),
        ],
      });
      await archive.load({
        table: 'file_revisions',
        rows: [
          revisionRow(archive, {
            fileId: 'f1',
            revision: 1,
            projectId: 'p1',
            key: 'f1/x',
            inline: false,
            sha256: hex('1'),
          }),
          revisionRow(archive, {
            fileId: 'f1',
            revision: 2,
            projectId: 'p1',
            key: 'f1/y',
            inline: true,
            sha256: hex('2'),
          }),
          revisionRow(archive, {
            fileId: 'f2',
            revision: 1,
            projectId: 'p2',
            key: 'f2/z',
            inline: false,
            sha256: hex('3'),
          }),
        ],
      });
      await archive.load({
        table: 'attachments',
        rows: [
          rowOf(tableOf(archive, 'attachments'), {
            id: 'att1',
            project_id: 'p2',
            path: 'img/a.png',
            size_bytes: 5,
            content_type: 'image/png',
            sha256: hex('4'),
            blob_key: 'att/1',
            revision: 1,
            created_at: BASE_TIME,
            updated_at: BASE_TIME,
          }),
        ],
      });
      await archive.finishRestore();
      const snapshot = await archive.openSnapshot();
      try {
        const refs = [];
        for await (const page of snapshot.blobs({ pageSize: 1 })) {
          expect(page.length).toBeLessThanOrEqual(1);
          refs.push(...page);
        }
        expect(refs).toEqual([
          { bucket: 'bucket-1', key: 'f1/x', sha256: hex('1'), sizeBytes: 11 },
          { bucket: 'bucket-2', key: 'f2/z', sha256: hex('3'), sizeBytes: 11 },
          { bucket: 'bucket-2', key: 'att/1', sha256: hex('4'), sizeBytes: 5 },
        ]);
      } finally {
        await snapshot.close();
      }
    });

    test('a restore refuses a store in use', async ({ archive, records }) => {
      await records.withTransaction((tx) => tx.insertAccount({ account: anAccount() }));
      expect(await archive.state()).toBe('in-use');
      const refused = await archive.beginRestore().then(
        () => null,
        (error: unknown) => error,
      );
      expect(isMdStoreError(refused, 'STORE_UNAVAILABLE')).toBe(true);
      expect(await archive.unfinishedRestore()).toBe(false);
    });

    test('an unfinished restore is marked, refused by snapshots, and redone from nothing', async ({
      archive,
    }) => {
      await archive.beginRestore();
      await archive.load({ table: 'accounts', rows: [accountRow(archive, 'a'), accountRow(archive, 'b')] });
      // The process dies here: no finishRestore.
      expect(await archive.unfinishedRestore()).toBe(true);
      expect(await archive.state()).toBe('restoring');
      const refused = await archive.openSnapshot().then(
        async (snapshot) => {
          await snapshot.close();
          return null;
        },
        (error: unknown) => error,
      );
      expect(isMdStoreError(refused, 'STORE_UNAVAILABLE')).toBe(true);

      await archive.beginRestore();
      const during = await archive.openSnapshot({ restoring: true });
      try {
        expect(await allRows(during, 'accounts')).toEqual([]);
      } finally {
        await during.close();
      }
      await archive.load({ table: 'accounts', rows: [accountRow(archive, 'c')] });
      await archive.finishRestore();
      expect(await archive.unfinishedRestore()).toBe(false);
      const snapshot = await archive.openSnapshot();
      try {
        expect((await allRows(snapshot, 'accounts')).map((row) => row[0])).toEqual(['c']);
        expect(await allRows(snapshot, 'store_secrets')).toEqual([]);
      } finally {
        await snapshot.close();
      }
    });
  });
}
