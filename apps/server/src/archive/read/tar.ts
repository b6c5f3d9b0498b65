import { type Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { ArchiveEntry, ArchiveEntryKind, ImportArchive } from '@mdstore/core';
import { extract, type Header } from 'tar-stream';
import { ArchiveTally, type ImportBounds } from './bounds.js';

/** A counting pass-through that runs `count(bytes)` for each chunk (which may throw to stop the stream). */
function counter(count: (bytes: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        count(chunk.length);
        done(null, chunk);
      } catch (error) {
        done(error as Error);
      }
    },
  });
}

const KINDS: Partial<Record<NonNullable<Header['type']>, ArchiveEntryKind>> = {
  file: 'file',
  'contiguous-file': 'file',
  directory: 'directory',
  symlink: 'symlink',
  link: 'symlink',
};

/**
 * A tar.gz, streamed: the body is counted as it comes (compressed), gunzipped by zlib (off the event
 * loop), counted again (uncompressed: total and ratio) and parsed by tar-stream one entry at a time.
 * Nothing is spooled: an entry not read is drained (and counted) on the way to the next.
 */
export async function* readTarGz(body: Readable, bounds: ImportBounds): ImportArchive {
  const tally = new ArchiveTally(bounds);
  let compressed = 0;
  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
  };
  const inflated = body
    .pipe(
      counter((bytes) => {
        compressed += bytes;
        tally.compressed(compressed);
      }),
    )
    .on('error', fail)
    .pipe(createGunzip())
    .on('error', fail)
    .pipe(counter((bytes) => tally.inflated(bytes, compressed)))
    .on('error', fail);
  const reader = extract();
  inflated.pipe(reader);
  inflated.on('error', (error) => reader.destroy(error));
  try {
    for await (const stream of reader) {
      const header = stream.header;
      const size = header.size ?? 0;
      tally.entry(size, compressed);
      let consumed = false;
      const entry: ArchiveEntry = {
        name: header.name,
        kind: KINDS[header.type ?? 'file'] ?? 'other',
        size,
        read: async () => {
          consumed = true;
          const chunks: Buffer[] = [];
          for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
          return Buffer.concat(chunks);
        },
      };
      yield entry;
      if (!consumed) stream.resume();
    }
  } catch (error) {
    throw failure ?? error;
  } finally {
    body.unpipe();
    if (!body.readableEnded) body.resume();
  }
  if (failure !== undefined) throw failure;
}
