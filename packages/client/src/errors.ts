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
}

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

  constructor(init: MdStoreApiErrorInit) {
    super(`${init.method} ${init.url}: ${init.status} ${describeDetail(init.detail)}`);
    this.status = init.status;
    this.detail = init.detail;
    this.method = init.method;
    this.url = init.url;
    this.headers = init.headers;
    this.requestId = init.headers.get('x-request-id') ?? undefined;
    this.etag = init.headers.get('etag') ?? undefined;
    this.retryAfterSeconds = parseRetryAfterSeconds(init.headers.get('retry-after'), Date.now());
  }

  /** The validation issues (empty when `detail` is a message). */
  get issues(): readonly ValidationIssue[] {
    return typeof this.detail === 'string' ? [] : this.detail;
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

/** The `detail` of an error body; a body that is not the server's error shape becomes a short message. */
export async function readErrorDetail(response: Response): Promise<string | ValidationIssue[]> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { detail?: unknown };
    if (typeof parsed.detail === 'string') return parsed.detail;
    if (Array.isArray(parsed.detail) && parsed.detail.every(isIssue)) return parsed.detail;
  } catch {
    // Not JSON: a proxy or a server that is not mdstore answered.
  }
  const snippet = text.trim().slice(0, 200);
  return snippet === '' ? response.statusText || `HTTP ${response.status}` : snippet;
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
