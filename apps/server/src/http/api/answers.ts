import type { Answer, ResponseHeader, Schema } from './route.js';
import { AnyError, ErrorMessage, ValidationError } from './schemas.js';

/** Building blocks for the `answers` of a route description. */

export const FILE_VALIDATORS: readonly ResponseHeader[] = ['ETag', 'Last-Modified', 'Cache-Control'];
export const PROJECT_VALIDATORS: readonly ResponseHeader[] = ['ETag', 'Cache-Control'];
/** The headers of a download, whole or partial. */
export const DOWNLOAD_HEADERS: readonly ResponseHeader[] = [
  ...FILE_VALIDATORS,
  'Content-Disposition',
  'X-File-Size',
  'X-Created-Date',
  'X-Updated-Date',
];

export const json = (description: string, schema: Schema, headers?: readonly ResponseHeader[]): Answer => ({
  description,
  body: { contentType: 'application/json', schema },
  ...(headers && { headers }),
});

export const markdown = (description: string, headers: readonly ResponseHeader[]): Answer => ({
  description,
  body: { contentType: 'text/markdown' },
  headers,
});

export const empty = (description: string, headers?: readonly ResponseHeader[]): Answer => ({
  description,
  ...(headers && { headers }),
});

const ERROR_ANSWERS = {
  400: json('Malformed request', AnyError),
  401: json('Missing or invalid API key', ErrorMessage, ['WWW-Authenticate']),
  403: json(
    'The API key’s role does not allow this operation, another account’s project, or the default project on delete',
    ErrorMessage,
  ),
  404: json('No such project or file', ErrorMessage),
  409: json('Conflict: the name is taken', ErrorMessage),
  410: json('Gone: retention removed changes after `since`', ErrorMessage),
  412: json('A precondition (If-Match, If-Unmodified-Since…) failed', ErrorMessage),
  413: json('Content too large', ErrorMessage),
  415: json('Unsupported media type or file extension', ErrorMessage),
  416: json('Range not satisfiable', ErrorMessage, ['Content-Range']),
  422: json('Invalid input', ValidationError),
  428: json('The project requires If-Match for this write', ErrorMessage),
  429: json('Rate limit exceeded', ErrorMessage, ['Retry-After']),
  500: json('Internal error', ErrorMessage),
  503: json('Unavailable: starting, or a store does not answer', ErrorMessage, ['Retry-After']),
} as const satisfies Record<number, Answer>;

export type ErrorStatus = keyof typeof ERROR_ANSWERS;

/** The interface's error answers for these statuses (`{"detail": …}`; 422 has the list of issues). */
export function errors(...statuses: ErrorStatus[]): Record<number, Answer> {
  return Object.fromEntries(statuses.map((status) => [status, ERROR_ANSWERS[status]]));
}

/** Added to every `/api` operation by the generator: authentication, the rate limit, failures. */
export const API_ERRORS = errors(401, 429, 500, 503);

/**
 * Added to every operation with a path parameter: a path value that cannot be read (not percent-encoded
 * UTF-8, or holding U+0000, which no store can hold) is 400 on every route (`mount.ts`).
 */
export const PATH_ERRORS = errors(400);
