import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ArchiveColumn, ArchiveRow, ArchiveTable, ArchiveValue } from '@mdstore/core';

/**
 * The backup format (extensions §16, docs/operations.md "Backups"), the same for both adapter pairs:
 *
 *   manifest.json              written last: what the backup holds and every checksum
 *   records/<table>.jsonl      one JSON array per row, values in the manifest's column order
 *   blobs.jsonl                one {"sha256", "size_bytes"} line per distinct blob, in first-reference order
 *   blobs/<2 hex>/<sha256>     each blob's bytes, once, named by its SHA-256
 */

export const FORMAT = 'mdstore-backup';
export const FORMAT_VERSION = 1;
export const MANIFEST = 'manifest.json';
export const BLOB_LIST = 'blobs.jsonl';

export interface TableEntry {
  readonly name: string;
  readonly columns: readonly ArchiveColumn[];
  readonly key: readonly string[];
  readonly file: string;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
}

export interface BlobListEntry {
  readonly file: string;
  readonly count: number;
  /** The sum of the blobs' sizes. */
  readonly total_bytes: number;
  /** Of the list file. */
  readonly bytes: number;
  readonly sha256: string;
}

export interface Manifest {
  readonly format: typeof FORMAT;
  readonly format_version: number;
  readonly schema_version: number;
  readonly created_at: string;
  readonly source: { readonly database: string; readonly blob_store: string };
  readonly tables: readonly TableEntry[];
  readonly blobs: BlobListEntry;
  /** SHA-256 of the canonical JSON of `format_version`, `schema_version`, `tables` and `blobs`. */
  readonly checksum: string;
}

/** The overall checksum: of the content only, so two backups of equal stores have the same one. */
export function manifestChecksum(m: Omit<Manifest, 'checksum'>): string {
  const content = {
    format_version: m.format_version,
    schema_version: m.schema_version,
    tables: m.tables,
    blobs: m.blobs,
  };
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

export const recordsFile = (table: string) => `records/${table}.jsonl`;
export const blobFile = (sha256: string) => path.join('blobs', sha256.slice(0, 2), sha256);

const SHA256 = /^[0-9a-f]{64}$/;
export const isSha256 = (value: unknown): value is string => typeof value === 'string' && SHA256.test(value);

/** One row as a line of its records file. Bytes are base64. */
export function encodeRow(table: ArchiveTable, row: ArchiveRow): string {
  return `${JSON.stringify(
    row.map((value, i) =>
      value instanceof Uint8Array && table.columns[i]?.type === 'bytes'
        ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
        : value,
    ),
  )}\n`;
}

/** A line of a records file as a row of `columns`; throws a message naming what is wrong. */
export function decodeRow(columns: readonly ArchiveColumn[], line: string): ArchiveRow {
  const parsed: unknown = JSON.parse(line);
  if (!Array.isArray(parsed) || parsed.length !== columns.length) {
    throw new Error(
      `a row has ${Array.isArray(parsed) ? parsed.length : 'no'} values, not ${columns.length}`,
    );
  }
  return parsed.map((value: unknown, i): ArchiveValue => {
    const column = columns[i]!;
    if (value === null) return null;
    const wrong = () => new Error(`column ${column.name} holds ${JSON.stringify(value)}, not ${column.type}`);
    switch (column.type) {
      case 'text':
        if (typeof value !== 'string') throw wrong();
        return value;
      case 'integer':
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw wrong();
        return value;
      case 'boolean':
        if (typeof value !== 'boolean') throw wrong();
        return value;
      case 'bytes':
        if (typeof value !== 'string') throw wrong();
        return new Uint8Array(Buffer.from(value, 'base64'));
    }
    throw wrong();
  });
}
