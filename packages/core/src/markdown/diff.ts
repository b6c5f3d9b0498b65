import {
  type ChangeObject,
  diffArrays,
  FILE_HEADERS_ONLY,
  formatPatch,
  type StructuredPatchHunk,
} from 'diff';

/**
 * Unified diffs (3 lines of context) for the PATCH answer and `GET …/diff`, with a bound decided
 * before any work: the spec's "more than 10⁷ line comparisons" is `null` here.
 *
 * The bound. Lines equal at the start and at the end of both texts are set aside first (a linear scan).
 * With m and n lines left, jsdiff's Myers algorithm costs O((m + n)·D) comparisons, D ≤ m + n being
 * the edit distance, and it does pay that on skewed pairs (a few lines against a large block) and even
 * on a pure insertion followed by unchanged lines, so m·n would not bound it. The estimate is
 * therefore (m + n)², or 0 when m or n is 0 (a pure insertion or deletion needs no comparison and is
 * written without running the algorithm). Above `MAX_DIFF_COMPARISONS` the answer is `null`.
 *
 * Format: `--- oldName`, `+++ newName`, then `@@ -a,b +c,d @@` hunks (jsdiff's `formatPatch`), lines
 * compared and printed with their line endings (a CR stays before the LF), `\ No newline at end of file`
 * after a last line without LF. Identical texts give `''`.
 */
export const MAX_DIFF_COMPARISONS = 10_000_000;

export const DIFF_CONTEXT_LINES = 3;

export interface DiffNames {
  readonly oldName: string;
  readonly newName: string;
}

/** The estimated comparisons for a pair, as above: what `unifiedDiff` checks before diffing. */
export function diffCost(oldText: string, newText: string): number {
  const frame = commonFrame(oldText, newText);
  const { oldMiddle, newMiddle } = trimCommon(
    splitLines(oldText.slice(frame.prefix, frame.oldSuffix)),
    splitLines(newText.slice(frame.prefix, frame.newSuffix)),
  );
  if (oldMiddle === 0 || newMiddle === 0) return 0;
  return (oldMiddle + newMiddle) ** 2;
}

/**
 * The common whole lines at both ends, found on the texts themselves (no line array of a large file is
 * made for an edit that changed a few lines): `prefix` is where the first differing line starts in
 * both, `oldSuffix`/`newSuffix` where the common last lines start in each.
 */
function commonFrame(
  oldText: string,
  newText: string,
): { prefix: number; oldSuffix: number; newSuffix: number } {
  const shorter = Math.min(oldText.length, newText.length);
  let same = 0;
  const BLOCK = 4096;
  while (same + BLOCK <= shorter && oldText.startsWith(newText.slice(same, same + BLOCK), same))
    same += BLOCK;
  while (same < shorter && oldText.charCodeAt(same) === newText.charCodeAt(same)) same++;
  const prefix = same === 0 ? 0 : oldText.lastIndexOf('\n', same - 1) + 1;
  let tail = 0;
  const room = shorter - prefix;
  while (
    tail + BLOCK <= room &&
    oldText.endsWith(
      newText.slice(newText.length - tail - BLOCK, newText.length - tail),
      oldText.length - tail,
    )
  ) {
    tail += BLOCK;
  }
  while (
    tail < room &&
    oldText.charCodeAt(oldText.length - 1 - tail) === newText.charCodeAt(newText.length - 1 - tail)
  ) {
    tail++;
  }
  // The common tail starts at `oldText.length - tail`; its first whole line starts after an LF inside it
  // (the same in both), or right at it when both texts have an LF just before it.
  const start = oldText.length - tail;
  const lineStartsBoth =
    (start === prefix || oldText.charCodeAt(start - 1) === 10) &&
    (newText.length - tail === prefix || newText.charCodeAt(newText.length - tail - 1) === 10);
  let oldSuffix = oldText.length;
  if (tail > 0) {
    if (lineStartsBoth) oldSuffix = start;
    else {
      const lf = oldText.indexOf('\n', start);
      if (lf !== -1) oldSuffix = lf + 1;
    }
  }
  return { prefix, oldSuffix, newSuffix: newText.length - (oldText.length - oldSuffix) };
}

/** The last `count` lines of `text` before `end`, with their line endings. */
function linesBefore(text: string, end: number, count: number): string[] {
  let from = end;
  // `from` is a line start; the line before it starts after the LF before its own LF (at `from - 1`).
  for (let taken = 0; taken < count && from > 0; taken++) {
    from = from >= 2 ? text.lastIndexOf('\n', from - 2) + 1 : 0;
  }
  return splitLines(text.slice(from, end));
}

/** The first `count` lines of `text` from `start`. */
function linesAfter(text: string, start: number, count: number): string[] {
  let to = start;
  for (let taken = 0; taken < count && to < text.length; taken++) {
    const lf = text.indexOf('\n', to);
    to = lf === -1 ? text.length : lf + 1;
  }
  return splitLines(text.slice(start, to));
}

function countLines(text: string, end: number): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < end; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

export function unifiedDiff(oldText: string, newText: string, names: DiffNames): string | null {
  if (oldText === newText) return '';
  const frame = commonFrame(oldText, newText);
  const before = linesBefore(oldText, frame.prefix, DIFF_CONTEXT_LINES);
  const after = linesAfter(oldText, frame.oldSuffix, DIFF_CONTEXT_LINES);
  const oldLines = [...before, ...splitLines(oldText.slice(frame.prefix, frame.oldSuffix)), ...after];
  const newLines = [...before, ...splitLines(newText.slice(frame.prefix, frame.newSuffix)), ...after];
  const skipped = countLines(oldText, frame.prefix) - before.length;
  const { prefix, oldMiddle, newMiddle } = trimCommon(oldLines, newLines);
  const removed = oldLines.slice(prefix, prefix + oldMiddle);
  const added = newLines.slice(prefix, prefix + newMiddle);
  let middle: ChangeObject<string[]>[];
  if (removed.length === 0 || added.length === 0) {
    middle = [change(removed, { removed: true }), change(added, { added: true })];
  } else {
    if ((removed.length + added.length) ** 2 > MAX_DIFF_COMPARISONS) return null;
    middle = diffArrays(removed, added);
  }
  const changes = [
    change(oldLines.slice(0, prefix), {}),
    ...middle,
    change(oldLines.slice(prefix + oldMiddle), {}),
  ].filter((part) => part.value.length > 0);
  return formatPatch(
    {
      oldFileName: names.oldName,
      newFileName: names.newName,
      oldHeader: undefined,
      newHeader: undefined,
      hunks: hunksOf(changes, skipped + 1),
    },
    FILE_HEADERS_ONLY,
  );
}

/** Lines with their line endings (`a\nb` is `a\n`, `b`); an empty text has none. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
    lines.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function trimCommon(
  oldLines: readonly string[],
  newLines: readonly string[],
): { prefix: number; oldMiddle: number; newMiddle: number } {
  const shorter = Math.min(oldLines.length, newLines.length);
  let prefix = 0;
  while (prefix < shorter && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < shorter - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  ) {
    suffix++;
  }
  return {
    prefix,
    oldMiddle: oldLines.length - prefix - suffix,
    newMiddle: newLines.length - prefix - suffix,
  };
}

function change(value: string[], kind: { added?: true; removed?: true }): ChangeObject<string[]> {
  return { value, count: value.length, added: kind.added === true, removed: kind.removed === true };
}

const NO_NEWLINE = '\\ No newline at end of file';

/** Groups changes into hunks with `DIFF_CONTEXT_LINES` of context, merging hunks whose context meets. */
function hunksOf(changes: readonly ChangeObject<string[]>[], firstLine: number): StructuredPatchHunk[] {
  const hunks: StructuredPatchHunk[] = [];
  let hunk: StructuredPatchHunk | undefined;
  let oldLine = firstLine;
  let newLine = firstLine;
  changes.forEach((part, index) => {
    if (part.added || part.removed) {
      if (!hunk) {
        const context = index > 0 ? changes[index - 1]!.value.slice(-DIFF_CONTEXT_LINES) : [];
        hunk = {
          oldStart: oldLine - context.length,
          newStart: newLine - context.length,
          oldLines: context.length,
          newLines: context.length,
          lines: [],
        };
        hunks.push(hunk);
        for (const line of context) pushLine(hunk, ' ', line);
      }
      for (const line of part.value) pushLine(hunk, part.added ? '+' : '-', line);
      if (part.added) hunk.newLines += part.count;
      else hunk.oldLines += part.count;
    } else if (hunk) {
      const last = index === changes.length - 1;
      // Context between two changes: keep it whole when the two hunks' context would meet.
      const kept =
        !last && part.count <= 2 * DIFF_CONTEXT_LINES ? part.value : part.value.slice(0, DIFF_CONTEXT_LINES);
      for (const line of kept) pushLine(hunk, ' ', line);
      hunk.oldLines += kept.length;
      hunk.newLines += kept.length;
      if (kept.length < part.count) hunk = undefined;
    }
    if (!part.added) oldLine += part.count;
    if (!part.removed) newLine += part.count;
  });
  return hunks;
}

function pushLine(hunk: StructuredPatchHunk, marker: ' ' | '+' | '-', line: string): void {
  if (line.endsWith('\n')) {
    hunk.lines.push(marker + line.slice(0, -1));
  } else {
    hunk.lines.push(marker + line, NO_NEWLINE);
  }
}
