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
  const { oldMiddle, newMiddle } = trimCommon(splitLines(oldText), splitLines(newText));
  if (oldMiddle === 0 || newMiddle === 0) return 0;
  return (oldMiddle + newMiddle) ** 2;
}

export function unifiedDiff(oldText: string, newText: string, names: DiffNames): string | null {
  if (oldText === newText) return '';
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
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
      hunks: hunksOf(changes),
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
function hunksOf(changes: readonly ChangeObject<string[]>[]): StructuredPatchHunk[] {
  const hunks: StructuredPatchHunk[] = [];
  let hunk: StructuredPatchHunk | undefined;
  let oldLine = 1;
  let newLine = 1;
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
