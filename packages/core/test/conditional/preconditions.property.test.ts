import { evaluatePreconditions, type PreconditionMethod, parsePreconditions } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * `evaluatePreconditions` (fed through `parsePreconditions`) against a reference written straight from
 * RFC 9110 §13.1.1-4 and §13.2.2, over random tag sets, dates, resources and methods. The reference
 * works on what the generator meant, never on parsed headers, and writes its own dates.
 */

interface Tag {
  weak: boolean;
  opaque: string;
}
type TagField =
  | { sent: 'no' }
  | { sent: 'star' }
  | { sent: 'tags'; tags: Tag[] }
  | { sent: 'garbage'; text: string };
type DateField =
  | { sent: 'no' }
  | { sent: 'date'; ms: number; form: 'imf' | 'rfc850' | 'asctime' }
  | { sent: 'garbage'; text: string };
interface Resource {
  tag: Tag;
  lastModifiedMs: number;
}

const BASE = Date.UTC(2025, 6, 4, 12, 0, 0);
const NOW = Date.UTC(2026, 0, 1);
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

function writeDate(field: Extract<DateField, { sent: 'date' }>): string {
  const d = new Date(field.ms);
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  const month = MONTHS[d.getUTCMonth()];
  if (field.form === 'imf') {
    return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${month} ${d.getUTCFullYear()} ${time} GMT`;
  }
  if (field.form === 'rfc850') {
    return `${LONG_DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())}-${month}-${two(d.getUTCFullYear() % 100)} ${time} GMT`;
  }
  return `${DAYS[d.getUTCDay()]} ${month} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${d.getUTCFullYear()}`;
}

function writeTags(field: TagField, separator: string): string | undefined {
  switch (field.sent) {
    case 'no':
      return undefined;
    case 'star':
      return '*';
    case 'garbage':
      return field.text;
    case 'tags':
      return field.tags.map((tag) => `${tag.weak ? 'W/' : ''}"${tag.opaque}"`).join(separator);
  }
}

// --- The reference, in the words of the RFC. ---

/** §8.8.3.2: strong comparison, both not weak and identical; weak comparison, opaque-tags identical. */
const strongly = (a: Tag, b: Tag) => !a.weak && !b.weak && a.opaque === b.opaque;
const weakly = (a: Tag, b: Tag) => a.opaque === b.opaque;
const seconds = (ms: number) => Math.floor(ms / 1000);

function reference(
  ifMatch: TagField,
  ifNoneMatch: TagField,
  ifModifiedSince: DateField,
  ifUnmodifiedSince: DateField,
  resource: Resource | null,
  method: PreconditionMethod,
): string {
  const isGetOrHead = method === 'read';
  // §13.1.1: "*" is false if there is no current representation; a list is false if none matches
  // (strongly). Our decision: a value we cannot read is false.
  const ifMatchIsTrue = () => {
    if (ifMatch.sent === 'star') return resource !== null;
    if (ifMatch.sent === 'tags')
      return ifMatch.tags.some((tag) => resource !== null && strongly(tag, resource.tag));
    return false;
  };
  // §13.1.2: "*" is false if there is a current representation; a list is false if one matches
  // (weakly). Our decision: a value we cannot read holds for GET/HEAD and is false otherwise.
  const ifNoneMatchIsTrue = () => {
    if (ifNoneMatch.sent === 'star') return resource === null;
    if (ifNoneMatch.sent === 'tags')
      return !ifNoneMatch.tags.some((tag) => resource !== null && weakly(tag, resource.tag));
    return isGetOrHead;
  };
  // §13.1.4: ignored when not a valid date or without a modification date; false when the resource
  // was modified after the date.
  const ifUnmodifiedSinceIsFalse = () =>
    ifUnmodifiedSince.sent === 'date' &&
    resource !== null &&
    seconds(resource.lastModifiedMs) > seconds(ifUnmodifiedSince.ms);
  // §13.1.3: ignored unless GET/HEAD, a valid date and a modification date; false when the
  // modification date is earlier than or equal to the date given.
  const ifModifiedSinceIsFalse = () =>
    isGetOrHead &&
    ifModifiedSince.sent === 'date' &&
    resource !== null &&
    seconds(resource.lastModifiedMs) <= seconds(ifModifiedSince.ms);

  // §13.2.2 step 1: If-Match present: if false, 412.
  if (ifMatch.sent !== 'no') {
    if (!ifMatchIsTrue()) return 'failed';
  } else if (ifUnmodifiedSinceIsFalse()) {
    // Step 2: If-Match absent, If-Unmodified-Since present: if false, 412.
    return 'failed';
  }
  // Step 3: If-None-Match present: if false, 304 for GET/HEAD, 412 otherwise.
  if (ifNoneMatch.sent !== 'no') {
    if (ifNoneMatchIsTrue()) return 'proceed';
    return isGetOrHead ? 'not-modified' : 'failed';
  }
  // Step 4: GET/HEAD, If-None-Match absent, If-Modified-Since present: if false, 304.
  if (ifModifiedSinceIsFalse()) return 'not-modified';
  return 'proceed';
}

// --- Generators. ---

const opaque = fc.constantFrom('a', 'b', 'c', '', 'a,b');
const tag = fc.record({ weak: fc.boolean(), opaque });
const tagField: fc.Arbitrary<TagField> = fc.oneof(
  fc.constant({ sent: 'no' as const }),
  fc.constant({ sent: 'star' as const }),
  fc.record({ sent: fc.constant('tags' as const), tags: fc.array(tag, { maxLength: 3 }) }),
  fc.record({
    sent: fc.constant('garbage' as const),
    text: fc.constantFrom('a', '"a', 'W/a', '*, "a"', '"a" "b"', 'w/"a"', '"a"b', '**'),
  }),
);
/** Instants within a few seconds of BASE, with milliseconds, so that second boundaries are hit. */
const instant = fc
  .integer({ min: -3, max: 3 })
  .chain((s) => fc.constantFrom(0, 1, 500, 999).map((ms) => BASE + s * 1000 + ms));
const dateField: fc.Arbitrary<DateField> = fc.oneof(
  fc.constant({ sent: 'no' as const }),
  fc.record({
    sent: fc.constant('date' as const),
    ms: instant,
    form: fc.constantFrom('imf', 'rfc850', 'asctime'),
  }),
  fc.record({
    sent: fc.constant('garbage' as const),
    text: fc.constantFrom(
      '',
      'now',
      'Fri, 04 Jul 2025 12:00:00 UTC',
      'Fri, 31 Jun 2025 12:00:00 GMT',
      '1751630400',
    ),
  }),
);
const resource: fc.Arbitrary<Resource | null> = fc.option(fc.record({ tag, lastModifiedMs: instant }), {
  nil: null,
});

describe('evaluatePreconditions against a reference model of RFC 9110 §13.2.2', () => {
  it('agrees on every combination', () => {
    fc.assert(
      fc.property(
        tagField,
        tagField,
        dateField,
        dateField,
        resource,
        fc.constantFrom<PreconditionMethod>('read', 'write'),
        fc.constantFrom(', ', ',', ' , ', ',\t'),
        (ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince, current, method, separator) => {
          const headerOf = (field: DateField) =>
            field.sent === 'no' ? undefined : field.sent === 'date' ? writeDate(field) : field.text;
          const request = parsePreconditions(
            {
              ifMatch: writeTags(ifMatch, separator),
              ifNoneMatch: writeTags(ifNoneMatch, separator),
              ifModifiedSince: headerOf(ifModifiedSince),
              ifUnmodifiedSince: headerOf(ifUnmodifiedSince),
            },
            NOW,
          );
          const validators =
            current === null
              ? null
              : {
                  etag: `${current.tag.weak ? 'W/' : ''}"${current.tag.opaque}"`,
                  lastModified: current.lastModifiedMs,
                };
          expect(evaluatePreconditions(request, validators, method)).toBe(
            reference(ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince, current, method),
          );
        },
      ),
      { numRuns: 5000 },
    );
  });
});
