import { IMPORT_ANSWER_LIMITS } from '../../defaults/imports.js';
import type { SkippedEntry } from './entries.js';

const MARKER = '…';
const MARKER_BYTES = 3;

/**
 * A name as an answer may echo it: whole when it has at most `maxBytes` UTF-8 bytes, else its start
 * (cut on a character boundary) and `…`, `maxBytes` bytes at most in all. Only the start is scanned.
 */
export function echoedName(name: string, maxBytes: number = IMPORT_ANSWER_LIMITS.nameMaxBytes): string {
  // Each UTF-16 unit is at most 3 bytes: a name this short cannot be over.
  if (name.length * 3 <= maxBytes) return name;
  let bytes = 0;
  let end = 0;
  let cut = -1;
  while (end < name.length) {
    const code = name.charCodeAt(end);
    const pair = code >= 0xd800 && code <= 0xdbff && end + 1 < name.length;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (cut < 0 && bytes + size > maxBytes - MARKER_BYTES) cut = end;
    if (bytes + size > maxBytes) return name.slice(0, cut) + MARKER;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return name;
}

/**
 * The entries an import skipped, as its answer lists them: at most `skippedMax`, each name cut by
 * `echoedName`, and a count of the others. What it holds is bounded whatever the archive.
 */
export class SkippedList {
  readonly entries: SkippedEntry[] = [];
  /** Skipped entries not listed (past `skippedMax`). */
  omitted = 0;

  constructor(private readonly max: number = IMPORT_ANSWER_LIMITS.skippedMax) {}

  push(...skipped: readonly SkippedEntry[]): void {
    for (const { name, reason } of skipped) {
      if (this.entries.length < this.max) this.entries.push({ name: echoedName(name), reason });
      else this.omitted += 1;
    }
  }
}
