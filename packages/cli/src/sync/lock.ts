import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LOCK_FILE } from './names.js';

export class FolderBusyError extends Error {
  override readonly name = 'FolderBusyError';
}

/** A killed process whose parent is gone too may stay a zombie (a container's PID 1 may never reap it). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false; // no /proc (not Linux): the signal check alone decides
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
};

/**
 * Takes the folder's sync lock: a file holding this process id, created exclusively. A lock left by a
 * process that no longer runs (a sync that was killed) is taken over, so an interrupted sync can always
 * be resumed. Returns the release function.
 */
export async function lockFolder(root: string): Promise<() => Promise<void>> {
  const file = path.join(root, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
      throw new FolderBusyError(`another sync of ${root} is running (process ${holder}; ${LOCK_FILE})`);
    }
    await rm(file, { force: true });
  }
  throw new FolderBusyError(`could not take the lock ${file}`);
}
