import { hasNulCharacter, ISSUE, LIST_LIMITS, RevisionSchema, UuidSchema } from '@mdstore/core';
import * as v from 'valibot';
import type { QueryParameter, RequestHeader, ResponseHeader, Schema } from './route.js';
import { FilenameParam, ProjectIdParam } from './schemas.js';

/**
 * What the router checks of every path value (decoded) before a handler sees it: text every store can
 * hold. Postgres refuses U+0000 in text, so without this a `%00` reached it as a 500 (issue 22). The
 * value's own rules stay with the layer that owns them (the core: a UUID, the filename rules, a decimal
 * revision), so nothing is checked twice.
 */
export const PathText = v.pipe(
  v.string(),
  v.check((value) => !hasNulCharacter(value), ISSUE.nulChar.msg),
);

export interface PathParameter {
  /** Its name in `components/parameters`. */
  readonly component: string;
  /** What the document says of it. */
  readonly schema: Schema;
  /** What the router parses the decoded segment with (`mount.ts`); a failure is refused at `["path", name]`. */
  readonly parse: Schema;
  /**
   * The status of a value `parse` refuses: `422` for ids and numbers (the interface: a malformed UUID in a
   * path is 422), `400` for a filename (the filename rules are 400 everywhere, as on upload).
   */
  readonly refusal: 400 | 422;
}

/**
 * The path parameters a route template may use (`:name`), each with its component name in the document.
 * A template with a name missing here fails at start-up (and in the table's test).
 */
export const PATH_PARAMETERS: Readonly<Record<string, PathParameter>> = {
  project_id: { component: 'ProjectId', schema: ProjectIdParam, parse: PathText, refusal: 422 },
  filename: { component: 'Filename', schema: FilenameParam, parse: PathText, refusal: 400 },
  // Extensions §12: an attachment's path, `/` sent as `%2F` as for filenames.
  path: {
    component: 'AttachmentPath',
    schema: v.pipe(
      v.string(),
      v.description('The attachment’s path (`img/a.png`; `/` as `%2F`): any extension but `.md`/`.mdx`.'),
    ),
    parse: PathText,
    refusal: 400,
  },
  revision: {
    component: 'RevisionNumber',
    schema: v.pipe(RevisionSchema, v.description('A revision number (decimal).')),
    parse: PathText,
    refusal: 422,
  },
  trash_id: {
    component: 'TrashId',
    schema: v.pipe(v.string(), v.description('The `trash_id` of a trash item (opaque).')),
    parse: PathText,
    refusal: 422,
  },
  key_id: {
    component: 'KeyId',
    schema: v.pipe(UuidSchema, v.description('The `id` of an API key.')),
    parse: PathText,
    refusal: 422,
  },
  share_id: {
    component: 'ShareId',
    schema: v.pipe(UuidSchema, v.description('The `id` of a share link.')),
    parse: PathText,
    refusal: 422,
  },
  draft_id: {
    component: 'DraftId',
    schema: v.pipe(UuidSchema, v.description('The `id` of a draft.')),
    parse: PathText,
    refusal: 422,
  },
  webhook_id: {
    component: 'WebhookId',
    schema: v.pipe(UuidSchema, v.description('The `id` of a webhook.')),
    parse: PathText,
    refusal: 422,
  },
};

const text = (description: string) => v.pipe(v.string(), v.description(description));
const integer = (description: string) => v.pipe(v.number(), v.integer(), v.description(description));

/** Request headers a route may declare (`headers: [...]`). */
export const REQUEST_HEADERS: Readonly<Record<RequestHeader, Schema>> = {
  'If-Match': text('ETags (or `*`) the current version must match, else 412.'),
  'If-None-Match': text('ETags (or `*`) the current version must not match: 304 on reads, 412 on writes.'),
  'If-Modified-Since': text('HTTP date; 304 when not modified since (ignored with If-None-Match).'),
  'If-Unmodified-Since': text('HTTP date; 412 when modified since (ignored with If-Match).'),
  Range: v.pipe(text('One byte range, e.g. `bytes=0-99`.'), v.examples(['bytes=0-99'])),
  'If-Range': text('An ETag or date: the range applies only while it matches, else the whole content.'),
  'Content-Digest': v.pipe(
    text('`sha-256=:<base64>:` of the body (RFC 9530); a mismatch is 400.'),
    v.examples(['sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:']),
  ),
  'Repr-Digest': text('`sha-256=:<base64>:` of the representation (RFC 9530); a mismatch is 400.'),
};

/** Response headers (`components/headers`), as answers declare them. */
export const RESPONSE_HEADERS: Readonly<Record<ResponseHeader | RateLimitHeader | 'X-Request-Id', Schema>> = {
  'X-RateLimit-Limit': integer('Requests per window of the key.'),
  'X-RateLimit-Remaining': integer('Requests left in the window.'),
  'X-RateLimit-Reset': integer('End of the window, Unix seconds.'),
  'X-Request-Id': text('The request id, also in the server log.'),
  'Retry-After': integer('Seconds to wait.'),
  ETag: text('Strong entity tag.'),
  'Last-Modified': text('updated_date as an HTTP date.'),
  'Cache-Control': text('`private, no-cache` on answers with an ETag.'),
  'Content-Disposition': text(
    '`attachment` with the filename (`filename*` for non-ASCII); `inline` for attachments a browser shows.',
  ),
  'Content-Range': text('`bytes first-last/size`, or `bytes */size` on 416.'),
  'Accept-Ranges': v.pipe(v.literal('bytes'), v.description('Byte ranges are supported.')),
  'Repr-Digest': text('sha-256 of the whole content (RFC 9530).'),
  'X-File-Size': integer('The whole size in bytes.'),
  'X-Created-Date': v.pipe(v.string(), v.isoTimestamp(), v.description('created_date')),
  'X-Updated-Date': v.pipe(v.string(), v.isoTimestamp(), v.description('updated_date')),
  'X-Line-Range': text('`first-last/total` lines of the part returned.'),
  'X-Content-Type-Options': v.pipe(
    v.literal('nosniff'),
    v.description('The browser must not guess the type.'),
  ),
  'Content-Security-Policy': text('On types a browser could run script from (SVG, HTML, XML): a sandbox.'),
  'WWW-Authenticate': text('`Bearer`'),
};

export type RateLimitHeader = 'X-RateLimit-Limit' | 'X-RateLimit-Remaining' | 'X-RateLimit-Reset';
export const RATE_LIMIT_HEADERS: readonly RateLimitHeader[] = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

const LIMIT = {
  schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIST_LIMITS.maxLimit)),
  description: `Page size, 1-${LIST_LIMITS.maxLimit} (default ${LIST_LIMITS.defaultLimit}); with it the answer is one page.`,
};
const CURSOR = { schema: v.string(), description: '`next_cursor` of the previous page.' };

/** `limit` and `cursor` of List Projects (extensions §3), read by the core's `parseListParams`. */
export const PAGING_QUERY: Readonly<Record<string, QueryParameter>> = { limit: LIMIT, cursor: CURSOR };

/** The query of List Files (extensions §3), read by the core's `parseFileListParams`. */
export const FILE_LIST_QUERY: Readonly<Record<string, QueryParameter>> = {
  limit: LIMIT,
  cursor: CURSOR,
  sort: {
    schema: v.picklist(['filename', 'created_date', 'updated_date', 'size_bytes']),
    description: 'Sort key (default filename; with `delimiter` only filename).',
  },
  order: { schema: v.picklist(['asc', 'desc']), description: 'Sort order (default asc).' },
  prefix: {
    schema: v.string(),
    description: `Only filenames starting with this text (at most ${LIST_LIMITS.maxPrefixBytes} bytes of UTF-8).`,
  },
  delimiter: {
    schema: v.literal('/'),
    description: 'Group the names below the next `/` into `folders` (one level, like S3).',
  },
};

/** Extensions §13: `?merge_base=` of `PUT …/content` and `PATCH` of a file (core: use-cases/files/merge-base.ts). */
export const MERGE_BASE_QUERY: Readonly<Record<string, QueryParameter>> = {
  merge_base: {
    schema: v.string(),
    description:
      "Instead of `If-Match`: the ETag of the revision the change was made from (quotes optional). The change is merged three ways into the current content (text by lines, front matter key by key); answers say `merged: true` when both sides had changed. Overlapping changes: 409 with `conflicts`, nothing written. An ETag of another file, of a pruned revision or newer than the file: 412 with the current `ETag`. With `If-Match` too, or not an ETag: 422. Past the merge's bound (MERGE_LIMITS): 413.",
  },
};
