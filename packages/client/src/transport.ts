import { MdStoreApiError, readErrorBody } from './errors.js';
import { type RetryOptions, type RetryPolicy, retryDelayMs, retryPolicy, sleep } from './retry.js';
import type { CallParts, HttpMethod, JsonBody, JsonSuccess, Operation, PathsWith } from './typed.js';

export interface ClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:8080` (paths such as `/api/projects` are added to it). */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
  readonly fetch?: typeof fetch;
  /** Retries of 429 and 503 answers; `false` turns them off. On by default. */
  readonly retry?: RetryOptions | false;
  /** Headers sent with every request (e.g. `User-Agent` in Node). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Options every call accepts. */
export interface RequestOptions {
  readonly signal?: AbortSignal;
  /** Overrides the client's retry options for this call; `false` turns retries off. */
  readonly retry?: RetryOptions | false;
  /** Extra headers for this call (e.g. `X-Request-Id`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A request body the transport can send; streams are sent as they come and cannot be replayed. */
export type WireBody = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>;

export interface SendParts {
  readonly path?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly body?: WireBody;
  readonly contentType?: string;
  /** Statuses outside 2xx that are answers rather than errors (304). */
  readonly expect?: readonly number[];
}

/**
 * The one place requests are made: URL building (every path parameter percent-encoded as one segment,
 * so a filename's `/` travels as `%2F`), the key, retries of 429/503 that honour `Retry-After`, and the
 * typed error for every other non-success answer.
 */
export class Transport {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly policy: RetryPolicy;

  constructor(private readonly options: ClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(`baseUrl must be an http(s) URL, not ${options.baseUrl}`);
    }
    this.baseUrl = base.href.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.policy = retryPolicy(options.retry);
  }

  url(template: string, path: Readonly<Record<string, string>> = {}, query?: SendParts['query']): string {
    const filled = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = path[name];
      if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${filled}${qs ? `?${qs}` : ''}`;
  }

  async send(
    method: string,
    template: string,
    parts: SendParts,
    options: RequestOptions = {},
  ): Promise<Response> {
    const url = this.url(template, parts.path, parts.query);
    const headers = new Headers(this.options.headers);
    if (this.options.apiKey !== undefined) headers.set('Authorization', `Bearer ${this.options.apiKey}`);
    for (const [name, value] of Object.entries(parts.headers ?? {}))
      if (value !== undefined) headers.set(name, value);
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    if (parts.contentType !== undefined) headers.set('Content-Type', parts.contentType);
    const streamed = parts.body instanceof ReadableStream;
    const policy = options.retry === undefined ? this.policy : retryPolicy(options.retry);
    const init: RequestInit & { duplex?: 'half' } = {
      method: method.toUpperCase(),
      headers,
      ...(parts.body !== undefined && { body: parts.body as NonNullable<RequestInit['body']> }),
      // Node's fetch sends a stream only when told it is half-duplex; browsers ignore the member.
      ...(streamed && { duplex: 'half' }),
      ...(options.signal && { signal: options.signal }),
      redirect: 'follow',
    };
    for (let attempt = 1; ; attempt++) {
      const response = await this.fetchImpl(url, init);
      if (response.ok || parts.expect?.includes(response.status)) return response;
      // A stream is spent once sent: such a request is never sent twice.
      const delay = streamed ? undefined : retryDelayMs(policy, response, attempt);
      if (delay === undefined) {
        const { detail, body } = await readErrorBody(response);
        throw new MdStoreApiError({
          status: response.status,
          detail,
          body,
          method: init.method ?? 'GET',
          url,
          headers: response.headers,
        });
      }
      await response.body?.cancel().catch(() => {});
      policy.onRetry?.({
        method: init.method ?? 'GET',
        url,
        status: response.status,
        attempt,
        delayMs: delay,
      });
      await sleep(delay, options.signal);
    }
  }
}

/**
 * The operations of the OpenAPI document, typed by the generated `paths`: a call names the method and the
 * path template, and TypeScript checks its path parameters, query, headers and JSON body against the
 * document and types the JSON answer.
 */
export class TypedApi {
  constructor(readonly transport: Transport) {}

  /** Sends one operation and returns the raw answer (downloads, bodies that are not JSON). */
  request<M extends HttpMethod, P extends PathsWith<M>>(
    method: M,
    path: P,
    parts: CallParts<Operation<P, M>> & Omit<SendParts, 'path' | 'query' | 'headers'>,
    options?: RequestOptions,
  ): Promise<Response> {
    return this.transport.send(method, path, parts as SendParts, options);
  }

  /** Sends one operation with an optional JSON body and parses its JSON answer. */
  async json<M extends HttpMethod, P extends PathsWith<M>>(
    method: M,
    path: P,
    parts: CallParts<Operation<P, M>> & { readonly json?: JsonBody<Operation<P, M>> },
    options?: RequestOptions,
  ): Promise<{ data: JsonSuccess<Operation<P, M>>; response: Response }> {
    const { json, ...rest } = parts;
    const response = await this.transport.send(
      method,
      path,
      {
        ...(rest as SendParts),
        ...(json !== undefined && { body: JSON.stringify(json), contentType: 'application/json' }),
      },
      options,
    );
    return { data: (await response.json()) as JsonSuccess<Operation<P, M>>, response };
  }
}
