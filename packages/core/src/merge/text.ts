import { diff3Merge } from 'node-diff3';
import { MERGE_LIMITS } from '../defaults/merge.js';
import { MergeTooLargeError } from '../errors.js';
import type { ConflictHunk, TextMerge } from './types.js';

/**
 * Three-way merge of texts by lines (diff3). A line ends after LF and keeps its ending (CRLF, or none
 * for a last line without one), so the result is the lines concatenated: no ending is ever rewritten.
 *
 * Changes merge when an unchanged base line separates them; changes that touch or overlap (including
 * two insertions at the same place, or an edit right next to another) conflict unless both sides made
 * the same change: GNU diff3's rule. See `MERGE_LIMITS` for the cost and its bound.
 */

/** The text's lines, each with its ending. */
export function splitLinesKeepingEnds(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
    lines.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** A region's lines as a hunk shows them: without their endings, joined with '\n'. */
const hunkText = (lines: readonly string[]): string =>
  lines.map((line) => line.replace(/\r?\n$/, '')).join('\n');

/** Increasing subsequence of maximal length of `values` (patience sorting): the indices kept. */
function longestIncreasing(values: readonly number[]): number[] {
  const tails: number[] = []; // index into values of the smallest tail of each length
  const previous = new Array<number>(values.length).fill(-1);
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (values[tails[middle]!]! < value) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[i] = tails[low - 1]!;
    tails[low] = i;
  }
  const kept: number[] = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i !== -1; i = previous[i]!) kept.push(i);
  return kept.reverse();
}

interface Anchor {
  readonly o: number;
  readonly a: number;
  readonly b: number;
}

/** Lines present exactly once in each text, in the same order in all three. */
function anchorsOf(o: readonly number[], a: readonly number[], b: readonly number[], ids: number): Anchor[] {
  const countO = new Int32Array(ids);
  const countA = new Int32Array(ids);
  const countB = new Int32Array(ids);
  const posA = new Int32Array(ids);
  const posB = new Int32Array(ids);
  for (const id of o) countO[id]!++;
  a.forEach((id, i) => {
    countA[id]!++;
    posA[id] = i;
  });
  b.forEach((id, i) => {
    countB[id]!++;
    posB[id] = i;
  });
  const candidates: Anchor[] = [];
  o.forEach((id, i) => {
    if (countO[id] === 1 && countA[id] === 1 && countB[id] === 1)
      candidates.push({ o: i, a: posA[id]!, b: posB[id]! });
  });
  const inA = longestIncreasing(candidates.map((c) => c.a)).map((i) => candidates[i]!);
  return longestIncreasing(inA.map((c) => c.b)).map((i) => inA[i]!);
}

/** A segment between two anchors: [start, end) in each text. */
interface Segment {
  readonly o: readonly [number, number];
  readonly a: readonly [number, number];
  readonly b: readonly [number, number];
}

const sameRange = (
  x: readonly number[],
  [xs, xe]: readonly [number, number],
  y: readonly number[],
  [ys, ye]: readonly [number, number],
): boolean => {
  if (xe - xs !== ye - ys) return false;
  for (let i = 0; i < xe - xs; i++) if (x[xs + i] !== y[ys + i]) return false;
  return true;
};

/**
 * Merges line arrays: `base`, `current` (a), `proposed` (b). `lineOffset` is added to the 0-based base
 * line of each hunk (the lines of the document before this part), and 1 more to make it 1-based.
 */
export function mergeLines(
  base: readonly string[],
  current: readonly string[],
  proposed: readonly string[],
  lineOffset = 0,
): { kind: 'clean'; lines: string[] } | { kind: 'conflict'; hunks: ConflictHunk[] } {
  for (const text of [base, current, proposed])
    if (text.length > MERGE_LIMITS.maxLines) throw MergeTooLargeError('lines', MERGE_LIMITS.maxLines);
  const idOf = new Map<string, number>();
  const lines: string[] = [];
  const intern = (text: readonly string[]): number[] => {
    const ids = new Array<number>(text.length);
    for (let i = 0; i < text.length; i++) {
      const line = text[i]!;
      let id = idOf.get(line);
      if (id === undefined) {
        id = lines.length;
        idOf.set(line, id);
        lines.push(line);
      }
      ids[i] = id;
    }
    return ids;
  };
  const o = intern(base);
  const a = intern(current);
  const b = intern(proposed);

  // The segments between anchors where something changed (runs of anchors need no work).
  const segments: Segment[] = [];
  let from: Anchor = { o: -1, a: -1, b: -1 };
  for (const to of [...anchorsOf(o, a, b, lines.length), { o: o.length, a: a.length, b: b.length }]) {
    if (to.o > from.o + 1 || to.a > from.a + 1 || to.b > from.b + 1)
      segments.push({ o: [from.o + 1, to.o], a: [from.a + 1, to.a], b: [from.b + 1, to.b] });
    from = to;
  }
  // The whole cost, decided before any LCS runs.
  let comparisons = 0;
  for (const s of segments)
    if (!sameRange(o, s.o, a, s.a) && !sameRange(o, s.o, b, s.b) && !sameRange(a, s.a, b, s.b))
      comparisons += (s.o[1] - s.o[0]) * (s.a[1] - s.a[0] + s.b[1] - s.b[0]);
  if (comparisons > MERGE_LIMITS.maxLineComparisons)
    throw MergeTooLargeError('comparisons', MERGE_LIMITS.maxLineComparisons);

  // Base lines between segments are anchors (unchanged on both sides), copied as they are.
  const out: string[] = [];
  const hunks: ConflictHunk[] = [];
  const copy = (ids: readonly number[], [start, end]: readonly [number, number]) => {
    for (let i = start; i < end; i++) out.push(lines[ids[i]!]!);
  };
  let at = 0;
  for (const s of segments) {
    copy(o, [at, s.o[0]]);
    at = s.o[1];
    if (sameRange(o, s.o, a, s.a) || sameRange(a, s.a, b, s.b)) copy(b, s.b);
    else if (sameRange(o, s.o, b, s.b)) copy(a, s.a);
    else {
      const part = (ids: readonly number[], [start, end]: readonly [number, number]) => ids.slice(start, end);
      const regions = diff3Merge<number>(part(a, s.a), part(o, s.o), part(b, s.b), {
        excludeFalseConflicts: true,
      });
      for (const region of regions) {
        if (region.ok) for (const id of region.ok) out.push(lines[id]!);
        else if (region.conflict) {
          const c = region.conflict;
          const text = (ids: readonly number[]) => hunkText(ids.map((id) => lines[id]!));
          hunks.push({
            line: lineOffset + s.o[0] + c.oIndex + 1,
            base: text(c.o),
            current: text(c.a),
            draft: text(c.b),
          });
        }
      }
    }
  }
  copy(o, [at, o.length]);
  if (hunks.length > 0) return { kind: 'conflict', hunks };
  return { kind: 'clean', lines: out };
}

/** `mergeLines` on whole texts, with the laws of the merge API (an unchanged side gives the other). */
export function mergeText(base: string, current: string, proposed: string, lineOffset = 0): TextMerge {
  if (current === base) return { kind: 'clean', text: proposed, merged: false };
  if (proposed === base || proposed === current) return { kind: 'clean', text: current, merged: false };
  const result = mergeLines(
    splitLinesKeepingEnds(base),
    splitLinesKeepingEnds(current),
    splitLinesKeepingEnds(proposed),
    lineOffset,
  );
  return result.kind === 'conflict' ? result : { kind: 'clean', text: result.lines.join(''), merged: true };
}
