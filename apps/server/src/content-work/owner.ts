import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The account a request works for, as the content work pool sees it (its per-account bound): set once
 * the request is authenticated (`/api`, `/mcp`), read by the pool when a task asks for a place. Work
 * of no request (start-up backfills, maintenance) has none and counts only against the pool's own
 * bounds.
 */
const owner = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it starts) on behalf of `accountId`. */
export const runForAccount = <T>(accountId: string, work: () => T): T => owner.run(accountId, work);

/** From here on in the current async function (and what it starts), work is on behalf of `accountId`. */
export const continueForAccount = (accountId: string): void => owner.enterWith(accountId);

/** The account the current work is for, if any. */
export const currentAccount = (): string | undefined => owner.getStore();
