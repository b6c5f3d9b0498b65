import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import {
  type ArchiveEntry,
  type ArchiveEntryKind,
  type ImportArchive,
  InvalidInputError,
  isMdStoreError,
} from '@mdstore/core';
import { extract, type Header } from 'tar-stream';
import { ArchiveTally, type ImportBounds } from './bounds.js';
import { tarHeaderGuard } from './tar-headers.js';

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
  const counted = counter((bytes) => {
    compressed += bytes;
    tally.compressed(compressed);
  });
  const reader = extract();
  // The request is piped in, not part of the pipeline: a failure must not destroy it (the answer goes
  // out on its socket). Any stage failing destroys the others, so the iteration below ends with it.
  body.pipe(counted);
  const piped = pipeline(
    counted,
    createGunzip(),
    counter((bytes) => tally.inflated(bytes, compressed)),
    tarHeaderGuard(),
    reader,
  ).catch(fail);
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
        ...(header.mtime &&
          Number.isFinite(header.mtime.getTime()) && { modifiedAt: header.mtime.getTime() }),
        read: async () => {
          consumed = true;
          const chunks: Buffer[] = [];
          try {
            for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
          } catch (error) {
            // An archive cut inside this entry fails here, in the reader's hands, not in the loop below.
            if (isMdStoreError(error)) throw error;
            await piped;
            throw unreadable(failure ?? error);
          }
          return Buffer.concat(chunks);
        },
      };
      yield entry;
      if (!consumed) stream.resume();
    }
  } catch (error) {
    if (isMdStoreError(error)) throw error; // a bound, judged here
    await piped; // settles once every stage is destroyed, with the first failure kept
    throw unreadable(failure ?? error);
  } finally {
    body.unpipe();
    if (!body.readableEnded) body.resume();
  }
  if (failure !== undefined) throw unreadable(failure);
}

/** A bound's refusal as it is; any other failure (gzip, tar) as the interface's 422. */
function unreadable(error: unknown): unknown {
  if (isMdStoreError(error)) return error;
  const message = error instanceof Error ? error.message : 'unreadable';
  return new InvalidInputError([
    { loc: ['body'], msg: `Not a readable tar.gz: ${message}`, type: 'archive_invalid' },
  ]);
}
