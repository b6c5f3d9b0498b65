import path from 'node:path';

/** The state file of a synced folder, at its root. */
export const STATE_FILE = '.mdstore-sync.json';
/** Held while a sync runs, so that two syncs of one folder never interleave. */
export const LOCK_FILE = '.mdstore-sync.lock';

const EXTENSION = /\.(md|mdx)$/i;
const CONFLICT_COPY = /\.conflict-\d{8}T\d{6}Z(?:-\d+)?\.(md|mdx)$/i;

/** A conflict copy (`name.conflict-20260101T120000Z.md`): kept locally for the user, never synced. */
export const isConflictCopy = (name: string): boolean => CONFLICT_COPY.test(name);

/**
 * Whether a file takes part in a sync, push or pull. The same rule is applied to local and remote names,
 * so that a file one side ignores is never mistaken for a file the other side deleted: Markdown and MDX
 * files (`/` separating folders), no segment that is empty or starts with `.` (hidden files and folders,
 * the state file, `..`), no `\` or NUL (a name must map to exactly one local path), no conflict copy.
 */
export function isSyncable(name: string): boolean {
  if (!EXTENSION.test(name) || isConflictCopy(name) || /[\\\0]/.test(name)) return false;
  return name.split('/').every((segment) => segment.length > 0 && !segment.startsWith('.'));
}

/** The local path of a remote name: its folders become folders under `root`. */
export function localPath(root: string, name: string): string {
  return path.join(root, ...name.split('/'));
}

/** `2026-01-02T03:04:05.678Z` → `20260102T030405Z`. */
export function compactTimestamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
}

/** `guides/setup.md` → `guides/setup.conflict-20260102T030405Z.md` (the extension stays last). */
export function conflictCopyName(name: string, date: Date, attempt = 0): string {
  const match = EXTENSION.exec(name);
  const stem = match ? name.slice(0, match.index) : name;
  const extension = match ? match[0] : '';
  return `${stem}.conflict-${compactTimestamp(date)}${attempt > 0 ? `-${attempt + 1}` : ''}${extension}`;
}

/** Whether `copy` is a conflict copy of `name`. */
export function isConflictCopyOf(copy: string, name: string): boolean {
  const match = EXTENSION.exec(name);
  const stem = match ? name.slice(0, match.index) : name;
  return isConflictCopy(copy) && copy.startsWith(`${stem}.conflict-`) && copy.endsWith(match ? match[0] : '');
}
