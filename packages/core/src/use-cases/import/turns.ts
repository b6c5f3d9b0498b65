import { giveTurn, LARGE_TEXT } from '../../markdown/work-budget.js';

/**
 * Paces an import's linear work (decoding, hashing, link rewriting) over up to `maxImportBytes` of
 * text: a turn of the event loop after each `LARGE_TEXT` (about ten milliseconds of work), so other
 * requests run while a large archive is worked through. Each step is one file, itself at most
 * `maxFileBytes`.
 */
export class Turns {
  #since = 0;

  /** Counts `size` units of work just done; gives a turn once enough has been done since the last. */
  async after(size: number): Promise<void> {
    this.#since += size;
    if (this.#since < LARGE_TEXT) return;
    this.#since = 0;
    await giveTurn();
  }
}
