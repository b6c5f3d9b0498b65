/** The shapes of the merge engine's answers (the API agreed between publish, `?merge_base=` and `sync`). */

export interface ConflictHunk {
  /** 1-based line in the base text where the conflicting region starts. */
  readonly line: number;
  /** The region's text in base (its lines without their endings, joined with '\n'; may be ''). */
  readonly base: string;
  /** … in the current (live) text. */
  readonly current: string;
  /** … in the proposed text (a draft's file, or the body sent with `?merge_base=`). */
  readonly draft: string;
}

export type TextMerge =
  /** `merged`: a real three-way merge happened (both sides changed, differently). */
  | { readonly kind: 'clean'; readonly text: string; readonly merged: boolean }
  | { readonly kind: 'conflict'; readonly hunks: readonly ConflictHunk[] };

export type JsonObject = Readonly<Record<string, unknown>>;

export type MetadataMerge =
  | { readonly kind: 'clean'; readonly value: JsonObject; readonly merged: boolean }
  | { readonly kind: 'conflict'; readonly keys: readonly string[] };

/** The conflicts of one file, as a refused merge answers them (extensions §13). */
export interface FileConflict {
  readonly filename: string;
  readonly hunks: readonly ConflictHunk[];
}
