import { open } from 'node:fs/promises';

/**
 * Flushes a directory's entries (a rename, a new file or subdirectory, an unlink) to disk: without it a
 * crash right after a rename may lose the new name even though the file's bytes were synced.
 */
export async function syncDirectory(dir: string): Promise<void> {
  // Windows cannot open a directory for fsync; NTFS journals metadata on its own.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
