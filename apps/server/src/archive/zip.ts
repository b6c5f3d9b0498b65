import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ByteStream } from '@mdstore/core';
import { ZipFile } from 'yazl';
import type { ArchiveEntry, ArchiveWriter } from './writer.js';

/**
 * Names yazl (rightly) refuses to write into a zip: a first segment that reads as a Windows drive
 * (`C:notes.md`), which unzip tools would take for an absolute path. mdstore's rules allow it, so such a
 * file is left out of a zip (and listed in `mdstore.json`'s `skipped`); a tar.gz holds it.
 */
export const zipRefuses = (filename: string): boolean => /^[a-zA-Z]:/.test(filename);

/**
 * A zip written with yazl as entries come: each entry's content is read only when yazl reaches it and as
 * fast as the output is read (yazl pipes it through a deflate stream into its output, with backpressure),
 * and the next one is added only when it is done. Sizes are given, so yazl writes ZIP64 records only
 * where sizes need them. Names are UTF-8 (yazl sets the language encoding flag).
 */
export function zipWriter(): ArchiveWriter {
  const zip = new ZipFile();
  return {
    // A PassThrough, typed by @types/yazl as the older NodeJS.ReadableStream.
    output: zip.outputStream as Readable,
    refuses: (filename) => (zipRefuses(filename) ? 'a zip cannot name it (drive letter)' : undefined),
    async add(entry: ArchiveEntry, content: ByteStream, signal: AbortSignal): Promise<void> {
      // yazl keeps every entry (with the function that opens its data) until the central directory is
      // written at the end: the content is handed over through a holder emptied once it is opened, so no
      // entry keeps its stream, or the bytes of its last chunk, alive after it is written.
      let holder: { content: ByteStream } | undefined = { content };
      let resolveOpened: (source: Readable) => void = () => {};
      const opened = new Promise<Readable>((resolve) => {
        resolveOpened = resolve;
      });
      zip.addReadStreamLazy(entry.name, { mtime: entry.mtime, size: entry.size, compress: true }, (open) => {
        const source = Readable.from((holder as { content: ByteStream }).content, { objectMode: false });
        holder = undefined;
        resolveOpened(source);
        resolveOpened = () => {};
        open(null, source);
      });
      const source = await unlessAborted(opened, signal);
      try {
        await finished(source, { signal });
      } catch (error) {
        source.destroy();
        throw error;
      }
    },
    async finish(manifestName: string, manifest: Buffer, mtime: Date): Promise<void> {
      zip.addBuffer(manifest, manifestName, { mtime, compress: true });
      zip.end();
    },
    abort(error: Error) {
      (zip.outputStream as Readable).destroy(error);
    },
  };
}

/** `promise`, or a rejection as soon as `signal` aborts (its listener removed either way). */
async function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
