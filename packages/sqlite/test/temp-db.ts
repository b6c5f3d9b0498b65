import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory for one test's database file; `remove` deletes it with the WAL and SHM files. */
export async function tempDatabase(): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mdstore-sqlite-'));
  return {
    path: join(dir, 'mdstore.db'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
