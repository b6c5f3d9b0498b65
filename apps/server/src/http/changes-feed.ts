import { type ChangeNotifier, HELD_LIMITS, HeldRequestsLimitError, type Principal } from '@mdstore/core';
import type { HeldKeyChecks } from './held-keys.js';

/** What held change reads need from the process (extensions §7). */
export interface ChangeFeedDeps {
  /** Tells of commits with events, on this instance or (Postgres) any other. */
  readonly notifier: ChangeNotifier;
  /** Open streams and held polls per key on this instance (`MDSTORE_CHANGES_MAX_STREAMS_PER_KEY`). */
  readonly maxStreamsPerKey: number;
  /** … per account, all its keys (`MDSTORE_CHANGES_MAX_STREAMS_PER_ACCOUNT`; default `HELD_LIMITS`). */
  readonly maxStreamsPerAccount?: number;
  /** … of every account on this instance (`MDSTORE_CHANGES_MAX_STREAMS`; default `HELD_LIMITS`). */
  readonly maxStreams?: number;
  /** The shared key checks of held requests (default: one per route, reading every `HELD_LIMITS.keyCheckMs`). */
  readonly keyChecks?: HeldKeyChecks;
  /** Aborted when the server stops: held polls answer at once, streams end. */
  readonly closing?: AbortSignal;
  /** Told when a stream or held poll opens (+1) and ends (−1). */
  readonly onOpenStreams?: (delta: number) => void;
  /** A stream's longest silence before a comment line; default `CHANGES_LIMITS.heartbeatMs` (tests shorten it). */
  readonly heartbeatMs?: number;
}

/**
 * Waits for notices of one account: `next(ms, signal)` resolves at the first notice since the previous
 * call (at once if one came in between), after `ms`, or when `signal` aborts, whichever is first. It
 * subscribes before the caller's first read, so no commit falls between a read and the wait after it.
 * Nothing runs while it waits: a timer and a listener.
 */
export class AccountWaiter {
  private noticed = false;
  private wake: (() => void) | undefined;
  private readonly unsubscribe: () => void;

  constructor(notifier: ChangeNotifier | undefined, accountId: string) {
    this.unsubscribe =
      notifier?.subscribe((account) => {
        if (account !== accountId) return;
        this.noticed = true;
        this.wake?.();
      }) ?? (() => {});
  }

  next(ms: number, signal: AbortSignal): Promise<void> {
    if (this.noticed || signal.aborted) {
      this.noticed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        this.noticed = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  close(): void {
    this.unsubscribe();
    this.wake?.();
  }
}

/**
 * Counts the open streams and held polls on this instance, per key, per account and in all, and
 * refuses one past a bound (`HELD_LIMITS`): the key's or the account's is `429`, the instance's `503`,
 * both with `Retry-After`.
 */
export class StreamSlots {
  private readonly perKey = new Map<string, number>();
  private readonly perAccount = new Map<string, number>();
  private total = 0;

  constructor(private readonly deps: ChangeFeedDeps | undefined) {}

  /** Takes a slot for the principal's key and account, or throws `HeldRequestsLimitError`. */
  take(principal: Principal): void {
    const { keyId, accountId } = principal;
    if ((this.perKey.get(keyId) ?? 0) >= (this.deps?.maxStreamsPerKey ?? HELD_LIMITS.defaultMaxPerKey))
      throw new HeldRequestsLimitError('key');
    const accountMax = this.deps?.maxStreamsPerAccount ?? HELD_LIMITS.defaultMaxPerAccount;
    if ((this.perAccount.get(accountId) ?? 0) >= accountMax) throw new HeldRequestsLimitError('account');
    if (this.total >= (this.deps?.maxStreams ?? HELD_LIMITS.defaultMaxPerInstance))
      throw new HeldRequestsLimitError('instance');
    bump(this.perKey, keyId, 1);
    bump(this.perAccount, accountId, 1);
    this.total++;
    this.deps?.onOpenStreams?.(1);
  }

  release(principal: Principal): void {
    bump(this.perKey, principal.keyId, -1);
    bump(this.perAccount, principal.accountId, -1);
    this.total--;
    this.deps?.onOpenStreams?.(-1);
  }
}

function bump(counts: Map<string, number>, id: string, delta: number): void {
  const count = (counts.get(id) ?? 0) + delta;
  if (count <= 0) counts.delete(id);
  else counts.set(id, count);
}
