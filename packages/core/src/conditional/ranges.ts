import { parseHttpDate, truncateToSecond } from './dates.js';
import { parseEntityTag, strongMatch } from './entity-tags.js';
import type { CurrentValidators } from './preconditions.js';
import { trimOws } from './syntax.js';

/** One byte range, both ends inclusive, within [0, size). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * What a `Range` field asks of a representation: `none` (serve it whole: no field, a malformed one,
 * another unit, or several ranges), one satisfiable range (206), or `unsatisfiable` (416).
 */
export type RangeRequest = 'none' | 'unsatisfiable' | ByteRange;

const DIGITS = /^\d+$/;

/**
 * One byte range-spec (RFC 9110 §14.1.2) of a representation of `size` bytes. Positions can be far
 * beyond 2^53: Number() rounds them monotonically, which keeps every comparison with a safe-integer size
 * right, and the one comparison of two positions (`5-2` is invalid) is made exactly on BigInts.
 */
function byteRange(spec: string, size: number): RangeRequest {
  const dash = spec.indexOf('-');
  const first = spec.slice(0, dash);
  const last = spec.slice(dash + 1);
  if (dash < 0 || !DIGITS.test(first === '' ? last : first)) return 'none';
  if (first === '') {
    // suffix-range: the last `length` bytes. `-0` is unsatisfiable (§14.1.1). A 0-byte representation
    // has no last bytes to send even though the RFC calls the range satisfiable: serve it whole.
    const length = Number(last);
    if (length === 0) return 'unsatisfiable';
    if (size === 0) return 'none';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  if (last !== '' && (!DIGITS.test(last) || BigInt(last) < BigInt(first))) return 'none';
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

/**
 * Parses a `Range` field (RFC 9110 §14.2) for a representation of `size` bytes (a safe integer). The
 * unit is case-insensitive; list elements may carry optional white space and be empty (§5.6.1).
 * Several ranges are served as the whole representation (extensions §2), not as multipart.
 */
export function parseRange(value: string | undefined, size: number): RangeRequest {
  if (value === undefined) return 'none';
  const text = trimOws(value);
  // Range units compare case-insensitively (§14.1); no white space before `=`.
  if (text.slice(0, 6).toLowerCase() !== 'bytes=') return 'none';
  const specs = text
    .slice(6)
    .split(',')
    .map(trimOws)
    .filter((spec) => spec !== '');
  return specs.length === 1 ? byteRange(specs[0]!, size) : 'none';
}

/**
 * `If-Range` (RFC 9110 §13.1.5): absent holds; an entity tag holds when it matches the current one
 * strongly (a weak tag never does); an HTTP-date holds when it equals `lastModified` truncated to the
 * second exactly; anything else does not hold (the whole representation is sent).
 */
export function ifRangeHolds(
  ifRange: string | undefined,
  current: CurrentValidators,
  nowMs?: number,
): boolean {
  if (ifRange === undefined) return true;
  const tag = parseEntityTag(ifRange);
  if (tag !== undefined) {
    const currentTag = parseEntityTag(current.etag);
    return currentTag !== undefined && strongMatch(tag, currentTag);
  }
  return parseHttpDate(ifRange, nowMs) === truncateToSecond(current.lastModified);
}

/** `Content-Range` of a 206: `bytes 0-99/1234`. */
export function contentRangeHeader(start: number, end: number, size: number): string {
  return `bytes ${start}-${end}/${size}`;
}

// `Content-Range` of a 416: `bytes */1234`.
export function unsatisfiedRangeHeader(size: number): string {
  return `bytes */${size}`;
}
