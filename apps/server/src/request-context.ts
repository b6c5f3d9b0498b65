import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while serving one request carries. */
export interface RequestContext {
  readonly requestId: string;
}

/**
 * The request being served, for code that runs on its behalf without being handed it: the logger adds
 * `request_id` to every line written while a request is served (the core's warnings included), so call
 * sites need not pass it.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/** `{ request_id }` inside a request, `{}` outside. */
export function requestLogFields(): { request_id?: string } {
  const context = requestContext.getStore();
  return context ? { request_id: context.requestId } : {};
}
