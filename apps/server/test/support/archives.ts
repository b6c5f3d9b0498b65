import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { extract } from 'tar-stream';
import yauzl from 'yauzl';

/** One entry of an archive as a test reads it back. */
export interface ReadEntry {
  readonly name: string;
  readonly bytes: Buffer;
  /** What the archive says the entry is: `file`, `directory`, `symlink`… */
  readonly type: string;
}

/** Every entry of a zip, in archive order (read with yauzl, which checks CRCs and sizes). */
export function readZip(archive: Buffer): Promise<ReadEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(archive, { lazyEntries: true, decodeStrings: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('no zip'));
      const entries: ReadEntry[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (openError, stream) => {
          if (openError || !stream) return reject(openError ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            const type = entry.fileName.endsWith('/') ? 'directory' : 'file';
            entries.push({ name: entry.fileName, bytes: Buffer.concat(chunks), type });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** Every entry of a tar.gz, in archive order (PAX names resolved, as tar-stream reads them). */
export function readTarGz(archive: Buffer): Promise<ReadEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: ReadEntry[] = [];
    const reader = extract();
    reader.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        entries.push({ name: header.name, bytes: Buffer.concat(chunks), type: header.type ?? 'file' });
        next();
      });
      stream.resume();
    });
    reader.on('finish', () => resolve(entries));
    reader.on('error', reject);
    reader.end(gunzipSync(archive));
  });
}

export const sha256Hex = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');
