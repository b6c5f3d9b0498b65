import {
  evaluatePreconditions,
  hasIfMatch,
  type Preconditions,
  parsePreconditions,
} from '../../conditional/index.js';
import { PreconditionFailedError, PreconditionRequiredError } from '../../errors.js';
import { fileEtag } from '../../model/etags.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';

/** The conditional headers of a request, as sent (RFC 9110 §13). */
export interface RequestConditions {
  readonly ifMatch?: string;
  readonly ifNoneMatch?: string;
  readonly ifModifiedSince?: string;
  readonly ifUnmodifiedSince?: string;
}

/**
 * A request's preconditions, parsed once when the use case starts (`conditionsOf`) and passed down to
 * every check: the check before the body is read, the ones of a retry, and the one under the lock.
 */
export type ParsedConditions = Preconditions;

/** Parses the conditional headers once; no headers at all is the same as none sent. */
export const conditionsOf = (conditions: RequestConditions | undefined): ParsedConditions =>
  parsePreconditions(conditions ?? {});

/** Whether the request sent `If-Match` (in any form): what a project that requires it looks for. */
export const sentIfMatch = (conditions: ParsedConditions): boolean => hasIfMatch(conditions);

const stateOf = (file: FileRecord) => ({ etag: fileEtag(file), lastModified: file.updatedAt });

/**
 * A write to an existing file: `428` when the project requires `If-Match` and there is none (before any
 * `412`), then the preconditions against the file's current state. Called before the body is read and
 * again inside the commit transaction, under the project lock, so that of concurrent writes carrying
 * the same ETag exactly one proceeds.
 */
export function checkWriteConditions(
  project: Pick<ProjectRecord, 'requireIfMatch'>,
  file: FileRecord,
  conditions: ParsedConditions,
  o: { requireIfMatch?: boolean } = {},
): void {
  if ((o.requireIfMatch ?? project.requireIfMatch) && !hasIfMatch(conditions))
    throw new PreconditionRequiredError();
  if (evaluatePreconditions(conditions, stateOf(file), 'write') !== 'proceed') {
    throw new PreconditionFailedError(fileEtag(file));
  }
}

/** A read: `not-modified` for a 304, a `412` thrown for a failed `If-Match`/`If-Unmodified-Since`. */
export function checkReadConditions(
  file: FileRecord,
  conditions: ParsedConditions,
): 'proceed' | 'not-modified' {
  const outcome = evaluatePreconditions(conditions, stateOf(file), 'read');
  if (outcome === 'failed') throw new PreconditionFailedError(fileEtag(file));
  return outcome;
}
