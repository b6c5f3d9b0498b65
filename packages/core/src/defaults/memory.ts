/** Limits of the memory endpoint (extensions §14), defined once. */
export const MEMORY_LIMITS = Object.freeze({
  /** Bytes of a memory file's text after a command (`create`, `str_replace`, `insert`); past it, the command's error text. */
  maxFileBytes: 1024 * 1024,
  /** Bytes of a file `view` reads; a larger file (written by other routes) is refused with an error text. */
  maxViewBytes: 2 * 1024 * 1024,
  /** Bytes of a command's JSON body (the largest text field is `file_text`, JSON-escaped). */
  maxBodyBytes: 3 * 1024 * 1024,
  /** Entries a folder `view` lists (two levels deep, as the reference); past it, a last line says how many were left out. */
  maxViewEntries: 1000,
  /** Files a folder `view` reads at most to build its listing; past it, a last line says the listing stopped. */
  maxViewScan: 5000,
  /** Files a folder `rename` or `delete` touches (one changeset, all or nothing); past it, the command's error text. */
  maxFolderFiles: 200,
  /** Attempts of a `str_replace`/`insert` on ever newer content (If-Match lost to another writer). */
  maxWriteAttempts: 40,
  /** The longest wait between two attempts, milliseconds (randomised, doubling from 1 ms). */
  maxRetryDelayMs: 50,
});

/** Lines a memory file may have (the reference's `MAX_LINES`): the width of its line numbers. */
export const MEMORY_MAX_LINES = 999999;
