/**
 * The one merge engine of extensions §13: drafts' publish, `?merge_base=` on content writes and PATCH,
 * and the CLI's `sync`. Laws: when current is base the result is proposed byte for byte (`merged:
 * false`); when proposed is base or current the result is current byte for byte; changes that do not
 * overlap always merge to a text holding both; overlapping changes never merge silently (`conflict`).
 * Cost and bound: `MERGE_LIMITS` (defaults/merge.ts); past it `MERGE_TOO_LARGE` is thrown.
 */
export { mergeDocument } from './document.js';
export { mergeMetadata } from './metadata.js';
export { mergeText, splitLinesKeepingEnds } from './text.js';
export type {
  ConflictHunk,
  FileConflict,
  JsonObject,
  MetadataMerge,
  TextMerge,
} from './types.js';
