import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import * as zlib from 'node:zlib';
import type { ByteStream } from '@mdstore/core';
import type { ArchiveEntry, ArchiveWriter } from './writer.js';

/**
 * Names a zip must not hold: a first segment that reads as a Windows drive (`C:notes.md`), which unzip
 * tools would take for an absolute path. mdstore's rules allow it, so such a file is left out of a zip
 * (and listed in `mdstore.json`'s `skipped`); a tar.gz holds it.
 */
export const zipRefuses = (filename: string): boolean => /^[a-zA-Z]:/.test(filename);

/**
 * Entries up to this size are read whole and deflated by the writer's one deflate stream (off this
 * thread), with no stream or zlib state made per entry. Larger ones stream through a deflate stream of
 * their own, with backpressure.
 */
export const ZIP_WHOLE_ENTRY_BYTES = 64 * 1024;

/** Past these, a zip needs its ZIP64 records (APPNOTE 4.3.14, 4.4.1.4). */
const MAX_16 = 0xffff;
const MAX_32 = 0xffffffff;

/** Unix regular file, rw-rw-r--, as the high half of the external attributes. */
const FILE_ATTRIBUTES = (0o100664 << 16) >>> 0;
/** General purpose flags: names are UTF-8 (bit 11); sizes follow the data (bit 3). */
const UTF8_NAMES = 0x0800;
const DATA_DESCRIPTOR = 0x0008;
const DEFLATE = 8;
/** A final fixed-Huffman block holding nothing: ends a deflate stream after a full flush. */
const FINAL_EMPTY_BLOCK = Buffer.from([0x03, 0x00]);

export interface ZipWriterOptions {
  /** Offsets and counts from which ZIP64 records are written (tests lower them). */
  readonly zip64From?: { readonly offset?: number; readonly entries?: number };
}

/**
 * A zip written entry after entry as the output is read (extensions §10), made for exports of many files
 * in little memory. Each entry is a local header, its deflated data and, for a streamed one, a data
 * descriptor; what the central directory needs of it (about 90 bytes and its name) is kept, already
 * encoded, until the end. No stream object is made per small entry, and one deflate stream per large
 * one. ZIP64 records are written when the offsets or the number of entries need them (entries are at
 * most `maxFileBytes`, so their own sizes never do). Names are UTF-8 (flag bit 11), with the file's
 * modification time as a DOS time and as an extended timestamp (0x5455).
 */
export function zipWriter(options: ZipWriterOptions = {}): ArchiveWriter {
  const zip64Offset = options.zip64From?.offset ?? MAX_32;
  const zip64Entries = options.zip64From?.entries ?? MAX_16;
  const output = new PassThrough();
  const central: Buffer[] = [];
  let centralBytes = 0;
  let entries = 0;
  let offset = 0;

  // The reader went away: a write waiting for room fails instead of waiting forever.
  const closed = new AbortController();
  output.once('close', () => closed.abort(new Error('The archive output was closed')));
  const write = async (chunk: Buffer): Promise<void> => {
    closed.signal.throwIfAborted();
    offset += chunk.length;
    if (!output.write(chunk)) await once(output, 'drain', { signal: closed.signal });
  };
  const remember = (record: Buffer) => {
    central.push(record);
    centralBytes += record.length;
    entries++;
  };

  // One deflate stream (one zlib state, off this thread) deflates every whole entry in turn: each is
  // written with a full flush (byte-aligned, the dictionary reset, so no entry refers to another) and
  // ends with an empty final block (`03 00`), which makes it a complete raw deflate stream of its own.
  // A zlib call per entry would leave a stream object and a zlib state per entry for the collector.
  const deflater = zlib.createDeflateRaw();
  let deflated: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => deflated.push(chunk));
  // A failure reaches the entry being deflated (below); none may go unheard.
  deflater.on('error', () => {});
  output.once('close', () => deflater.destroy());
  const deflateWhole = async (bytes: Buffer): Promise<Buffer> => {
    deflater.write(bytes);
    await new Promise<void>((resolve, reject) => {
      deflater.once('error', reject);
      deflater.flush(zlib.constants.Z_FULL_FLUSH, () => {
        deflater.off('error', reject);
        resolve();
      });
    });
    const whole = Buffer.concat([...deflated, FINAL_EMPTY_BLOCK]);
    deflated = [];
    return whole;
  };

  async function addWhole(name: Buffer, mtime: Date, bytes: Buffer) {
    const crc = crc32(bytes);
    const deflated = await deflateWhole(bytes);
    const file: FileFacts = {
      name,
      mtime,
      flags: UTF8_NAMES,
      crc,
      compressedSize: deflated.length,
      size: bytes.length,
      offset,
    };
    await write(localHeader(file));
    await write(deflated);
    remember(centralRecord(file, zip64Offset));
  }

  async function add(entry: ArchiveEntry, content: ByteStream, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const name = Buffer.from(entry.name, 'utf8');
    if (name.length > MAX_16) throw new Error(`A zip cannot hold a name of ${name.length} bytes`);
    if (entry.size >= MAX_32) throw new Error('A zip entry of 4 GiB or more needs ZIP64 sizes');
    if (entry.size <= ZIP_WHOLE_ENTRY_BYTES) {
      const bytes = await readExactly(content, entry.size);
      signal.throwIfAborted();
      await addWhole(name, entry.mtime, bytes);
      return;
    }
    const file: FileFacts = {
      name,
      mtime: entry.mtime,
      flags: UTF8_NAMES | DATA_DESCRIPTOR,
      crc: 0,
      compressedSize: 0,
      size: 0,
      offset,
    };
    await write(localHeader(file));
    const deflate = zlib.createDeflateRaw();
    let crc = 0;
    let size = 0;
    let compressedSize = 0;
    // The deflated bytes go out as they come; the content is read only as fast as they are taken.
    const drained = (async () => {
      for await (const chunk of deflate as AsyncIterable<Buffer>) {
        compressedSize += chunk.length;
        await write(chunk);
      }
    })();
    // Awaited below; handled now, so that a failure while the content is still read is not unhandled.
    drained.catch(() => {});
    try {
      for await (const chunk of content) {
        signal.throwIfAborted();
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        crc = crc32(bytes, crc);
        size += bytes.length;
        if (!deflate.write(bytes)) await once(deflate, 'drain', { signal });
      }
      deflate.end();
      await drained;
    } catch (error) {
      deflate.destroy();
      await drained.catch(() => {});
      throw error;
    }
    if (size !== entry.size) throw new Error(`${entry.name}: ${size} bytes read, ${entry.size} expected`);
    Object.assign(file, { crc, size, compressedSize });
    await write(dataDescriptor(file));
    remember(centralRecord(file, zip64Offset));
  }

  return {
    output,
    refuses: (filename) => (zipRefuses(filename) ? 'a zip cannot name it (drive letter)' : undefined),
    add,
    async finish(manifestName: string, manifest: Buffer, mtime: Date): Promise<void> {
      // The manifest grows with the files (about 200 bytes each): past the whole-entry size it streams.
      await add({ name: manifestName, size: manifest.length, mtime }, inChunks(manifest), closed.signal);
      const start = offset;
      // Written in groups of about 64 KiB, not one small write per file.
      let group: Buffer[] = [];
      let grouped = 0;
      for (const record of central) {
        group.push(record);
        grouped += record.length;
        if (grouped < ZIP_WHOLE_ENTRY_BYTES) continue;
        await write(Buffer.concat(group));
        group = [];
        grouped = 0;
      }
      if (group.length > 0) await write(Buffer.concat(group));
      central.length = 0;
      const zip64 = entries >= zip64Entries || start >= zip64Offset || centralBytes >= MAX_32;
      if (zip64) {
        const at = offset;
        await write(zip64End(entries, centralBytes, start));
        await write(zip64Locator(at));
      }
      await write(end(zip64 ? undefined : { entries, size: centralBytes, offset: start }));
      deflater.destroy();
      output.end();
    },
    abort(error: Error) {
      deflater.destroy();
      output.destroy(error);
    },
  };
}

async function* inChunks(bytes: Buffer): ByteStream {
  for (let at = 0; at < bytes.length; at += ZIP_WHOLE_ENTRY_BYTES) {
    yield bytes.subarray(at, at + ZIP_WHOLE_ENTRY_BYTES);
  }
}

interface FileFacts {
  readonly name: Buffer;
  readonly mtime: Date;
  readonly flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  readonly offset: number;
}

/** The whole content, which must be exactly `size` bytes. */
async function readExactly(content: ByteStream, size: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for await (const chunk of content) {
    if (at + chunk.byteLength > size) throw new Error(`More than the ${size} bytes expected`);
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  if (at !== size) throw new Error(`${at} bytes read, ${size} expected`);
  return bytes;
}

/** MS-DOS date and time (local time, 2-second steps, from 1980), as yazl and zip tools write them. */
function dosDateTime(date: Date): { date: number; time: number } {
  const year = Math.min(Math.max(date.getFullYear(), 1980), 2107);
  return {
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2),
  };
}

/** Unix seconds of the extended timestamp extra field, within its signed 32 bits. */
const unixSeconds = (mtime: Date): number =>
  Math.max(-0x80000000, Math.min(0x7fffffff, Math.floor(mtime.getTime() / 1000)));

/** Writes the extended timestamp extra field (0x5455: the modification time) at `at`; 9 bytes. */
function writeTimestamp(buffer: Buffer, at: number, mtime: Date): void {
  buffer.writeUInt16LE(0x5455, at);
  buffer.writeUInt16LE(5, at + 2);
  buffer.writeUInt8(1, at + 4);
  buffer.writeInt32LE(unixSeconds(mtime), at + 5);
}

const TIMESTAMP_BYTES = 9;

/** The local file header, name and extra field in one buffer (small: taken from Node's shared pool). */
function localHeader(file: FileFacts): Buffer {
  const header = Buffer.allocUnsafe(30 + file.name.length + TIMESTAMP_BYTES);
  const { date, time } = dosDateTime(file.mtime);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(file.flags, 6);
  header.writeUInt16LE(DEFLATE, 8);
  header.writeUInt16LE(time, 10);
  header.writeUInt16LE(date, 12);
  header.writeUInt32LE(file.crc >>> 0, 14);
  header.writeUInt32LE(file.compressedSize, 18);
  header.writeUInt32LE(file.size, 22);
  header.writeUInt16LE(file.name.length, 26);
  header.writeUInt16LE(TIMESTAMP_BYTES, 28);
  file.name.copy(header, 30);
  writeTimestamp(header, 30 + file.name.length, file.mtime);
  return header;
}

function dataDescriptor(file: FileFacts): Buffer {
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(file.crc >>> 0, 4);
  descriptor.writeUInt32LE(file.compressedSize, 8);
  descriptor.writeUInt32LE(file.size, 12);
  return descriptor;
}

/** The central directory's record of a file, with a ZIP64 extra field when its offset needs one. */
function centralRecord(file: FileFacts, zip64Offset: number): Buffer {
  const farOffset = file.offset >= zip64Offset;
  const zip64Bytes = farOffset ? 12 : 0;
  const record = Buffer.allocUnsafe(46 + file.name.length + zip64Bytes + TIMESTAMP_BYTES);
  const { date, time } = dosDateTime(file.mtime);
  const version = farOffset ? 45 : 20;
  record.writeUInt32LE(0x02014b50, 0);
  record.writeUInt16LE((3 << 8) | version, 4);
  record.writeUInt16LE(version, 6);
  record.writeUInt16LE(file.flags, 8);
  record.writeUInt16LE(DEFLATE, 10);
  record.writeUInt16LE(time, 12);
  record.writeUInt16LE(date, 14);
  record.writeUInt32LE(file.crc >>> 0, 16);
  record.writeUInt32LE(file.compressedSize, 20);
  record.writeUInt32LE(file.size, 24);
  record.writeUInt16LE(file.name.length, 28);
  record.writeUInt16LE(zip64Bytes + TIMESTAMP_BYTES, 30);
  record.writeUInt16LE(0, 32);
  record.writeUInt16LE(0, 34);
  record.writeUInt16LE(0, 36);
  record.writeUInt32LE(FILE_ATTRIBUTES, 38);
  record.writeUInt32LE(farOffset ? MAX_32 : file.offset, 42);
  let at = 46;
  at += file.name.copy(record, at);
  if (farOffset) {
    record.writeUInt16LE(0x0001, at);
    record.writeUInt16LE(8, at + 2);
    record.writeBigUInt64LE(BigInt(file.offset), at + 4);
    at += 12;
  }
  writeTimestamp(record, at, file.mtime);
  return record;
}

function zip64End(entries: number, size: number, offset: number): Buffer {
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE((3 << 8) | 45, 12);
  record.writeUInt16LE(45, 14);
  record.writeUInt32LE(0, 16);
  record.writeUInt32LE(0, 20);
  record.writeBigUInt64LE(BigInt(entries), 24);
  record.writeBigUInt64LE(BigInt(entries), 32);
  record.writeBigUInt64LE(BigInt(size), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  return record;
}

function zip64Locator(zip64EndOffset: number): Buffer {
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeUInt32LE(0, 4);
  locator.writeBigUInt64LE(BigInt(zip64EndOffset), 8);
  locator.writeUInt32LE(1, 16);
  return locator;
}

/** The end of central directory record; with ZIP64, every field says "see the ZIP64 record". */
function end(directory: { entries: number; size: number; offset: number } | undefined): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(0x06054b50, 0);
  record.writeUInt16LE(0, 4);
  record.writeUInt16LE(0, 6);
  record.writeUInt16LE(directory?.entries ?? MAX_16, 8);
  record.writeUInt16LE(directory?.entries ?? MAX_16, 10);
  record.writeUInt32LE(directory?.size ?? MAX_32, 12);
  record.writeUInt32LE(directory?.offset ?? MAX_32, 16);
  record.writeUInt16LE(0, 20);
  return record;
}

const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 (ISO-HDLC, as zip uses it) of `bytes`, continuing `previous`, by table (Node before 20.15). */
export function tableCrc32(bytes: Uint8Array, previous = 0): number {
  let c = ~previous;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** CRC-32 of `bytes`, continuing `previous`: zlib's where Node has it (20.15 and later). */
export const crc32: (bytes: Uint8Array, previous?: number) => number = nativeCrc32 ?? tableCrc32;
