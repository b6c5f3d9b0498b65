import type { Readable } from 'node:stream';
import type { ByteStream } from '@mdstore/core';

export interface ArchiveEntry {
  readonly name: string;
  readonly size: number;
  readonly mtime: Date;
}

/** One archive format, written entry after entry into `output`. */
export interface ArchiveWriter {
  /** The archive's bytes, as they are made. */
  readonly output: Readable;
  /** Why this format cannot hold a file of that name, or undefined. */
  refuses(filename: string): string | undefined;
  /**
   * Adds one file and resolves when its content has been read to the end (the next may follow); rejects
   * at once when `signal` aborts (the output was closed), with the content closed.
   */
  add(entry: ArchiveEntry, content: ByteStream, signal: AbortSignal): Promise<void>;
  /** Adds the manifest and ends the archive. */
  finish(manifestName: string, manifest: Buffer, mtime: Date): Promise<void>;
  /** Stops: `output` fails with `error`. */
  abort(error: Error): void;
}
