import { parseHttpDate, truncateToSecond } from './dates.js';
import {
  type EntityTag,
  type EntityTagList,
  parseEntityTag,
  parseEntityTagList,
  strongMatch,
  weakMatch,
} from './entity-tags.js';

/** The conditional request header fields as received (raw strings; undefined when not sent). */
export interface PreconditionHeaders {
  readonly ifMatch?: string | undefined;
  readonly ifNoneMatch?: string | undefined;
  readonly ifModifiedSince?: string | undefined;
  readonly ifUnmodifiedSince?: string | undefined;
}

/**
 * The preconditions of a request, parsed. Dates are epoch milliseconds of a valid HTTP-date; an absent
 * or invalid date is undefined, because RFC 9110 §13.1.3-4 says to ignore a date that is not valid.
 */
export interface Preconditions {
  readonly ifMatch: EntityTagList;
  readonly ifNoneMatch: EntityTagList;
  readonly ifModifiedSince: number | undefined;
  readonly ifUnmodifiedSince: number | undefined;
}

/** The validators of the resource's current representation; `lastModified` in epoch milliseconds. */
export interface CurrentValidators {
  readonly etag: string;
  readonly lastModified: number;
}

export type PreconditionMethod = 'read' | 'write';

/** `not-modified` (304) only ever answers a read; `failed` is 412. */
export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

/** `nowMs` only dates two-digit years of the obsolete RFC 850 date form. */
export function parsePreconditions(headers: PreconditionHeaders, nowMs?: number): Preconditions {
  return {
    ifMatch: parseEntityTagList(headers.ifMatch),
    ifNoneMatch: parseEntityTagList(headers.ifNoneMatch),
    ifModifiedSince: parseHttpDate(headers.ifModifiedSince, nowMs),
    ifUnmodifiedSince: parseHttpDate(headers.ifUnmodifiedSince, nowMs),
  };
}

/**
 * Whether the request sent `If-Match` in any form, even malformed or empty: a project that requires
 * `If-Match` answers 428 only when the field is missing; one it cannot read fails with 412 instead.
 */
export function hasIfMatch(preconditions: Preconditions): boolean {
  return preconditions.ifMatch.kind !== 'absent';
}

/** A field that was sent. */
type SentList = Exclude<EntityTagList, { kind: 'absent' }>;

/** The current entity tag: null when there is no resource, undefined when its ETag does not parse. */
type CurrentTag = EntityTag | undefined | null;

/**
 * `If-Match` (RFC 9110 §13.1.1), strong comparison. A malformed value is false: a request is never
 * carried out on a condition that could not be read.
 */
function ifMatchHolds(field: SentList, current: CurrentTag): boolean {
  if (field.kind === 'malformed') return false;
  if (field.kind === 'any') return current !== null;
  return field.tags.some((tag) => current != null && strongMatch(tag, current));
}

/**
 * `If-None-Match` (RFC 9110 §13.1.2), weak comparison. A malformed value holds for a read (the full
 * answer is always safe to send) and fails a write (never carried out on an unreadable condition).
 */
function ifNoneMatchHolds(field: SentList, current: CurrentTag, method: PreconditionMethod): boolean {
  if (field.kind === 'malformed') return method === 'read';
  if (field.kind === 'any') return current === null;
  return !field.tags.some((tag) => current != null && weakMatch(tag, current));
}

/**
 * Evaluates the preconditions in the order of RFC 9110 §13.2.2 (steps 1-4; step 5, `If-Range`, is
 * `ifRangeHolds`). `current` is null when the resource does not exist. Dates compare with
 * `lastModified` truncated to the second.
 *
 * Decisions where the RFC leaves room:
 * - a malformed `If-Match` fails (412) on reads and writes alike; a malformed `If-None-Match` fails a
 *   write (412) and is disregarded on a read (the request proceeds; `If-Modified-Since` is still not
 *   evaluated, because `If-None-Match` was present); an invalid date is ignored (RFC 9110 §13.1.3-4);
 * - an empty list (`If-Match: ,`) is a list that no entity tag is in;
 * - with no current resource, `If-Match` fails, `If-None-Match` holds, and the dates are ignored
 *   (there is no modification date to compare);
 * - the RFC's exception for a write that "has already succeeded" is not applied: we cannot tell;
 * - `current.etag` that is not a valid entity tag matches no listed tag (`*` still matches).
 */
export function evaluatePreconditions(
  request: Preconditions,
  current: CurrentValidators | null,
  method: PreconditionMethod,
): PreconditionOutcome {
  const currentTag = current === null ? null : parseEntityTag(current.etag);
  const lastModified = current === null ? undefined : truncateToSecond(current.lastModified);
  // Step 1, else step 2.
  if (request.ifMatch.kind !== 'absent') {
    if (!ifMatchHolds(request.ifMatch, currentTag)) return 'failed';
  } else if (request.ifUnmodifiedSince !== undefined && lastModified !== undefined) {
    const unmodifiedSince = lastModified <= request.ifUnmodifiedSince;
    if (!unmodifiedSince) return 'failed';
  }
  // Step 3, else step 4.
  if (request.ifNoneMatch.kind !== 'absent') {
    if (ifNoneMatchHolds(request.ifNoneMatch, currentTag, method)) return 'proceed';
    return method === 'read' ? 'not-modified' : 'failed';
  }
  if (method === 'read' && request.ifModifiedSince !== undefined && lastModified !== undefined) {
    const modifiedSince = lastModified > request.ifModifiedSince;
    if (!modifiedSince) return 'not-modified';
  }
  return 'proceed';
}
