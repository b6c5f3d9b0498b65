import { MdStoreApiError } from '@mdstore/client';

/** One line for a person: the server's detail (and its request id), or the error's message. */
export function describeError(error: unknown): string {
  if (error instanceof MdStoreApiError) {
    const detail =
      typeof error.detail === 'string'
        ? error.detail
        : error.detail.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ');
    return `${error.status} ${detail}${error.requestId ? ` (request ${error.requestId})` : ''}`;
  }
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
