import type { Role } from '@mdstore/core';
import type * as v from 'valibot';
import type { Handler, RouteDeps } from '../routes/context.js';

/**
 * What a route is, for the router and for the OpenAPI document alike. A route exists only as
 * `defineRoute(description, handler)`: the router mounts nothing else (`mount.ts`), and the document is
 * generated from the same list (`openapi.ts`), so the two cannot disagree.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Schema = v.GenericSchema;
export type Tag =
  | 'Projects'
  | 'Files'
  | 'Attachments'
  | 'Editing'
  | 'History'
  | 'Search'
  | 'Trash'
  | 'Changes'
  | 'Changesets'
  | 'Memory'
  | 'Drafts'
  | 'Access'
  | 'Access'
  | 'Webhooks'
  | 'Links'
  | 'Trash'
  | 'Access'
  | 'Operations';

/** Response headers the document knows (`components/headers`, see `headers.ts`). */
export type ResponseHeader =
  | 'ETag'
  | 'Last-Modified'
  | 'Cache-Control'
  | 'Content-Disposition'
  | 'Content-Range'
  | 'Accept-Ranges'
  | 'Repr-Digest'
  | 'X-File-Size'
  | 'X-Created-Date'
  | 'X-Updated-Date'
  | 'X-Line-Range'
  | 'X-Content-Type-Options'
  | 'Content-Security-Policy'
  | 'Retry-After'
  | 'WWW-Authenticate';

/** Request headers the document knows (see `headers.ts`). */
export type RequestHeader =
  | 'If-Match'
  | 'If-None-Match'
  | 'If-Modified-Since'
  | 'If-Unmodified-Since'
  | 'Range'
  | 'If-Range'
  | 'Content-Digest'
  | 'Repr-Digest';

export interface AnswerBody {
  readonly contentType:
    | 'application/json'
    | 'text/markdown'
    | 'text/x-diff'
    // Extensions §11: a file rendered (`?format=html`).
    | 'text/html'
    // Extensions §10: the archives of an export.
    | 'application/zip'
    | 'application/gzip'
    // Extensions §7: the change feed as Server-Sent Events.
    | 'text/event-stream'
    // Extensions §12: an attachment, in the type it was stored with.
    | '*/*';
  /** A valibot schema; for text, omitted (the body is the text). */
  readonly schema?: Schema;
}

export interface Answer {
  readonly description: string;
  readonly body?: AnswerBody;
  /** Other media types the same answer may have instead, as a request chooses (an export's format). */
  readonly otherBodies?: readonly AnswerBody[];
  /** Headers the answer always carries (besides `X-Request-Id`, and the rate-limit headers under `/api`). */
  readonly headers?: readonly ResponseHeader[];
  /** Headers some of these answers carry (e.g. `Repr-Digest` on a whole download, not on `?lines=`). */
  readonly optionalHeaders?: readonly ResponseHeader[];
}

export interface QueryParameter {
  readonly schema: Schema;
  readonly description: string;
  readonly required?: boolean;
  /** The parameter may be given several times (`?section=a&section=b`). */
  readonly repeated?: boolean;
}

export type RequestMediaType =
  | 'application/json'
  | 'multipart/form-data'
  | 'text/markdown'
  // Extensions §10: the archives an import reads.
  | 'application/zip'
  | 'application/gzip'
  // Extensions §12: an attachment's bytes, in any type.
  | '*/*';

export interface RequestBody {
  readonly contentType: RequestMediaType;
  /** Other media types the body may have instead (an import's archive formats). */
  readonly otherContentTypes?: readonly RequestMediaType[];
  readonly schema?: Schema;
  readonly description?: string;
}

export interface RouteDescription {
  readonly method: Method;
  /** Express template; each `:name` must be one of `PATH_PARAMETERS` (`parameters.ts`). */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly Tag[];
  /** `apiKey`: under `/api`, behind authentication and the rate limit (`401`, `429` added for you). */
  readonly auth: 'apiKey' | 'none';
  /**
   * Extensions §8: the least role a key needs (`read` < `write` < `admin`), checked for every `apiKey`
   * route in one place before the body is read (`authorize.ts`; `403` otherwise). Required: the mount
   * refuses an `apiKey` route without a role, and a route without a key with one (`null`).
   */
  readonly role: Role | null;
  /**
   * Extensions §14: `refused` when a key confined to folders gets `403` whatever it names (the operation
   * spans the project, or does not keep to folders yet); the core refuses it (`notForFolderKeys`), MCP
   * does not list the tool of such an operation to such a key. Absent: the operation keeps to the
   * key's folders.
   */
  readonly folderKeys?: 'refused';
  readonly query?: Readonly<Record<string, QueryParameter>>;
  readonly headers?: readonly RequestHeader[];
  readonly body?: RequestBody;
  readonly answers: Readonly<Record<number, Answer>>;
  /** A `GET` that also answers `HEAD` (Express does for every `GET`): documented as its own operation. */
  readonly head?: { readonly operationId: string; readonly summary: string };
}

export interface DefinedRoute {
  readonly description: RouteDescription;
  readonly handler: (deps: RouteDeps) => Handler;
}

/** The only way to make a route: its description and its handler, together. */
export function defineRoute(
  description: RouteDescription,
  handler: (deps: RouteDeps) => Handler,
): DefinedRoute {
  return Object.freeze({ description, handler });
}
