import { ContentWorkBusyError } from '@mdstore/core';

export interface AdmissionLimits {
  /** Tasks running at once (the pool's threads). */
  readonly threads: number;
  /** Tasks waiting for a running place, all accounts. */
  readonly queue: number;
  /** Tasks of one account running and waiting (`CONTENT_WORK_LIMITS.defaultTasksPerAccount`). */
  readonly perAccount: number;
}

/**
 * Who may have a place in the content work pool: at most `threads` tasks run, `queue` wait, first come
 * first served, and one account holds at most `perAccount` of those places; past any of them a task is
 * refused at once (`CONTENT_WORK_BUSY`: 503 with `Retry-After`), never queued without bound. A task of
 * no account (maintenance) counts only against the pool's bounds. A waiting task leaves when its
 * request goes away.
 */
export class PoolAdmission {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly perAccount = new Map<string, number>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** A place for a task of `account`: at once, or after the tasks waiting before it; refused past a bound. */
  async enter(account: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    const held = account === undefined ? 0 : (this.perAccount.get(account) ?? 0);
    if (held >= this.limits.perAccount) throw new ContentWorkBusyError();
    if (this.running < this.limits.threads) {
      this.running++;
      this.count(account, 1);
      return;
    }
    if (this.waiting.length >= this.limits.queue) throw new ContentWorkBusyError();
    this.count(account, 1);
    try {
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          this.waiting.splice(this.waiting.indexOf(turn), 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', leave, { once: true });
        this.waiting.push(turn);
      });
    } catch (error) {
      this.count(account, -1);
      throw error;
    }
  }

  /** The task of `account` is done: its running place goes to the next waiting task. */
  leave(account: string | undefined): void {
    this.count(account, -1);
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /** Places held by `account` now, running and waiting (tests, metrics). */
  heldBy(account: string): number {
    return this.perAccount.get(account) ?? 0;
  }

  private count(account: string | undefined, delta: number): void {
    if (account === undefined) return;
    const count = (this.perAccount.get(account) ?? 0) + delta;
    if (count <= 0) this.perAccount.delete(account);
    else this.perAccount.set(account, count);
  }
}
