import { evaluatePreconditions, hasIfMatch, parsePreconditions } from '../../conditional/index.js';
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
  conditions: RequestConditions | undefined,
  o: { requireIfMatch?: boolean } = {},
): void {
  const parsed = parsePreconditions(conditions ?? {});
  if ((o.requireIfMatch ?? project.requireIfMatch) && !hasIfMatch(parsed))
    throw new PreconditionRequiredError();
  if (evaluatePreconditions(parsed, stateOf(file), 'write') !== 'proceed') {
    throw new PreconditionFailedError(fileEtag(file));
  }
}

/** A read: `not-modified` for a 304, a `412` thrown for a failed `If-Match`/`If-Unmodified-Since`. */
export function checkReadConditions(
  file: FileRecord,
  conditions: RequestConditions | undefined,
): 'proceed' | 'not-modified' {
  if (!conditions) return 'proceed';
  const outcome = evaluatePreconditions(parsePreconditions(conditions), stateOf(file), 'read');
  if (outcome === 'failed') throw new PreconditionFailedError(fileEtag(file));
  return outcome;
}
