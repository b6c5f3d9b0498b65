/**
 * The bounds of an import (extensions §10), defined once. The total size limit is a setting
 * (`MdStoreSettings.maxImportBytes`, `MDSTORE_MAX_IMPORT_BYTES`); these are fixed.
 */
export const IMPORT_LIMITS = {
  /** Default of `maxImportBytes`: the archive's total uncompressed size (1 GiB). */
  defaultMaxImportBytes: 1024 ** 3,
  /** More entries than this (files, folders, anything) and the archive is refused (422). */
  maxEntries: 100_000,
  /** Uncompressed bytes per compressed byte above which an archive is a bomb (422). */
  maxCompressionRatio: 200,
  /**
   * The ratio is judged once this many uncompressed bytes have come: a few kilobytes of zeros (an empty
   * tar's padding) compress far better than 200 to 1 and harm nobody.
   */
  ratioFloorBytes: 1024 * 1024,
  /** `mdstore.json` larger than this is refused (422): about 200 bytes a file plus metadata. */
  maxManifestBytes: 64 * 1024 * 1024,
} as const;

/** The name of the manifest an export writes (and an import reads) at the archive's root. */
export const MANIFEST_NAME = 'mdstore.json';
