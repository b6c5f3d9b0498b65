/**
 * PLACEHOLDER of the merge engine (issue 38, deliverable 2): the `merge` branch replaces this file with
 * the real one (diff3 by lines, front matter and metadata key by key) under the same names and shapes.
 * Until then only the trivial laws hold here: an unchanged side gives the other side byte for byte, two
 * equal sides give that side; anything else is a conflict (one hunk covering the whole text, or every
 * key that differs). It never merges silently, so a publish built on it is safe, only more refusing.
 */

export interface ConflictHunk {
  /** 1-based line in the base text where the conflicting region starts. */
  readonly line: number;
  /** The region's text in base (lines joined with '\n', may be ''). */
  readonly base: string;
  /** … in the current (live) text. */
  readonly current: string;
  /** … in the proposed text (a draft's file, or the body sent with ?merge_base=). */
  readonly draft: string;
}

export type TextMerge =
  | { readonly kind: 'clean'; readonly text: string; readonly merged: boolean }
  | { readonly kind: 'conflict'; readonly hunks: readonly ConflictHunk[] };

/** Whole Markdown documents: YAML front matter key by key, the body by lines (diff3). */
export function mergeDocument(base: string, current: string, proposed: string): TextMerge {
  if (current === base) return { kind: 'clean', text: proposed, merged: false };
  if (proposed === base || proposed === current) return { kind: 'clean', text: current, merged: false };
  return { kind: 'conflict', hunks: [{ line: 1, base, current, draft: proposed }] };
}

export type JsonObject = Readonly<Record<string, unknown>>;

export type MetadataMerge =
  | { readonly kind: 'clean'; readonly value: JsonObject; readonly merged: boolean }
  | { readonly kind: 'conflict'; readonly keys: readonly string[] };

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Metadata objects key by key (a key changed on one side only takes that side; both sides the same value: fine). */
export function mergeMetadata(base: JsonObject, current: JsonObject, proposed: JsonObject): MetadataMerge {
  if (same(current, base)) return { kind: 'clean', value: proposed, merged: false };
  if (same(proposed, base) || same(proposed, current))
    return { kind: 'clean', value: current, merged: false };
  const keys = [...new Set([...Object.keys(current), ...Object.keys(proposed)])].filter(
    (key) => !same(current[key], proposed[key]),
  );
  return { kind: 'conflict', keys: keys.sort() };
}
