import { createWriteStream } from 'node:fs';
import { type FileHandle, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { inflateRawSync } from 'node:zlib';
import {
  type ArchiveEntry,
  type ArchiveEntryKind,
  type ImportArchive,
  InvalidInputError,
  isMdStoreError,
} from '@mdstore/core';
import yauzl from 'yauzl';
import { crc32 } from '../zip.js';
import { ArchiveTally, type ImportBounds } from './bounds.js';

/**
 * Entries that declare at most this many bytes (and not much more compressed) are read with one
 * positioned read and inflated in one synchronous call bounded by their declared size (about a
 * millisecond): no stream and no zlib handle are left per entry, which is what an archive of 10 000
 * small notes is made of. Their CRC-32 is checked too. Larger entries are streamed by yauzl.
 */
export const ZIP_WHOLE_ENTRY_BYTES = 64 * 1024;

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
    const handle = await open(file, 'r');
    try {
      tally.declaredEntries(zip.entryCount);
      for (;;) {
        const raw = await nextEntry(zip);
        if (raw === null) break;
        tally.entry(raw.uncompressedSize, compressed);
        // The entry's own ratio, from its declared sizes, before a byte of it is inflated.
        tally.ratio(raw.uncompressedSize, raw.compressedSize);
        yield toEntry(zip, handle, raw, tally, compressed);
      }
    } finally {
      zip.close();
      await handle.close();
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
  handle: FileHandle,
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
    ...modifiedAt(raw),
    read: () =>
      readsWhole(raw)
        ? readWhole(zip, handle, raw, tally, compressed)
        : readStreamed(zip, raw, tally, compressed),
  };
}

/** The entry's time: its extended timestamp when it has one, else its DOS date read as UTC. */
function modifiedAt(raw: yauzl.Entry): { modifiedAt?: number } {
  const time = raw.getLastModDate({ timezone: 'UTC' }).getTime();
  return Number.isFinite(time) ? { modifiedAt: time } : {};
}

const readsWhole = (raw: yauzl.Entry) =>
  raw.uncompressedSize <= ZIP_WHOLE_ENTRY_BYTES &&
  raw.compressedSize <= ZIP_WHOLE_ENTRY_BYTES + 1024 &&
  !raw.isEncrypted() &&
  (raw.compressionMethod === 0 || raw.compressionMethod === 8);

/** A small entry: its data read at once from the spooled file, inflated within its declared size. */
async function readWhole(
  zip: yauzl.ZipFile,
  handle: FileHandle,
  raw: yauzl.Entry,
  tally: ArchiveTally,
  compressed: number,
): Promise<Uint8Array> {
  const start = await new Promise<number>((resolve, reject) =>
    zip.readLocalFileHeader(raw, { minimal: true }, (error, header) =>
      error || !header ? reject(badZip(error)) : resolve(header.fileDataStart),
    ),
  );
  const data = Buffer.allocUnsafeSlow(raw.compressedSize);
  const { bytesRead } = await handle.read(data, 0, data.length, start);
  if (bytesRead !== data.length) throw badZip(new Error('file data overflows file bounds'));
  let bytes: Buffer;
  try {
    bytes =
      raw.compressionMethod === 0
        ? data
        : // Its output buffer sized to the entry (zlib's default is 16 KiB per call, for the collector).
          inflateRawSync(data, {
            maxOutputLength: Math.max(1, raw.uncompressedSize),
            chunkSize: Math.max(64, raw.uncompressedSize + 1),
          });
  } catch (error) {
    throw badZip(
      new Error(`${raw.uncompressedSize} bytes declared, more inflated (${(error as Error).message})`),
    );
  }
  tally.inflated(bytes.length, compressed);
  if (bytes.length !== raw.uncompressedSize) {
    throw badZip(new Error(`expected ${raw.uncompressedSize} bytes, got ${bytes.length}`));
  }
  if (crc32(bytes) !== raw.crc32) throw badZip(new Error('CRC-32 does not match'));
  return bytes;
}

/** A large entry, streamed by yauzl (which fails it when its inflated size is not the declared one). */
function readStreamed(
  zip: yauzl.ZipFile,
  raw: yauzl.Entry,
  tally: ArchiveTally,
  compressed: number,
): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
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
  });
}

/** yauzl's complaint about a damaged zip, as the interface's 422 (its text says what is wrong). */
function badZip(error: unknown) {
  if (isMdStoreError(error)) return error;
  const message = error instanceof Error ? error.message : 'unreadable';
  return new InvalidInputError([
    { loc: ['body'], msg: `Not a readable zip: ${message}`, type: 'archive_invalid' },
  ]);
}
