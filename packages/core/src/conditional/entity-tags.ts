import { isOws, trimOws } from './syntax.js';

/** An entity tag (RFC 9110 §8.8.3): `opaque` is the text between the quotes. */
export interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/**
 * An `If-Match` / `If-None-Match` field value: not sent, `*`, a list of entity tags (possibly empty:
 * RFC 9110 §5.6.1 lets a list consist of empty elements only), or a value that follows neither form.
 */
export type EntityTagList =
  | { readonly kind: 'absent' }
  | { readonly kind: 'any' }
  | { readonly kind: 'list'; readonly tags: readonly EntityTag[] }
  | { readonly kind: 'malformed' };

const DQUOTE = 0x22;

/** etagc = %x21 / %x23-7E / obs-text (%x80-FF): visible characters other than DQUOTE. */
function isEtagc(code: number): boolean {
  return code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

/**
 * Reads one entity tag starting at `start`; returns it with the index just after its closing quote,
 * or undefined when no entity tag starts there. A comma is a valid etagc, so lists cannot be split on
 * commas: each tag is scanned to its closing quote.
 */
function scanEntityTag(value: string, start: number): { tag: EntityTag; next: number } | undefined {
  const weak = value.startsWith('W/', start);
  const open = weak ? start + 2 : start;
  if (value.charCodeAt(open) !== DQUOTE) return undefined;
  let index = open + 1;
  // Past the end charCodeAt is NaN, which is no etagc and no DQUOTE.
  while (isEtagc(value.charCodeAt(index))) index++;
  if (value.charCodeAt(index) !== DQUOTE) return undefined;
  return { tag: { weak, opaque: value.slice(open + 1, index) }, next: index + 1 };
}

/** Parses a single entity tag (an `ETag` or `If-Range` value); undefined when it is not exactly one. */
export function parseEntityTag(value: string): EntityTag | undefined {
  const trimmed = trimOws(value);
  const scanned = scanEntityTag(trimmed, 0);
  return scanned !== undefined && scanned.next === trimmed.length ? scanned.tag : undefined;
}

/** Serialises an entity tag: `"opaque"` or `W/"opaque"`. */
export function formatEntityTag(tag: EntityTag): string {
  return `${tag.weak ? 'W/' : ''}"${tag.opaque}"`;
}

/**
 * Parses `If-Match` / `If-None-Match` (RFC 9110 §13.1.1-2): `"*" / #entity-tag`. Node joins repeated
 * header lines with `, `, which this grammar reads as one list; `*` mixed with tags is malformed.
 */
export function parseEntityTagList(value: string | undefined): EntityTagList {
  if (value === undefined) return { kind: 'absent' };
  const trimmed = trimOws(value);
  if (trimmed === '*') return { kind: 'any' };
  const tags: EntityTag[] = [];
  let index = 0;
  // Each turn reads one list element (possibly empty), then the comma that ends it, or the end.
  while (index < trimmed.length) {
    if (trimmed.charCodeAt(index) !== 0x2c) {
      const scanned = scanEntityTag(trimmed, index);
      if (scanned === undefined) return { kind: 'malformed' };
      tags.push(scanned.tag);
      index = scanned.next;
      while (isOws(trimmed.charCodeAt(index))) index++;
      if (index === trimmed.length) break;
      if (trimmed.charCodeAt(index) !== 0x2c) return { kind: 'malformed' };
    }
    index++;
    while (isOws(trimmed.charCodeAt(index))) index++;
  }
  return { kind: 'list', tags };
}

/** Strong comparison (RFC 9110 §8.8.3.2): both strong and their opaque tags identical. */
export function strongMatch(a: EntityTag, b: EntityTag): boolean {
  return !a.weak && !b.weak && a.opaque === b.opaque;
}

/** Weak comparison (RFC 9110 §8.8.3.2): the opaque tags are identical, weakness aside. */
export function weakMatch(a: EntityTag, b: EntityTag): boolean {
  return a.opaque === b.opaque;
}
