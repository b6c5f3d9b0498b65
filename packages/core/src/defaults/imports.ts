/**
 * The bounds of what an import (extensions §10) echoes and what its archive readers buffer (issue 34),
 * defined once. An archive's own names are the client's input: they are never answered whole.
 */
export const IMPORT_ANSWER_LIMITS = {
  /**
   * A name echoed in `skipped` longer than this many UTF-8 bytes is cut (on a character boundary) and
   * ends with `…` (U+2026), within the bound.
   */
  nameMaxBytes: 1024,
  /** Entries listed in `skipped`; the others are counted in `skipped_omitted`. */
  skippedMax: 1000,
  /**
   * A tar's PAX or GNU long-name header larger than this is refused (422 `header_too_large`) before it
   * is buffered: a name (or link) of more than 64 KiB is no file of any file system.
   */
  longHeaderMaxBytes: 64 * 1024,
} as const;
