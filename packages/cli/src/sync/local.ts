import { createHash, randomUUID } from 'node:crypto';
import {
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { isSyncable, localPath } from './names.js';

export interface LocalFile {
  readonly name: string;
  readonly sha256: string;
  readonly size: number;
}

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Every syncable file under `root` by remote name (`/` between folders), and what was passed over. */
export async function scanLocal(root: string): Promise<{ files: Map<string, LocalFile>; skipped: string[] }> {
  const files = new Map<string, LocalFile>();
  const skipped: string[] = [];
  async function walk(folder: string, prefix: string): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const name = `${prefix}${entry.name}`;
      if (entry.name.startsWith('.')) continue;
      if (entry.isDirectory()) {
        await walk(path.join(folder, entry.name), `${name}/`);
      } else if (entry.isFile() && isSyncable(name)) {
        const bytes = await readFile(path.join(folder, entry.name));
        files.set(name, { name, sha256: sha256Hex(bytes), size: bytes.byteLength });
      } else if (/\.mdx?$/i.test(entry.name)) {
        // Symbolic links, conflict copies and names the server could not hold are left alone.
        skipped.push(name);
      }
    }
  }
  await walk(root, '');
  return { files, skipped };
}

/** The content of one local file now, or undefined when it is gone. */
export async function readLocal(
  root: string,
  name: string,
): Promise<{ bytes: Uint8Array; sha256: string } | undefined> {
  try {
    const bytes = await readFile(localPath(root, name));
    return { bytes, sha256: sha256Hex(bytes) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The local file is not what the plan expected any more: the user changed it during the sync. */
export class LocalChangedError extends Error {
  override readonly name = 'LocalChangedError';
  constructor(readonly file: string) {
    super(`${file} changed during the sync`);
  }
}

/** `absent`, or the SHA-256 the local file must still have before it is replaced or removed. */
export type LocalExpectation = 'absent' | { readonly sha256: string };

async function checkExpectation(root: string, name: string, expect: LocalExpectation): Promise<void> {
  const now = await readLocal(root, name);
  const holds = expect === 'absent' ? now === undefined : now?.sha256 === expect.sha256;
  if (!holds) throw new LocalChangedError(name);
}

/**
 * Writes a file so that it is never seen half-written: the bytes go to a temporary file beside it, which
 * then replaces the target (`rename`) or, when the target must not exist, is linked to it (`link` fails
 * if something appeared there meanwhile). The local file is checked against `expect` first, so a change
 * the user made since the scan is never overwritten.
 */
export async function writeLocal(
  root: string,
  name: string,
  bytes: Uint8Array,
  expect: LocalExpectation,
): Promise<void> {
  const target = localPath(root, name);
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = path.join(path.dirname(target), `.mdstore-${randomUUID()}.tmp`);
  const handle = await open(temporary, 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await checkExpectation(root, name, expect);
    if (expect === 'absent') {
      try {
        await link(temporary, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new LocalChangedError(name);
        throw error;
      }
    } else {
      await rename(temporary, target);
    }
  } finally {
    await rm(temporary, { force: true });
  }
}

/** Writes a new file that must not exist yet (a conflict copy). */
export async function writeNewLocal(root: string, name: string, bytes: Uint8Array): Promise<void> {
  const target = localPath(root, name);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, bytes, { flag: 'wx' });
}

/** Removes a local file if it still has the expected content, then the folders it leaves empty. */
export async function deleteLocal(root: string, name: string, expect: { sha256: string }): Promise<void> {
  await checkExpectation(root, name, expect);
  const target = localPath(root, name);
  await unlink(target);
  let folder = path.dirname(target);
  const top = path.resolve(root);
  while (path.resolve(folder) !== top && path.resolve(folder).startsWith(top)) {
    try {
      await rmdir(folder);
    } catch {
      break; // not empty (or gone): the folders above are not empty either
    }
    folder = path.dirname(folder);
  }
}

export async function localExists(root: string, name: string): Promise<boolean> {
  try {
    await stat(localPath(root, name));
    return true;
  } catch {
    return false;
  }
}
