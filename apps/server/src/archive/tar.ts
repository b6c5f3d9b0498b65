import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { ByteStream } from '@mdstore/core';
import { pack } from 'tar-stream';
import type { ArchiveEntry, ArchiveWriter } from './writer.js';

/**
 * A tar.gz written with tar-stream as entries come: one entry open at a time (its size is the file's,
 * known from the record), each chunk written with backpressure, then gzip (zlib's stream, off the event
 * loop). Names that ustar cannot hold (non-ASCII, or over its 100 + 155 bytes) go in PAX headers, which
 * every current tar reads.
 */
export function tarGzWriter(): ArchiveWriter {
  const packer = pack();
  const gzip = createGzip();
  const output = new PassThrough();
  packer.pipe(gzip).pipe(output);
  gzip.on('error', (error) => output.destroy(error));
  return {
    output,
    refuses: () => undefined,
    async add(entry: ArchiveEntry, content: ByteStream, signal: AbortSignal): Promise<void> {
      let done: (error?: Error | null) => void = () => {};
      const written = new Promise<void>((resolve, reject) => {
        done = (error) => (error ? reject(error) : resolve());
      });
      const sink = packer.entry(
        { name: entry.name, size: entry.size, mtime: entry.mtime, type: 'file' },
        done,
      );
      try {
        for await (const chunk of content) {
          if (!sink.write(chunk)) await once(sink, 'drain', { signal });
        }
      } catch (error) {
        sink.destroy(error as Error);
        throw error;
      }
      sink.end(() => {});
      await written;
      signal.throwIfAborted();
    },
    async finish(manifestName: string, manifest: Buffer, mtime: Date): Promise<void> {
      packer.entry({ name: manifestName, size: manifest.length, mtime, type: 'file' }, manifest);
      packer.finalize();
    },
    abort(error: Error) {
      packer.destroy(error);
      output.destroy(error);
    },
  };
}
