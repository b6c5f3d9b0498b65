import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type ArchiveEntry,
  type ArchiveEntryKind,
  type ImportArchive,
  InvalidInputError,
  isMdStoreError,
} from '@mdstore/core';
import yauzl from 'yauzl';
import { ArchiveTally, type ImportBounds } from './bounds.js';

/**
 * A zip: its central directory is at the end, so the body is spooled to a temporary file first (counted
 * as it comes, refused past the total allowed), then read with yauzl entry by entry. The entry count of
 * the central directory, each entry's declared sizes and the bytes actually inflated are held to the
 * bounds; yauzl fails an entry whose inflated size differs from the declared one. The temporary folder
 * is removed when the iteration ends, whichever way.
 */
export async function* readZip(body: Readable, bounds: ImportBounds): ImportArchive {
  const tally = new ArchiveTally(bounds);
  const folder = await mkdtemp(path.join(tmpdir(), 'mdstore-import-'));
  try {
    const file = path.join(folder, 'archive.zip');
    await spool(body, file, tally);
    const compressed = (await stat(file)).size;
    const zip = await openZip(file);
    try {
      tally.declaredEntries(zip.entryCount);
      for (;;) {
        const raw = await nextEntry(zip);
        if (raw === null) break;
        tally.entry(raw.uncompressedSize, compressed);
        // The entry's own ratio, from its declared sizes, before a byte of it is inflated.
        tally.ratio(raw.uncompressedSize, raw.compressedSize);
        yield toEntry(zip, raw, tally, compressed);
      }
    } finally {
      zip.close();
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function spool(body: Readable, file: string, tally: ArchiveTally): Promise<void> {
  let received = 0;
  await pipeline(
    body,
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        received += chunk.length;
        tally.compressed(received);
        yield chunk;
      }
    },
    createWriteStream(file),
  );
}

const openZip = (file: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true },
      (error, zip) => (error || !zip ? reject(badZip(error)) : resolve(zip)),
    ),
  );

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: yauzl.Entry) => {
      cleanup();
      resolve(entry);
    };
    const onEnd = () => {
      cleanup();
      resolve(null);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(badZip(error));
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

const S_IFMT = 0o170000;
const MODES = new Map<number, ArchiveEntryKind>([
  [0o100000, 'file'],
  [0o040000, 'directory'],
  [0o120000, 'symlink'],
]);

/** The entry's name (UTF-8 when the zip says so, else read as Latin-1) and kind (Unix mode when given). */
function toEntry(
  zip: yauzl.ZipFile,
  raw: yauzl.Entry,
  tally: ArchiveTally,
  compressed: number,
): ArchiveEntry {
  const bytes = raw.fileName as unknown as Buffer;
  const name = bytes.toString((raw.generalPurposeBitFlag & 0x800) !== 0 ? 'utf8' : 'latin1');
  const mode = (raw.externalFileAttributes >>> 16) & S_IFMT;
  const kind: ArchiveEntryKind = name.endsWith('/')
    ? 'directory'
    : mode === 0
      ? 'file'
      : (MODES.get(mode) ?? 'other');
  return {
    name,
    kind,
    size: raw.uncompressedSize,
    read: () =>
      new Promise<Uint8Array>((resolve, reject) => {
        zip.openReadStream(raw, (error, stream) => {
          if (error || !stream) return reject(badZip(error));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => {
            try {
              tally.inflated(chunk.length, compressed);
              chunks.push(chunk);
            } catch (refused) {
              stream.destroy();
              reject(refused);
            }
          });
          stream.on('error', (streamError) => reject(badZip(streamError)));
          stream.on('end', () => resolve(Buffer.concat(chunks)));
        });
      }),
  };
}

/** yauzl's complaint about a damaged zip, as the interface's 422 (its text says what is wrong). */
function badZip(error: unknown) {
  if (isMdStoreError(error)) return error;
  const message = error instanceof Error ? error.message : 'unreadable';
  return new InvalidInputError([
    { loc: ['body'], msg: `Not a readable zip: ${message}`, type: 'archive_invalid' },
  ]);
}
