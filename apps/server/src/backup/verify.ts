import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import {
  BLOB_LIST,
  blobFile,
  decodeRow,
  FORMAT,
  FORMAT_VERSION,
  isSha256,
  MANIFEST,
  type Manifest,
  manifestChecksum,
} from './format.js';
import { type BackupFiles, openBackupLocation } from './location.js';

export interface VerifyReport {
  readonly path: string;
  readonly ok: boolean;
  /** What is wrong, one line each, naming the file (at most `MAX_PROBLEMS`). */
  readonly problems: readonly string[];
  readonly manifest: Manifest | null;
}

const MAX_PROBLEMS = 100;

/**
 * Checks a backup whole: the manifest's shape and overall checksum, each records file's size, SHA-256,
 * row count and rows (each a row of its columns), the blob list's, and each blob's size and SHA-256.
 * Reads every file once, streaming.
 */
export async function verifyBackup(from: string | BackupFiles): Promise<VerifyReport> {
  if (typeof from !== 'string') return verifyFiles(from);
  const location = await openBackupLocation(from);
  try {
    return await verifyFiles(location);
  } finally {
    await location.close();
  }
}

async function verifyFiles(files: BackupFiles): Promise<VerifyReport> {
  const root = files.path;
  const problems: string[] = [];
  const report = (manifest: Manifest | null): VerifyReport => ({
    path: root,
    ok: problems.length === 0,
    problems: problems.slice(0, MAX_PROBLEMS),
    manifest,
  });
  let manifest: Manifest;
  try {
    manifest = await readManifest(files);
  } catch (error) {
    problems.push(`${MANIFEST}: cannot be read (${(error as Error).message}): not a complete backup`);
    return report(null);
  }
  const shapeProblem = manifestShapeProblem(manifest);
  if (shapeProblem) {
    problems.push(`${MANIFEST}: ${shapeProblem}`);
    return report(null);
  }
  const { checksum, ...content } = manifest;
  if (manifestChecksum(content) !== checksum)
    problems.push(`${MANIFEST}: the overall checksum does not match`);

  for (const table of manifest.tables) {
    let rows = 0;
    const read = await readLines(files, table.file, (line) => {
      rows += 1;
      try {
        decodeRow(table.columns, line);
      } catch (error) {
        if (problems.length < MAX_PROBLEMS)
          problems.push(`${table.file}: row ${rows}: ${(error as Error).message}`);
      }
    }).catch((error: Error) => {
      problems.push(`${table.file}: cannot be read (${error.message})`);
      return null;
    });
    if (!read) continue;
    if (read.sha256 !== table.sha256 || read.bytes !== table.bytes)
      problems.push(`${table.file}: SHA-256 or size differs from the manifest's`);
    if (rows !== table.rows) problems.push(`${table.file}: ${rows} rows, the manifest says ${table.rows}`);
  }

  let blobs = 0;
  let totalBytes = 0;
  const checkBlob = async (sha256: string, size: number) => {
    const name = blobFile(sha256);
    const read = await hashFile(files, name).catch((error: Error) => {
      problems.push(`${name}: cannot be read (${error.message})`);
      return null;
    });
    if (read && (read.sha256 !== sha256 || read.bytes !== size))
      problems.push(
        `${name}: holds ${read.bytes} bytes with SHA-256 ${read.sha256}, not ${size} bytes with ${sha256}`,
      );
  };
  const list = await readLines(files, manifest.blobs.file, async (line) => {
    blobs += 1;
    let entry: { sha256?: unknown; size_bytes?: unknown } | null = null;
    try {
      entry = JSON.parse(line) as { sha256?: unknown; size_bytes?: unknown };
    } catch {}
    if (!entry || !isSha256(entry.sha256) || !Number.isSafeInteger(entry.size_bytes)) {
      problems.push(`${BLOB_LIST}: line ${blobs} is not {"sha256", "size_bytes"}`);
      return;
    }
    totalBytes += entry.size_bytes as number;
    await checkBlob(entry.sha256, entry.size_bytes as number);
  }).catch((error: Error) => {
    problems.push(`${BLOB_LIST}: cannot be read (${error.message})`);
    return null;
  });
  if (list) {
    if (list.sha256 !== manifest.blobs.sha256 || list.bytes !== manifest.blobs.bytes)
      problems.push(`${BLOB_LIST}: SHA-256 or size differs from the manifest's`);
    if (blobs !== manifest.blobs.count || totalBytes !== manifest.blobs.total_bytes)
      problems.push(
        `${BLOB_LIST}: ${blobs} blobs of ${totalBytes} bytes, the manifest says ${manifest.blobs.count} of ${manifest.blobs.total_bytes}`,
      );
  }
  return report(manifest);
}

function manifestShapeProblem(m: Manifest): string | null {
  if (typeof m !== 'object' || m === null) return 'not a JSON object';
  if (m.format !== FORMAT) return `not an mdstore backup (format ${JSON.stringify(m.format)})`;
  if (m.format_version !== FORMAT_VERSION)
    return `format version ${String(m.format_version)}, this mdstore reads ${FORMAT_VERSION}`;
  if (!Number.isSafeInteger(m.schema_version)) return 'no schema_version';
  if (!Array.isArray(m.tables)) return 'no tables';
  for (const table of m.tables) {
    if (
      typeof table?.name !== 'string' ||
      !/^[a-z_]+$/.test(table.name) ||
      table.file !== `records/${table.name}.jsonl` ||
      !Array.isArray(table.columns) ||
      !Number.isSafeInteger(table.rows) ||
      !isSha256(table.sha256)
    )
      return `table entry ${JSON.stringify(table?.name)} is malformed`;
  }
  if (m.blobs?.file !== BLOB_LIST || !isSha256(m.blobs.sha256)) return 'the blob list entry is malformed';
  if (typeof m.checksum !== 'string') return 'no checksum';
  return null;
}

/** The manifest of a backup, parsed (not checked: see `verifyBackup`). */
export async function readManifest(files: BackupFiles): Promise<Manifest> {
  const chunks: Buffer[] = [];
  for await (const chunk of await files.read(MANIFEST)) chunks.push(Buffer.from(chunk));
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Manifest;
}

/** Streams a file's lines to `onLine` (UTF-8, `\n`-terminated) while hashing its bytes. */
export async function readLines(
  files: BackupFiles,
  file: string,
  onLine: (line: string) => void | Promise<void>,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  let rest = '';
  for await (const chunk of await files.read(file)) {
    const buffer = chunk as Buffer;
    hash.update(buffer);
    bytes += buffer.byteLength;
    rest += decoder.write(buffer);
    let end = rest.indexOf('\n');
    while (end >= 0) {
      await onLine(rest.slice(0, end));
      rest = rest.slice(end + 1);
      end = rest.indexOf('\n');
    }
  }
  rest += decoder.end();
  if (rest.length > 0) await onLine(rest);
  return { bytes, sha256: hash.digest('hex') };
}

async function hashFile(files: BackupFiles, file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of await files.read(file)) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { bytes, sha256: hash.digest('hex') };
}
