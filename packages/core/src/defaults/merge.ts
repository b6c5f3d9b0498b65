/**
 * Bounds of the three-way merge (extensions §13: drafts' publish, `?merge_base=`, the CLI's `sync`).
 *
 * The cost. The three texts are split into lines and each line is interned (one hash-map pass,
 * O(bytes)). Lines unique in all three texts and in the same order in all three are anchors (a
 * longest increasing subsequence, O(n log n)); the texts are cut at the anchors into segments, and
 * only a segment whose three sides differ is merged by node-diff3, whose LCS (Hunt–McIlroy with a
 * linear scan of candidates) costs O(o × x) line comparisons worst case for a segment of o base lines
 * and x lines on the other side, done twice (base × current, base × proposed). The sum of those
 * products over the segments is computed before any of them runs, so past
 * `maxLineComparisons` the merge is refused (`MERGE_TOO_LARGE`) after O(n) work, never half done.
 * Ordinary edits of prose leave almost every line unique, so segments are a few lines long and a
 * 1 MiB text with 100 changes a side merges in tens of milliseconds (bench `merge`); a text of many repeated lines (a long table of equal rows) edited
 * on both sides is the case the bound refuses.
 */
export const MERGE_LIMITS = {
  /** The most lines any of the three texts may have (the interning and anchor passes are O(n log n)). */
  maxLines: 200_000,
  /** The most line comparisons the LCS of all differing segments may need together (Σ o·x, both sides). */
  maxLineComparisons: 10_000_000,
} as const;
