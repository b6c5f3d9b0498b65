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

const sameIds = (x: readonly number[], y: readonly number[]): boolean => {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
};

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

interface Segment {
  readonly o: readonly number[];
  readonly a: readonly number[];
  readonly b: readonly number[];
  /** Where the segment starts in the base (0-based line). */
  readonly oStart: number;
}

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
  const intern = (text: readonly string[]): number[] =>
    text.map((line) => {
      let id = idOf.get(line);
      if (id === undefined) {
        id = lines.length;
        idOf.set(line, id);
        lines.push(line);
      }
      return id;
    });
  const o = intern(base);
  const a = intern(current);
  const b = intern(proposed);

  const segments: Segment[] = [];
  let from: Anchor = { o: -1, a: -1, b: -1 };
  for (const to of [...anchorsOf(o, a, b, lines.length), { o: o.length, a: a.length, b: b.length }]) {
    segments.push({
      o: o.slice(from.o + 1, to.o),
      a: a.slice(from.a + 1, to.a),
      b: b.slice(from.b + 1, to.b),
      oStart: from.o + 1,
    });
    from = to;
  }
  // The whole cost, decided before any LCS runs.
  let comparisons = 0;
  for (const s of segments)
    if (!sameIds(s.o, s.a) && !sameIds(s.o, s.b) && !sameIds(s.a, s.b))
      comparisons += s.o.length * (s.a.length + s.b.length);
  if (comparisons > MERGE_LIMITS.maxLineComparisons)
    throw MergeTooLargeError('comparisons', MERGE_LIMITS.maxLineComparisons);

  const out: number[] = [];
  const hunks: ConflictHunk[] = [];
  segments.forEach((s, k) => {
    if (sameIds(s.o, s.a) || sameIds(s.a, s.b)) out.push(...s.b);
    else if (sameIds(s.o, s.b)) out.push(...s.a);
    else
      for (const region of diff3Merge<number>([...s.a], [...s.o], [...s.b], {
        excludeFalseConflicts: true,
      })) {
        if (region.ok) out.push(...region.ok);
        else if (region.conflict) {
          const c = region.conflict;
          const text = (part: readonly number[]) => hunkText(part.map((id) => lines[id]!));
          hunks.push({
            line: lineOffset + s.oStart + c.oIndex + 1,
            base: text(c.o),
            current: text(c.a),
            draft: text(c.b),
          });
        }
      }
    // the anchor after the segment (none after the last)
    if (k < segments.length - 1) out.push(o[segments[k + 1]!.oStart - 1]!);
  });
  if (hunks.length > 0) return { kind: 'conflict', hunks };
  return { kind: 'clean', lines: out.map((id) => lines[id]!) };
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
