import type { JsonObject } from '../../validation/schemas.js';
import type { FileDates } from '../files/steps.js';

/**
 * Where an import keeps the bytes of its archive's Markdown entries between reading the archive and
 * committing the changeset (extensions §10), so that neither the archive's texts nor the plan are held
 * in memory: the import keeps, per file, its name, digest and where its bytes are. The spool is not part
 * of the store: nothing in it is ever committed or read by another request, and losing it (a crash)
 * loses nothing but the import in progress, which committed nothing (one transaction). The server's is
 * a temporary file (`apps/server/src/archive/spool.ts`); `memorySpool` keeps the bytes in memory, for
 * embedding and tests.
 */
export interface ImportSpool {
  /** Keeps a copy of `bytes` (the caller may reuse its buffer); resolves with where they are. */
  put(bytes: Uint8Array): Promise<SpoolRef>;
  /** The bytes kept under `ref`. */
  get(ref: SpoolRef): Promise<Uint8Array>;
  /** Frees what the spool holds; called once, when the import is over (whichever way). */
  close(): Promise<void>;
}

/** Where a spool keeps one content: opaque to everyone but the spool, and its size in bytes. */
export interface SpoolRef {
  readonly offset: number;
  readonly size: number;
}

/** A spool in memory: each content a copy (the plan still holds no text, only these bytes). */
export function memorySpool(): ImportSpool {
  let contents: Uint8Array[] = [];
  return {
    async put(bytes) {
      contents.push(bytes.slice());
      return { offset: contents.length - 1, size: bytes.byteLength };
    },
    async get(ref) {
      const bytes = contents[ref.offset];
      if (bytes === undefined) throw new Error('The import spool has no such content');
      return bytes;
    },
    async close() {
      contents = [];
    },
  };
}

/** One Markdown file of an archive as an import keeps it: no text, only where its bytes are. */
export interface SpooledFile {
  /** Its name in the project. */
  readonly filename: string;
  /** Its bytes (UTF-8, checked, not empty) in the import's spool. */
  readonly ref: SpoolRef;
  /** Lower-case hex SHA-256 of those bytes. */
  readonly sha256: string;
  /** The metadata `mdstore.json` gives it; undefined when it gives none. */
  readonly metadata?: JsonObject | null;
  /** Its dates as the archive gives them (`mdstore.json`'s, else the entry's time); absent when it gives none. */
  readonly dates?: FileDates;
}

/** One attachment of an archive (extensions §12) as an import keeps it: its bytes in the spool. */
export interface SpooledAttachment {
  readonly path: string;
  readonly ref: SpoolRef;
  /** Lower-case hex SHA-256 of those bytes. */
  readonly sha256: string;
  /** Its type: `mdstore.json`'s `content_type`, else by its extension; its bytes were judged against it. */
  readonly contentType: string;
}
