import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { STATE_FILE } from './names.js';

/** What both sides held after the last sync of one file. */
export interface BaseEntry {
  /** SHA-256 (hex) of the content both sides had. */
  readonly sha256: string;
  /** The remote ETag then: remote writes send it as `If-Match`. */
  readonly etag: string;
  readonly revision?: number;
}

/**
 * One file in the state: its base, and a conflict left for the user to resolve (a first sync that finds
 * two different files under one name has a conflict and no base).
 */
export interface StateEntry {
  readonly sha256?: string;
  readonly etag?: string;
  readonly revision?: number;
  readonly conflict?: ConflictEntry;
}

export const baseOf = (entry: StateEntry | undefined): BaseEntry | undefined =>
  entry?.sha256 !== undefined && entry.etag !== undefined
    ? {
        sha256: entry.sha256,
        etag: entry.etag,
        ...(entry.revision !== undefined && { revision: entry.revision }),
      }
    : undefined;

/** The remote version a conflict copy holds. */
export interface ConflictEntry {
  /** The conflict copy's name, relative to the folder. */
  readonly copy: string;
  readonly sha256: string;
  readonly etag: string;
}

export interface SyncState {
  readonly format: 'mdstore-sync/1';
  readonly server: string;
  readonly project_id: string;
  /** Keyed by remote filename (`/` between folders). */
  readonly files: Record<string, StateEntry>;
}

export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

/** The folder's state, or undefined before its first sync. */
export async function readState(root: string): Promise<SyncState | undefined> {
  const file = path.join(root, STATE_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: SyncState;
  try {
    parsed = JSON.parse(text) as SyncState;
  } catch {
    throw new StateFileError(
      `${file} is not valid JSON; move it away to start over (a full sync then re-checks every file)`,
    );
  }
  if (
    parsed.format !== 'mdstore-sync/1' ||
    typeof parsed.project_id !== 'string' ||
    typeof parsed.files !== 'object'
  ) {
    throw new StateFileError(`${file} is not an mdstore sync state (format mdstore-sync/1)`);
  }
  return parsed;
}

/**
 * Writes the state so that a crash at any moment leaves either the old or the new file, never a torn
 * one: a temporary file in the same folder, renamed over the state.
 */
export async function writeState(root: string, state: SyncState): Promise<void> {
  const file = path.join(root, STATE_FILE);
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Saves the state after every file without piling up writes: a save requested while one is running is
 * folded into the next one, and every caller's promise resolves once a write that includes its change
 * has landed.
 */
export class StateSaver {
  private chain: Promise<void> = Promise.resolve();
  private pending = false;

  constructor(
    private readonly root: string,
    private readonly current: () => SyncState,
  ) {}

  save(): Promise<void> {
    this.pending = true;
    this.chain = this.chain.then(async () => {
      if (!this.pending) return;
      this.pending = false;
      await writeState(this.root, this.current());
    });
    return this.chain;
  }
}
