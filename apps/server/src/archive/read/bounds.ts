import { IMPORT_LIMITS, InvalidInputError, mdStoreError } from '@mdstore/core';

/** The limits of one import: the setting's total, and the core's fixed entry count and ratio. */
export interface ImportBounds {
  readonly maxBytes: number;
  readonly maxEntries?: number;
  readonly maxRatio?: number;
}

const refusal = (msg: string, type: string) => new InvalidInputError([{ loc: ['body'], msg, type }]);

/**
 * Keeps the running totals of an archive as it is read, and refuses it as soon as one passes its bound
 * (extensions §10): total uncompressed size (413), entries (422), uncompressed per compressed byte
 * (422, once `ratioFloorBytes` have come). Both the sizes an archive declares and the bytes that
 * actually come out of the inflater are counted, each against the bounds.
 */
export class ArchiveTally {
  private entries = 0;
  private declared = 0;
  private actual = 0;
  private readonly maxEntries: number;
  private readonly maxRatio: number;

  constructor(private readonly bounds: ImportBounds) {
    this.maxEntries = bounds.maxEntries ?? IMPORT_LIMITS.maxEntries;
    this.maxRatio = bounds.maxRatio ?? IMPORT_LIMITS.maxCompressionRatio;
  }

  /** The compressed size is (or has become) this: refused when larger than the total allowed. */
  compressed(bytes: number): void {
    if (bytes > this.bounds.maxBytes) throw this.tooLarge();
  }

  /** The archive says it has this many entries. */
  declaredEntries(count: number): void {
    if (count > this.maxEntries) throw this.tooMany();
  }

  /** One more entry, of `size` declared bytes (`compressedSize` when the format says). */
  entry(size: number, compressedBytesSoFar: number): void {
    this.entries++;
    if (this.entries > this.maxEntries) throw this.tooMany();
    this.declared += size;
    if (this.declared > this.bounds.maxBytes) throw this.tooLarge();
    this.judgeRatio(this.declared, compressedBytesSoFar);
  }

  /** `bytes` more came out of the inflater. */
  inflated(bytes: number, compressedBytesSoFar: number): void {
    this.actual += bytes;
    if (this.actual > this.bounds.maxBytes) throw this.tooLarge();
    this.judgeRatio(this.actual, compressedBytesSoFar);
  }

  /** One entry's (or the whole archive's) uncompressed size against its compressed size. */
  ratio(uncompressed: number, compressed: number): void {
    this.judgeRatio(uncompressed, compressed);
  }

  private judgeRatio(uncompressed: number, compressed: number): void {
    if (uncompressed < IMPORT_LIMITS.ratioFloorBytes) return;
    if (uncompressed > this.maxRatio * Math.max(compressed, 1)) {
      throw refusal(
        `Archive refused: it inflates more than ${this.maxRatio} times its compressed size`,
        'compression_ratio',
      );
    }
  }

  private tooMany() {
    return refusal(`Archive refused: it has more than ${this.maxEntries} entries`, 'too_many_entries');
  }

  private tooLarge() {
    return mdStoreError('IMPORT_TOO_LARGE', { maxBytes: this.bounds.maxBytes });
  }
}
