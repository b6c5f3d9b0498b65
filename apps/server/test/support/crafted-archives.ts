import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/**
 * Archives built byte by byte for the import's defences: names no archiver would write (`../x.md`,
 * `/etc/x.md`), symlinks, and sizes that lie.
 */

export interface CraftedZipEntry {
  readonly name: string;
  readonly data?: Buffer | string;
  /** Unix mode for the external attributes (e.g. `0o120777` for a symlink). */
  readonly mode?: number;
  /** Stored instead of deflated. */
  readonly store?: boolean;
  /** The uncompressed size written in the headers, when it must differ from the data's. */
  readonly declaredSize?: number;
  /** Leave the UTF-8 flag off (names then read as Latin-1). */
  readonly legacyName?: boolean;
  /** The DOS date and time of the headers (read as UTC; two-second steps); zero when absent. */
  readonly modified?: Date;
}

/** A date as a zip's DOS time and date fields (UTC). */
function dosTime(date: Date | undefined): { time: number; date: number } {
  if (date === undefined) return { time: 0, date: 0 };
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1),
    date: ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/** A zip (no ZIP64) with exactly these entries, in order. */
export function craftZip(entries: readonly CraftedZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, entry.legacyName ? 'latin1' : 'utf8');
    const data = Buffer.from(entry.data ?? '');
    const body = entry.store ? data : deflateRawSync(data);
    const method = entry.store ? 0 : 8;
    const size = entry.declaredSize ?? data.length;
    const flags = entry.legacyName ? 0 : 0x800;
    const crc = crc32(data);
    const dos = dosTime(entry.modified);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(dos.time, 10);
    local.writeUInt16LE(dos.date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(dos.time, 12);
    central.writeUInt16LE(dos.date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    const mode = entry.mode ?? (entry.name.endsWith('/') ? 0o040755 : 0o100644);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const zip64 = entries.length >= 0xffff;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  if (!zip64) return Buffer.concat([...locals, directory, end]);
  // More entries than 16 bits count: the ZIP64 end record and its locator before the classic one.
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(entries.length), 24);
  record.writeBigUInt64LE(BigInt(entries.length), 32);
  record.writeBigUInt64LE(BigInt(directory.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([...locals, directory, record, locator, end]);
}

export interface CraftedTarEntry {
  readonly name: string;
  readonly data?: Buffer | string;
  readonly type?: 'file' | 'directory' | 'symlink' | 'link' | 'fifo';
  readonly linkname?: string;
  readonly mtime?: Date;
}

/** A tar.gz with exactly these entries (names as given, `..` and all). */
export async function craftTarGz(entries: readonly CraftedTarEntry[]): Promise<Buffer> {
  const packer = pack();
  const chunks: Buffer[] = [];
  packer.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    packer.on('end', resolve);
    packer.on('error', reject);
  });
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? '');
    const type = entry.type ?? 'file';
    const header = {
      name: entry.name,
      type,
      size: type === 'file' ? data.length : 0,
      ...(entry.linkname && { linkname: entry.linkname }),
      ...(entry.mtime && { mtime: entry.mtime }),
    };
    packer.entry(header, type === 'file' ? data : Buffer.alloc(0));
  }
  packer.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}
