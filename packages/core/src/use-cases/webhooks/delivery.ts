import { WEBHOOK_LIMITS, type WebhookLimits } from '../../defaults/webhooks.js';
import type { ChangeEventRecord } from '../../model/changes.js';
import type { WebhookProgress, WebhookRecord } from '../../model/records.js';
import type { ChangeFeedReader, ChangeNotifier } from '../../ports/changes.js';
import type { RecordsRepository } from '../../ports/records.js';
import type { Clock, IdSource } from '../../ports/runtime.js';
import type { WebhookTransport } from '../../ports/webhooks.js';
import type { MdStoreEvents } from '../context.js';
import { matchesEventFilters, webhookMessageId, webhookPayload } from './events.js';
import { signWebhook } from './signing.js';

/** How one attempt ended, for metrics: a 2xx, anything else, or the last failure that disabled the webhook. */
export type DeliveryOutcome = 'success' | 'failure' | 'disabled';

export interface DeliveryObserver {
  /** After each attempt; `lagMs` (commit to acknowledged delivery) on success only. */
  attempted(o: { outcome: DeliveryOutcome; durationMs: number; lagMs: number | null }): void;
}

/** Timers, injectable so that tests drive time themselves. */
export interface DeliveryTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface WebhookDeliveryOptions {
  readonly records: RecordsRepository;
  readonly feed: ChangeFeedReader;
  readonly notifier: ChangeNotifier;
  readonly transport: WebhookTransport;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** This instance's name on the leases it takes (unique per process). */
  readonly owner: string;
  /** Timings (tests shorten them); the defaults are `WEBHOOK_LIMITS`. */
  readonly limits?: Partial<WebhookLimits>;
  readonly timers?: DeliveryTimers;
  readonly observer?: DeliveryObserver;
  readonly events?: MdStoreEvents;
}

export interface WebhookDelivery {
  /** Subscribes to the notifier and starts the sweep timer. */
  start(): void;
  /** Stops waking up and waits for the attempts in flight. */
  stop(): Promise<void>;
  /** One pass over every active webhook (what the sweep timer runs); resolves when each is done. */
  sweep(): Promise<void>;
  /** Delivers what is due for one webhook now. */
  deliver(webhookId: string): Promise<void>;
}

const realTimers: DeliveryTimers = {
  set: (run, ms) => {
    const handle = setTimeout(run, ms);
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The most feed pages one step reads looking for an event the webhook wants. */
const MAX_PAGES_PER_STEP = 10;

const errorText = (message: string, max: number) =>
  message.length > max ? `${message.slice(0, max - 1)}…` : message;

/**
 * Webhook delivery (extensions §7): per webhook, events in `seq` order, one in flight, at least once. The
 * state lives in the records store (cursor, failed attempts, next attempt time) and an attempt is made
 * only under the webhook's lease, taken in a transaction: with several instances, one makes each attempt;
 * a crashed owner's lease expires and another instance resumes from the stored cursor. Woken by the
 * notifier (new events), by a timer at each retry's time, and by a slow sweep (retries scheduled by
 * another instance, expired leases).
 */
export function createWebhookDelivery(o: WebhookDeliveryOptions): WebhookDelivery {
  const limits = { ...WEBHOOK_LIMITS, ...o.limits };
  const timers = o.timers ?? realTimers;
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const retryTimers = new Map<string, unknown>();
  let sweepTimer: unknown;
  let unsubscribe: (() => void) | undefined;
  /** Started: wakes itself (notifier, timers). Closing: stop() was called; runs end after their attempt. */
  let started = false;
  let closing = false;

  const warn = (message: string, details: Record<string, unknown>) => o.events?.warn(message, details);

  const claim = (webhookId: string) => {
    const now = o.clock.now();
    return o.records.withTransaction((tx) =>
      tx.claimWebhook({ webhookId, owner: o.owner, now, until: now + limits.leaseMs }),
    );
  };

  const save = (w: WebhookRecord, progress: WebhookProgress) =>
    o.records.withTransaction((tx) => tx.saveWebhookProgress({ webhookId: w.id, owner: o.owner, progress }));

  const stateOf = (w: WebhookRecord): Omit<WebhookProgress, 'leaseExpiresAt'> => ({
    cursorSeq: w.cursorSeq,
    attempt: w.attempt,
    nextAttemptAt: w.nextAttemptAt,
    active: w.active,
    disabledReason: w.disabledReason,
  });

  const scheduleRetry = (webhookId: string, at: number) => {
    if (!started || closing) return;
    const previous = retryTimers.get(webhookId);
    if (previous !== undefined) timers.clear(previous);
    const delay = Math.max(0, Math.min(at - o.clock.now(), 2 ** 31 - 1));
    retryTimers.set(
      webhookId,
      timers.set(() => {
        retryTimers.delete(webhookId);
        void deliver(webhookId);
      }, delay),
    );
  };

  /** The next event the webhook wants after its cursor, or none, and the cursor past what it skipped. */
  async function nextEvent(
    w: WebhookRecord,
  ): Promise<{ event: ChangeEventRecord | null; cursor: number | null }> {
    let cursor = w.cursorSeq;
    for (let page = 0; page < MAX_PAGES_PER_STEP; page++) {
      const events = await o.feed.listChangeEvents({
        accountId: w.accountId,
        afterSeq: cursor ?? 0,
        limit: limits.feedPage,
        ...(w.projectId !== null && { projectIds: [w.projectId] }),
      });
      for (const event of events) {
        // A new webhook starts with the events committed after its creation.
        const wanted =
          matchesEventFilters(w.events, event.type) && (w.cursorSeq !== null || event.at >= w.createdAt);
        if (wanted) return { event, cursor };
        cursor = event.seq;
      }
      if (events.length < limits.feedPage) return { event: null, cursor };
    }
    return { event: null, cursor };
  }

  /** One attempt of one event, recorded in the deliveries log; returns the webhook's new state. */
  async function attempt(
    w: WebhookRecord,
    event: ChangeEventRecord,
    cursor: number | null,
  ): Promise<WebhookProgress> {
    const started = o.clock.now();
    const id = webhookMessageId(w.id, event.seq);
    const body = webhookPayload(event);
    const timestampSeconds = Math.floor(started / 1000);
    const result = await o.transport.post({
      url: w.url,
      body,
      timeoutMs: limits.timeoutMs,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestampSeconds),
        'webhook-signature': signWebhook({ secret: w.secret, id, timestampSeconds, body }),
      },
    });
    const ended = o.clock.now();
    const durationMs = Math.max(0, ended - started);
    const number = w.attempt + 1;
    const ok = 'status' in result && result.status >= 200 && result.status < 300;
    const failure = 'status' in result ? `answered ${result.status}` : result.error;
    const delivery = {
      id: o.ids.uuid(),
      webhookId: w.id,
      eventSeq: event.seq,
      attempt: number,
      statusCode: 'status' in result ? result.status : null,
      error: 'error' in result ? errorText(result.error, limits.errorMaxChars) : null,
      durationMs,
      at: ended,
    };
    let progress: WebhookProgress;
    let outcome: DeliveryOutcome;
    if (ok) {
      outcome = 'success';
      progress = {
        ...stateOf(w),
        cursorSeq: event.seq,
        attempt: 0,
        nextAttemptAt: null,
        leaseExpiresAt: ended + limits.leaseMs,
      };
    } else if (number > limits.retryDelaysMs.length) {
      outcome = 'disabled';
      const disabledReason = errorText(
        `Event ${event.seq} failed ${number} attempts (last: ${failure})`,
        limits.errorMaxChars,
      );
      progress = {
        ...stateOf(w),
        cursorSeq: cursor,
        attempt: number,
        nextAttemptAt: null,
        active: false,
        disabledReason,
        leaseExpiresAt: null,
      };
    } else {
      outcome = 'failure';
      const nextAttemptAt = ended + (limits.retryDelaysMs[number - 1] ?? 0);
      progress = { ...stateOf(w), cursorSeq: cursor, attempt: number, nextAttemptAt, leaseExpiresAt: null };
    }
    const saved = await o.records.withTransaction(async (tx) => {
      const kept = await tx.saveWebhookProgress({ webhookId: w.id, owner: o.owner, progress });
      // Logged even when the lease was lost (the attempt was made), unless the webhook is gone.
      if (kept || (await tx.findWebhook({ webhookId: w.id })) !== null)
        await tx.insertWebhookDelivery({ delivery });
      return kept;
    });
    o.observer?.attempted({ outcome, durationMs, lagMs: ok ? Math.max(0, ended - event.at) : null });
    // A lease lost mid-attempt (the attempt outlived it): the next owner repeats the event (at least once).
    if (!saved) throw new LeaseLost();
    return progress;
  }

  /** Delivers every due event of the webhook in order, while it holds the lease and attempts succeed. */
  async function run(webhookId: string): Promise<void> {
    let w = await claim(webhookId);
    while (w !== null && !closing) {
      const now = o.clock.now();
      if (w.nextAttemptAt !== null && w.nextAttemptAt > now) {
        await save(w, { ...stateOf(w), leaseExpiresAt: null });
        scheduleRetry(w.id, w.nextAttemptAt);
        return;
      }
      const { event, cursor } = await nextEvent(w);
      if (event === null) {
        await save(w, { ...stateOf(w), cursorSeq: cursor, leaseExpiresAt: null });
        return;
      }
      const progress = await attempt(w, event, cursor);
      if (progress.leaseExpiresAt === null) {
        if (progress.active && progress.nextAttemptAt !== null) scheduleRetry(w.id, progress.nextAttemptAt);
        return;
      }
      const { leaseExpiresAt, ...state } = progress;
      w = { ...w, ...state, leaseOwner: o.owner, leaseExpiresAt };
    }
    // Stopped while holding the lease: give it back so another instance need not wait for it to expire.
    if (w !== null) await save(w, { ...stateOf(w), leaseExpiresAt: null });
  }

  /** One run per webhook at a time in this process; a wake-up during a run makes it look once more. */
  function deliver(webhookId: string): Promise<void> {
    const current = running.get(webhookId);
    if (current) {
      again.add(webhookId);
      return current;
    }
    const done = (async () => {
      try {
        do {
          again.delete(webhookId);
          await run(webhookId);
        } while (again.has(webhookId) && !closing);
      } catch (error) {
        if (!(error instanceof LeaseLost)) {
          warn('Webhook delivery failed; the sweep tries again', { webhookId, error: String(error) });
        }
      } finally {
        running.delete(webhookId);
      }
    })();
    running.set(webhookId, done);
    return done;
  }

  async function sweep(): Promise<void> {
    let afterId: string | undefined;
    for (;;) {
      const page = await o.records.listActiveWebhooks({
        limit: 100,
        ...(afterId !== undefined && { afterId }),
      });
      const now = o.clock.now();
      // Leased by another live instance: its business. A retry not yet due: a timer, not a claim.
      const free = page.filter(
        (w) => w.leaseOwner === null || w.leaseOwner === o.owner || (w.leaseExpiresAt ?? 0) <= now,
      );
      for (const w of free)
        if (w.nextAttemptAt !== null && w.nextAttemptAt > now) scheduleRetry(w.id, w.nextAttemptAt);
      await Promise.all(
        free.filter((w) => w.nextAttemptAt === null || w.nextAttemptAt <= now).map((w) => deliver(w.id)),
      );
      if (page.length < 100) return;
      afterId = page.at(-1)?.id;
    }
  }

  const sweepLater = () => {
    if (!started || closing) return;
    sweepTimer = timers.set(() => {
      sweep()
        .catch((error) => warn('Webhook sweep failed', { error: String(error) }))
        .finally(sweepLater);
    }, limits.sweepMs);
  };

  /** Accounts whose webhooks are being looked up; true: notified again meanwhile (look once more). */
  const looking = new Map<string, boolean>();
  /** A burst of commits costs one lookup at a time per account, not one per commit. */
  const onAccount = (accountId: string) => {
    if (looking.has(accountId)) {
      looking.set(accountId, true);
      return;
    }
    looking.set(accountId, false);
    void (async () => {
      try {
        do {
          looking.set(accountId, false);
          const webhooks = await o.records.listWebhooks({ accountId, limit: WEBHOOK_LIMITS.maxPerAccount });
          for (const w of webhooks) if (w.active) void deliver(w.id);
        } while (looking.get(accountId) && !closing);
      } catch (error) {
        warn('Webhook wake-up failed', { accountId, error: String(error) });
      } finally {
        looking.delete(accountId);
      }
    })();
  };

  return {
    start() {
      if (started) return;
      started = true;
      closing = false;
      unsubscribe = o.notifier.subscribe(onAccount);
      // At start: whatever was pending before a restart or a crash.
      void sweep().catch((error) => warn('Webhook sweep failed', { error: String(error) }));
      sweepLater();
    },
    async stop() {
      closing = true;
      started = false;
      unsubscribe?.();
      if (sweepTimer !== undefined) timers.clear(sweepTimer);
      for (const handle of retryTimers.values()) timers.clear(handle);
      retryTimers.clear();
      await Promise.all(running.values());
    },
    sweep,
    deliver,
  };
}

class LeaseLost extends Error {}
