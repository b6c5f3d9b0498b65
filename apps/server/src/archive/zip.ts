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
      const source = Readable.from(content, { objectMode: false });
      zip.addReadStream(source, entry.name, { mtime: entry.mtime, size: entry.size, compress: true });
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
