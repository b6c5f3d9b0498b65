import type { HeldKeyState, Principal } from '@mdstore/core';

/** Reads a key's state from the store (`store.changes.keyState`). */
export type ReadKeyState = (principal: Principal) => Promise<HeldKeyState>;

interface KeyEntry {
  readonly principal: Principal;
  /** The held requests of the key, each told once when the key is found revoked or expired. */
  readonly watchers: Set<(state: HeldKeyState) => void>;
  /** The newest read: when it started, and what it found (the pending one until it ends). */
  last?: { readonly startedAt: number; readonly state: Promise<HeldKeyState> };
}

/**
 * The key checks of held requests (long polls and SSE streams), shared per key on this instance:
 *
 * - `tick()` (every `intervalMs` while any request is held) reads each watched key once, whatever the
 *   number of its requests, and tells every request of a key found revoked or expired;
 * - `confirm(principal, since)`, called before anything is delivered, answers from a read that started
 *   at or after `since` (the moment the request began reading the events it is about to deliver), and
 *   starts one only when there is none: a key revoked before an event committed is seen revoked before
 *   that event is delivered, and the requests of one key woken by the same commit share that read.
 *
 * So a key costs at most one store read per interval while its requests wait, plus one per delivery
 * wave (a commit of its account), never one per request.
 */
export class HeldKeyChecks {
  private readonly keys = new Map<string, KeyEntry>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly read: ReadKeyState,
    private readonly o: { readonly intervalMs: number },
  ) {}

  /** The clock of `confirm`'s `since`: monotonic, so a read never looks newer than it is. */
  now(): number {
    return performance.now();
  }

  /** Watches the key of a held request until the returned function is called. */
  watch(principal: Principal, onEnd: (state: HeldKeyState) => void): () => void {
    let entry = this.keys.get(principal.keyId);
    if (!entry) {
      entry = { principal, watchers: new Set() };
      this.keys.set(principal.keyId, entry);
    }
    entry.watchers.add(onEnd);
    this.timer ??= this.startTimer();
    const watched = entry;
    return () => {
      watched.watchers.delete(onEnd);
      if (watched.watchers.size === 0 && this.keys.get(principal.keyId) === watched) {
        this.keys.delete(principal.keyId);
      }
      if (this.keys.size === 0) this.stopTimer();
    };
  }

  /** The key's state by a read that started at or after `since` (shared with the key's other requests). */
  confirm(principal: Principal, since: number): Promise<HeldKeyState> {
    const entry = this.keys.get(principal.keyId);
    if (entry?.last && entry.last.startedAt >= since) return entry.last.state;
    return this.readNow(entry ?? { principal, watchers: new Set() });
  }

  /** One read per watched key (the interval's check); ends the requests of the keys no longer valid. */
  async tick(): Promise<void> {
    await Promise.all(
      [...this.keys.values()].map(async (entry) => {
        // A failed read (the store unavailable) is not a revocation: the next interval's read decides.
        const state = await this.readNow(entry).catch(() => 'valid' as const);
        if (state !== 'valid') for (const onEnd of [...entry.watchers]) onEnd(state);
      }),
    );
  }

  /** Keys watched now (tests, metrics). */
  get watchedKeys(): number {
    return this.keys.size;
  }

  private readNow(entry: KeyEntry): Promise<HeldKeyState> {
    const last = { startedAt: this.now(), state: this.read(entry.principal) };
    entry.last = last;
    // A failed read is not kept: the next confirm or tick reads again.
    last.state.catch(() => {
      if (entry.last === last) entry.last = undefined;
    });
    return last.state;
  }

  private startTimer(): ReturnType<typeof setInterval> {
    const timer = setInterval(() => void this.tick(), this.o.intervalMs);
    timer.unref();
    return timer;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
