import type { components } from './generated/openapi.js';

/** One validation problem, as the server reports it: where (`loc`), what (`msg`), which rule (`type`). */
export interface ValidationIssue {
  readonly loc: ReadonlyArray<string | number>;
  readonly msg: string;
  readonly type: string;
}

export interface MdStoreApiErrorInit {
  readonly status: number;
  readonly detail: string | readonly ValidationIssue[];
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  /** The answer's body as JSON (undefined when it was not JSON). */
  readonly body?: unknown;
}

/** The overlapping hunks of a refused publish or `mergeBase` write (a 409's `conflicts`). */
export type MergeConflict = components['schemas']['MergeConflicts']['conflicts'][number];

/**
 * An answer of the server that is not a success: `status`, the server's `detail` (a message, or the
 * validation issues of a 400/422), and the `requestId` the server logged it under (quote it in a report).
 * Callers branch on `status` (and `issues[].type`), never on the message.
 */
export class MdStoreApiError extends Error {
  override readonly name = 'MdStoreApiError';
  readonly status: number;
  readonly detail: string | readonly ValidationIssue[];
  readonly requestId: string | undefined;
  /** From `Retry-After` on a 429 or 503, in seconds. */
  readonly retryAfterSeconds: number | undefined;
  /** The current `ETag` a 412 (precondition failed) carries. */
  readonly etag: string | undefined;
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  /**
   * The error answer's whole JSON body, for the members a status adds beside `detail` (a 409's
   * `conflicts` or `referenced_by`); undefined when the body was not JSON.
   */
  readonly body: unknown;

  constructor(init: MdStoreApiErrorInit) {
    super(`${init.method} ${init.url}: ${init.status} ${describeDetail(init.detail)}`);
    this.status = init.status;
    this.detail = init.detail;
    this.method = init.method;
    this.url = init.url;
    this.headers = init.headers;
    this.body = init.body;
    this.requestId = init.headers.get('x-request-id') ?? undefined;
    this.etag = init.headers.get('etag') ?? undefined;
    this.retryAfterSeconds = parseRetryAfterSeconds(init.headers.get('retry-after'), Date.now());
  }

  /** The validation issues (empty when `detail` is a message). */
  get issues(): readonly ValidationIssue[] {
    return typeof this.detail === 'string' ? [] : this.detail;
  }

  /** The conflicts of a refused publish or `mergeBase` write (a 409 with `conflicts`), else undefined. */
  get conflicts(): readonly MergeConflict[] | undefined {
    const conflicts = (this.body as { conflicts?: unknown } | undefined)?.conflicts;
    return this.status === 409 && Array.isArray(conflicts) ? (conflicts as MergeConflict[]) : undefined;
  }
}

/** Thrown when content does not match the digest the server announced for it. */
export class MdStoreIntegrityError extends Error {
  override readonly name = 'MdStoreIntegrityError';
  constructor(
    readonly expectedSha256: string,
    readonly actualSha256: string,
  ) {
    super(`content SHA-256 ${actualSha256} does not match the announced ${expectedSha256}`);
  }
}

export function describeDetail(detail: string | readonly ValidationIssue[]): string {
  if (typeof detail === 'string') return detail;
  return detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
}

const isIssue = (value: unknown): value is ValidationIssue =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as ValidationIssue).loc) &&
  typeof (value as ValidationIssue).msg === 'string' &&
  typeof (value as ValidationIssue).type === 'string';

/**
 * The `detail` of an error body, and the body as JSON; a body that is not the server's error shape
 * becomes a short message.
 */
export async function readErrorBody(
  response: Response,
): Promise<{ detail: string | ValidationIssue[]; body: unknown }> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: a proxy or a server that is not mdstore answered.
  }
  const detail = (body as { detail?: unknown } | null | undefined)?.detail;
  if (typeof detail === 'string') return { detail, body };
  if (Array.isArray(detail) && detail.every(isIssue)) return { detail, body };
  const snippet = text.trim().slice(0, 200);
  return { detail: snippet === '' ? response.statusText || `HTTP ${response.status}` : snippet, body };
}

/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date, as whole seconds from `nowMs`
 * (never negative); undefined when absent or unreadable.
 */
export function parseRetryAfterSeconds(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}
