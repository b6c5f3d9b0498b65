import { indexedContentText } from './index-document.js';
import { SEARCH_LIMITS } from './limits.js';
import { fieldLookup, termOccurrences } from './match.js';
import type { SearchQuery } from './query.js';
import { type Token, tokenize } from './tokenize.js';

export interface Snippet {
  readonly text: string;
  /** Code-point offsets into `text`, end exclusive, in order, never overlapping. */
  readonly highlights: readonly (readonly [number, number])[];
}

export interface SnippetOptions {
  readonly max?: number;
  readonly maxCodePoints?: number;
}

/** A stretch of the content that matched, with the query terms (indexes) it matched. */
interface Span {
  readonly start: number;
  end: number;
  readonly terms: Set<number>;
}

/**
 * Up to `max` snippets of at most `maxCodePoints` code points of the content (the indexed part: first
 * 1 MiB, 16 000 words) with a highlight per matched word occurrence: every occurrence of a word or
 * prefix (the whole word) and every word of a phrase occurrence, of every term of `include` (`OR`
 * alternatives too, excluded terms never). Highlights that touch (one code point giving two words)
 * merge; a word longer than a snippet is never shown.
 *
 * Windows are picked greedily: each round takes, among windows starting at a match and not overlapping
 * the windows already taken, the one covering the most query terms not yet shown, then the most
 * matches, then the earliest. It is then widened to `maxCodePoints` around its matches (half the
 * slack before, the rest after, within its neighbours), cut back to whole words where a space allows,
 * and trimmed of white space. Snippets come in text order; no match in the content gives `[]`.
 */
export function snippets(contentText: string, query: SearchQuery, options: SnippetOptions = {}): Snippet[] {
  const max = options.max ?? SEARCH_LIMITS.snippetMax;
  const width = options.maxCodePoints ?? SEARCH_LIMITS.snippetMaxCodePoints;
  const text = indexedContentText(contentText);
  const tokens = tokenize(text, { maxTokens: SEARCH_LIMITS.contentMaxWords });
  const spans = matchedSpans(tokens, query).filter((span) => span.end - span.start <= width);
  const chars = new CodePoints(text);
  const windows: { start: number; end: number }[] = [];
  const shown = new Set<number>();
  while (windows.length < max) {
    const best = bestWindow(spans, windows, shown, width);
    if (!best) break;
    const window = place(chars, spans, best, windows, width);
    for (const span of spans) {
      if (span.start >= window.start && span.end <= window.end)
        for (const term of span.terms) shown.add(term);
    }
    windows.push(window);
    windows.sort((a, b) => a.start - b.start);
  }
  return windows.map((window) => ({
    text: chars.slice(window.start, window.end),
    highlights: spans
      .filter((span) => span.start >= window.start && span.end <= window.end)
      .map((span) => [span.start - window.start, span.end - window.start] as const),
  }));
}

function matchedSpans(tokens: readonly Token[], query: SearchQuery): Span[] {
  const field = fieldLookup(tokens);
  const found: Span[] = [];
  query.include.flat().forEach((term, index) => {
    for (const start of termOccurrences(term, field)) {
      for (let offset = 0; offset < term.words.length; offset += 1) {
        const token = tokens[start + offset]!;
        found.push({ start: token.start, end: token.end, terms: new Set([index]) });
      }
    }
  });
  found.sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Span[] = [];
  for (const span of found) {
    const previous = merged.at(-1);
    if (previous && span.start < previous.end) {
      previous.end = Math.max(previous.end, span.end);
      for (const term of span.terms) previous.terms.add(term);
    } else {
      merged.push({ start: span.start, end: span.end, terms: new Set(span.terms) });
    }
  }
  return merged;
}

interface Candidate {
  readonly first: number;
  /** Index after the last span covered. */
  readonly last: number;
}

function bestWindow(
  spans: readonly Span[],
  taken: readonly { start: number; end: number }[],
  shown: ReadonlySet<number>,
  width: number,
): Candidate | undefined {
  let best: (Candidate & { fresh: number; count: number }) | undefined;
  for (let first = 0; first < spans.length; first += 1) {
    const anchor = spans[first]!;
    if (taken.some((window) => anchor.start < window.end && anchor.end > window.start)) continue;
    const limit = Math.min(
      anchor.start + width,
      ...taken.filter((w) => w.start >= anchor.end).map((w) => w.start),
    );
    let last = first;
    const fresh = new Set<number>();
    while (last < spans.length && spans[last]!.end <= limit) {
      for (const term of spans[last]!.terms) if (!shown.has(term)) fresh.add(term);
      last += 1;
    }
    const count = last - first;
    if (!best || fresh.size > best.fresh || (fresh.size === best.fresh && count > best.count)) {
      best = { first, last, fresh: fresh.size, count };
    }
  }
  return best;
}

const SPACE = /^\p{White_Space}$/u;

function place(
  chars: CodePoints,
  spans: readonly Span[],
  candidate: Candidate,
  taken: readonly { start: number; end: number }[],
  width: number,
): { start: number; end: number } {
  const first = spans[candidate.first]!.start;
  const last = spans[candidate.last - 1]!.end;
  const lower = Math.max(0, ...taken.filter((w) => w.end <= first).map((w) => w.end));
  const upper = Math.min(chars.length, ...taken.filter((w) => w.start >= last).map((w) => w.start));
  const slack = width - (last - first);
  let start = Math.max(lower, first - Math.floor(slack / 2));
  let end = Math.min(upper, start + width);
  start = Math.max(lower, end - width);
  // Cut a word broken by the window's edge, where a space between the edge and the matches allows it.
  if (start > 0 && !SPACE.test(chars.at(start - 1))) {
    for (let index = start; index < first; index += 1) {
      if (SPACE.test(chars.at(index))) {
        start = index + 1;
        break;
      }
    }
  }
  if (end < chars.length && !SPACE.test(chars.at(end))) {
    for (let index = end - 1; index >= last; index -= 1) {
      if (SPACE.test(chars.at(index))) {
        end = index;
        break;
      }
    }
  }
  while (start < first && SPACE.test(chars.at(start))) start += 1;
  while (end > last && SPACE.test(chars.at(end - 1))) end -= 1;
  return { start, end };
}

/** Code-point access to a text: offset → code unit index, built once. */
class CodePoints {
  readonly #text: string;
  readonly #units: Uint32Array;
  readonly length: number;

  constructor(text: string) {
    this.#text = text;
    const units = new Uint32Array(text.length + 1);
    let count = 0;
    for (let index = 0; index < text.length; count += 1) {
      units[count] = index;
      index += text.codePointAt(index)! > 0xffff ? 2 : 1;
    }
    units[count] = text.length;
    this.#units = units;
    this.length = count;
  }

  at(offset: number): string {
    return this.#text.slice(this.#units[offset], this.#units[offset + 1]);
  }

  slice(start: number, end: number): string {
    return this.#text.slice(this.#units[start], this.#units[end]);
  }
}
