/**
 * Backups and restore (extensions §16): the records store as portable tables of rows, read from one
 * consistent snapshot, and loaded into an empty store of any engine. The backup format itself (files,
 * checksums, blobs by hash) belongs to the edge that writes it (`apps/server/src/backup`); this port
 * only promises what a store can give and take.
 */

/** How a column's values are carried: text, an exact integer (up to 2^53), a boolean, bytes. */
export type ArchiveColumnType = 'text' | 'integer' | 'boolean' | 'bytes';

export interface ArchiveColumn {
  readonly name: string;
  readonly type: ArchiveColumnType;
}

/** One table of the archive: its columns in a fixed order, and the columns of its key (rows are in key order). */
export interface ArchiveTable {
  readonly name: string;
  readonly columns: readonly ArchiveColumn[];
  readonly key: readonly string[];
}

/** A value as the archive carries it, by column type: string, number, boolean, Uint8Array, or null. */
export type ArchiveValue = string | number | boolean | Uint8Array | null;

/** A row: its values in the order of its table's `columns`. */
export type ArchiveRow = readonly ArchiveValue[];

/** A blob the records of a snapshot reference: where it lives, and what it must hold. */
export interface BlobReference {
  readonly bucket: string;
  readonly key: string;
  readonly sha256: string;
  readonly sizeBytes: number;
}

/**
 * One consistent view of the whole records store, as of the moment it was opened: every read of it sees
 * exactly the commits acknowledged before that moment, never one after, while writers go on unhindered.
 * It holds a read transaction (a WAL snapshot, a REPEATABLE READ transaction) until `close`.
 */
export interface RecordsSnapshot {
  /** The schema version of the store (the number of its last migration). */
  readonly schemaVersion: number;
  /** Pages of at most `pageSize` rows of one table of `RecordsArchive.tables`, in key order (binary order of text). */
  rows(o: { table: string; pageSize: number }): AsyncIterable<readonly ArchiveRow[]>;
  /**
   * Pages of the blobs the snapshot's records reference (revisions not held inline, attachments), with
   * the bucket of their project. A blob referenced twice may be listed twice.
   */
  blobs(o: { pageSize: number }): AsyncIterable<readonly BlobReference[]>;
  /** Ends the read transaction. Idempotent. */
  close(): Promise<void>;
}

/** What a target store holds: nothing, the rows of an unfinished restore, or a store in use. */
export type ArchiveTargetState = 'empty' | 'restoring' | 'in-use';

/**
 * A records store's side of backup and restore. `tables` is the same list on every engine: a backup of
 * one loads into the other. Tables left out are derived or operational: the search index (rebuilt by the
 * start-up backfill), blob intents, instances and rate limits.
 */
export interface RecordsArchive {
  readonly schemaVersion: number;
  /** In load order (a table after those its rows refer to). */
  readonly tables: readonly ArchiveTable[];
  /**
   * Opens a snapshot. Refused (`STORE_UNAVAILABLE`) while the store holds an unfinished restore, unless
   * `restoring` (the restore's own reading of the rows it loaded).
   */
  openSnapshot(o?: { restoring?: boolean }): Promise<RecordsSnapshot>;
  state(): Promise<ArchiveTargetState>;
  /**
   * Starts a restore: refuses a store in use (`STORE_UNAVAILABLE`, saying so); marks the store as restoring (a
   * committed marker that the server and `openSnapshot` refuse) and, for the redo of an unfinished
   * restore, removes every row of the archive's tables first.
   */
  beginRestore(): Promise<void>;
  /** Inserts rows of one table in one transaction. Only between `beginRestore` and `finishRestore`. */
  load(o: { table: string; rows: readonly ArchiveRow[] }): Promise<void>;
  /** Removes the marker: the store is whole and may be served. */
  finishRestore(): Promise<void>;
  /** Whether the store holds an unfinished restore (one read of the marker). */
  unfinishedRestore(): Promise<boolean>;
}
