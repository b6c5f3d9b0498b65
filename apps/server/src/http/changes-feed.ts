import { CHANGES_LIMITS, type ChangeNotifier } from '@mdstore/core';

/** What held change reads need from the process (extensions §7). */
export interface ChangeFeedDeps {
  /** Tells of commits with events, on this instance or (Postgres) any other. */
  readonly notifier: ChangeNotifier;
  /** Open streams and held polls per key on this instance (`MDSTORE_CHANGES_MAX_STREAMS_PER_KEY`). */
  readonly maxStreamsPerKey: number;
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

/** Counts the open streams and held polls of each key on this instance. */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly deps: ChangeFeedDeps | undefined) {}

  /** Takes a slot for the key, or returns false when it holds its limit already. */
  take(keyId: string): boolean {
    const max = this.deps?.maxStreamsPerKey ?? CHANGES_LIMITS.defaultMaxStreamsPerKey;
    const count = this.open.get(keyId) ?? 0;
    if (count >= max) return false;
    this.open.set(keyId, count + 1);
    this.deps?.onOpenStreams?.(1);
    return true;
  }

  release(keyId: string): void {
    const count = (this.open.get(keyId) ?? 1) - 1;
    if (count <= 0) this.open.delete(keyId);
    else this.open.set(keyId, count);
    this.deps?.onOpenStreams?.(-1);
  }
}
