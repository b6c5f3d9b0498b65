/** Preconditions of a write (RFC 9110 §13): the server answers 412 and changes nothing when one fails. */
export interface WritePreconditions {
  /** The ETag(s) the resource must still have (`*`: it must exist). */
  readonly ifMatch?: string | readonly string[];
  /** The ETag(s) it must not have (`*`: it must not exist). */
  readonly ifNoneMatch?: string | readonly string[];
  readonly ifUnmodifiedSince?: Date | string;
}

/** Preconditions of a read: a copy that is still current is answered 304 (`notModified`). */
export interface ReadPreconditions extends WritePreconditions {
  readonly ifModifiedSince?: Date | string;
}

const tags = (value: string | readonly string[] | undefined) =>
  value === undefined ? undefined : typeof value === 'string' ? value : value.join(', ');
const httpDate = (value: Date | string | undefined) =>
  value === undefined ? undefined : typeof value === 'string' ? value : value.toUTCString();

export const ifMatch = (p: WritePreconditions) => tags(p.ifMatch);
export const ifNoneMatch = (p: WritePreconditions) => tags(p.ifNoneMatch);
export const ifUnmodifiedSince = (p: WritePreconditions) => httpDate(p.ifUnmodifiedSince);
export const ifModifiedSince = (p: ReadPreconditions) => httpDate(p.ifModifiedSince);
export const ifRange = (value: Date | string | undefined) => httpDate(value);

/** The precondition headers of a read (`GET`/`HEAD` of a file or of a revision). */
export const readConditionHeaders = (p: ReadPreconditions) => ({
  'If-Match': ifMatch(p),
  'If-None-Match': ifNoneMatch(p),
  'If-Modified-Since': ifModifiedSince(p),
  'If-Unmodified-Since': ifUnmodifiedSince(p),
});
