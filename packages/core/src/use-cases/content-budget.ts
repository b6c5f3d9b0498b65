import { ContentWorkBusyError } from '../errors.js';

/**
 * The byte budget of content work in flight, shared by every request of the process
 * (docs/reliability.md, "Memory of content work"). Work on a whole text (an edit, a part, an outline, a
 * render, a diff) holds the text's bytes, the text, and what it makes from it (an edit's result, its
 * diff): up to a few times the file's size, for as long as the request works. Bounding each request is
 * not enough (four edits of a 10 MiB file at once are each within their bounds); so each request
 * reserves what it is about to hold here first, and waits while the process's content work in flight
 * would pass the budget.
 *
 * The rules:
 * - a request holds one `ContentHold`, opened when it starts and released when it ends; it reserves
 *   before each step that makes a large thing (reading a text: its size × `TEXT_BYTES_PER_BYTE`; an
 *   edit's result: the result, its UTF-8 and its diff);
 * - a reservation that fits is taken at once; so is one that leaves the hold within `SMALL_HOLD_BYTES`
 *   (small files never wait, and never wait behind large ones);
 * - the oldest hold in flight may always grow, even past the budget (one request alone may work on the
 *   largest file allowed): so a hold never waits for ever on others that wait on it — whichever hold
 *   is oldest goes on, finishes, and makes room;
 * - any other reservation waits, first come first served, at most `waitMs` (the content work pool's
 *   deadline in the server); past it the request is refused with `CONTENT_WORK_BUSY` (503,
 *   `Retry-After: 1`) and nothing is changed. A request that goes away stops waiting.
 */
export class ContentBudget {
  private inUse = 0;
  /** Holds with something reserved, oldest first (a Set keeps insertion order). */
  private readonly active = new Set<ContentHold>();
  private readonly waiting: Waiter[] = [];

  constructor(
    /** Bytes of content work in flight the process allows (`MdStoreSettings.contentBudgetBytes`). */
    readonly capacity: number,
    /** How long a reservation may wait for room (`MdStoreSettings.contentBudgetWaitMs`). */
    readonly waitMs: number,
  ) {}

  /** A hold for one request's work; `signal` (the request went away) ends its waits. */
  open(signal?: AbortSignal): ContentHold {
    return new ContentHold(this, signal);
  }

  /** Bytes reserved now by every hold (for tests and metrics). */
  get reserved(): number {
    return this.inUse;
  }

  /** Reservations waiting for room now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** @internal */
  take(hold: ContentHold, bytes: number, signal: AbortSignal | undefined): Promise<void> | undefined {
    if (this.mayTake(hold, bytes)) {
      this.grant(hold, bytes);
      return undefined;
    }
    signal?.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        hold,
        bytes,
        grant: () => {
          leave();
          this.grant(hold, bytes);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        leave();
        reject(new ContentWorkBusyError());
        // Its place is free: the next one may fit now.
        this.pump();
      }, this.waitMs);
      const onAbort = () => {
        leave();
        reject(signal?.reason);
        this.pump();
      };
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** @internal */
  give(hold: ContentHold, bytes: number): void {
    if (bytes === 0) return;
    this.inUse -= bytes;
    this.active.delete(hold);
    this.pump();
  }

  private mayTake(hold: ContentHold, bytes: number): boolean {
    if (hold.held + bytes <= SMALL_HOLD_BYTES) return true;
    if (this.isOldest(hold)) return true;
    // First come, first served: nothing overtakes a reservation already waiting.
    return this.waiting.length === 0 && this.inUse + bytes <= this.capacity;
  }

  /** The hold that may always grow: the oldest in flight, or any when none is. */
  private isOldest(hold: ContentHold): boolean {
    const oldest = this.active.values().next();
    return oldest.done === true || oldest.value === hold;
  }

  private grant(hold: ContentHold, bytes: number): void {
    this.inUse += bytes;
    hold.held += bytes;
    if (hold.held > 0) this.active.add(hold);
  }

  /** Grants what may go now: the oldest hold's reservation wherever it waits, then in order while it fits. */
  private pump(): void {
    for (;;) {
      const oldest = this.waiting.find((waiter) => this.isOldest(waiter.hold));
      if (oldest) {
        oldest.grant();
        continue;
      }
      const next = this.waiting[0];
      if (!next || this.inUse + next.bytes > this.capacity) return;
      next.grant();
    }
  }
}

interface Waiter {
  readonly hold: ContentHold;
  readonly bytes: number;
  grant(): void;
}

/** One request's share of the budget. */
export class ContentHold {
  /** @internal Bytes reserved by this hold. */
  held = 0;
  private released = false;

  constructor(
    private readonly budget: ContentBudget,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Reserves `bytes` more before the work that holds them; may wait (see `ContentBudget`). */
  async reserve(bytes: number): Promise<void> {
    if (this.released) throw new Error('a released content hold cannot reserve');
    const size = Math.max(0, Math.ceil(bytes));
    if (size === 0) return;
    await this.budget.take(this, size, this.signal);
  }

  /** Gives everything back; the work is over. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    const held = this.held;
    this.held = 0;
    this.budget.give(this, held);
  }
}

/** A hold that stays within this many bytes never waits: work on small files is never queued. */
export const SMALL_HOLD_BYTES = 1024 * 1024;

/**
 * Memory a text read whole takes per byte of its UTF-8 content: the bytes while they are decoded, and
 * the text (one byte per code unit for Latin-1 text, two otherwise: at most the UTF-8 size but for a
 * mostly-ASCII text with one wider character).
 */
export const TEXT_BYTES_PER_BYTE = 2;

/** Runs `work` with a hold of `budget`, released when the work ends (however it ends). */
export async function withContentHold<T>(
  budget: ContentBudget,
  signal: AbortSignal | undefined,
  work: (hold: ContentHold) => Promise<T>,
): Promise<T> {
  const hold = budget.open(signal);
  try {
    return await work(hold);
  } finally {
    hold.release();
  }
}
