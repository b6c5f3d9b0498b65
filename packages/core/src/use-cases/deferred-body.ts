const DEFERRED: unique symbol = Symbol('mdstore.deferredBody');

/**
 * A request body the core reads only once every check that does not need it has passed, in the order
 * extensions §2 gives (authentication, rate limit, path, project, file, what the headers alone decide,
 * preconditions, and only then the body). The HTTP edge makes them: `read` is where a client waiting on
 * `Expect: 100-continue` is told to send the body, so a refused request's body is never read.
 *
 * Use cases accept either a body in hand (embedding, tests) or a deferred one; the brand tells them
 * apart (no parsed JSON value can carry a symbol key).
 */
export interface DeferredBody<T> {
  readonly [DEFERRED]: true;
  /** Refusals decided by the request's headers alone (media type 415, declared length 413). */
  check(): void;
  /** Starts reading. Called at most once, after `check`. */
  read(): T;
}

export function deferredBody<T>(parts: { check: () => void; read: () => T }): DeferredBody<T> {
  return { [DEFERRED]: true, check: parts.check, read: parts.read };
}

export const isDeferredBody = (value: unknown): value is DeferredBody<unknown> =>
  typeof value === 'object' && value !== null && (value as { [DEFERRED]?: unknown })[DEFERRED] === true;

/**
 * A body as a use case takes it: the typed value (embedding: a typo does not compile), or a deferred one
 * from the wire, whose content the core validates.
 */
export type BodyOf<T> = T | DeferredBody<unknown>;

/**
 * A value an edge received and has not checked (parsed JSON, a tool's arguments), handed to a use case
 * that validates it: a deferred body with nothing to check first, read at once.
 */
export const wireBody = (value: unknown): DeferredBody<unknown> =>
  deferredBody({ check: () => {}, read: () => value });

/** The body as a deferred one, whichever way it came. */
export function deferred<T>(body: T | DeferredBody<T>): DeferredBody<T> {
  if (isDeferredBody(body)) return body as DeferredBody<T>;
  return deferredBody({ check: () => {}, read: () => body as T });
}
