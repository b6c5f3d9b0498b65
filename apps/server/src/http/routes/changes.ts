import {
  ApiKeyExpiredError,
  CHANGES_LIMITS,
  type ChangeEventRecord,
  type ChangesPage,
  type ChangesParams,
  type ChangesRequest,
  HELD_LIMITS,
  type HeldKeyState,
  type MdStore,
  type Principal,
  UnauthenticatedError,
} from '@mdstore/core';
import type { Request, Response } from 'express';
import * as v from 'valibot';
import { eventBody } from '../../views.js';
import { errors, json } from '../api/answers.js';
import { ChangeList } from '../api/changes-schemas.js';
import { defineRoute, type QueryParameter } from '../api/route.js';
import { principalOf } from '../auth.js';
import { AccountWaiter, StreamSlots } from '../changes-feed.js';
import { HttpError } from '../errors.js';
import { HeldKeyChecks } from '../held-keys.js';
import { singleQueryParams } from '../query.js';
import { type RouteDeps, signalOf } from './context.js';

/** `GET /api/changes` (extensions §7): a page of the feed, a long poll (`wait`), or an SSE stream. */

const CHANGES_PARAMS = ['since', 'limit', 'project_id', 'wait'] as const;

const CHANGES_QUERY: Readonly<Record<(typeof CHANGES_PARAMS)[number], QueryParameter>> = {
  since: {
    schema: v.pipe(v.number(), v.integer(), v.minValue(0)),
    description: 'Events with a greater `seq` (default 0: from the oldest kept).',
  },
  limit: {
    schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(CHANGES_LIMITS.maxLimit)),
    description: `Events per answer (default ${CHANGES_LIMITS.defaultLimit}).`,
  },
  project_id: { schema: v.pipe(v.string(), v.uuid()), description: 'Events of this project only.' },
  wait: {
    schema: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(CHANGES_LIMITS.maxWaitSeconds)),
    description: 'Seconds to hold the request while there is nothing to return (long poll; default 0).',
  },
};

const pageBody = (page: ChangesPage): v.InferOutput<typeof ChangeList> => ({
  changes: page.changes.map(eventBody),
  next_since: page.nextSince,
});

const wantsEventStream = (req: Request): boolean => /\btext\/event-stream\b/i.test(req.get('accept') ?? '');

/** `Last-Event-ID`, when sent, is where a stream resumes; it must be a `seq`. */
function lastEventId(req: Request): number | undefined {
  const text = req.get('last-event-id');
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(text.trim())) {
    throw new HttpError(422, [
      {
        loc: ['header', 'last-event-id'],
        msg: 'Input should be a non-negative integer',
        type: 'int_parsing',
      },
    ]);
  }
  return Number(text.trim());
}

/** The answer of a held poll whose key was found revoked or expired: `401`, as for any request of it. */
const keyRefusal = (state: Exclude<HeldKeyState, 'valid'>) =>
  state === 'expired' ? new ApiKeyExpiredError() : new UnauthenticatedError();

export const listChanges = defineRoute(
  {
    method: 'GET',
    path: '/api/changes',
    operationId: 'listChanges',
    summary: 'Read the change feed',
    description:
      'Committed changes of the account (and the key’s projects), oldest first, `seq` > `since`. With `wait`, held until an event arrives or `wait` passes. With `Accept: text/event-stream`, a Server-Sent Events stream (`event: change`, `id: <seq>`), resumed from `Last-Event-ID`, with a comment line at least every 15 s; it ends when the key is revoked or expires. `410` when retention removed an event after `since`.',
    tags: ['Changes'],
    auth: 'apiKey',
    role: 'read',
    query: CHANGES_QUERY,
    answers: {
      200: {
        ...json('Events after `since`', ChangeList),
        otherBodies: [{ contentType: 'text/event-stream' }],
      },
      ...errors(403, 404, 410, 422),
    },
  },
  (deps) => {
    const slots = new StreamSlots(deps.changes);
    const keyChecks =
      deps.changes?.keyChecks ??
      new HeldKeyChecks((principal) => deps.store.changes.keyState({ principal }), {
        intervalMs: HELD_LIMITS.keyCheckMs,
      });
    const held: Held = { deps, slots, keyChecks };
    return async (req, res) => {
      const params: ChangesParams = singleQueryParams(req, CHANGES_PARAMS);
      const principal = principalOf(res);
      const parsed = await deps.store.changes.open({ principal, params });
      if (wantsEventStream(req)) {
        const resumeAt = lastEventId(req);
        const request = resumeAt === undefined ? parsed : { ...parsed, since: resumeAt };
        await streamChanges(held, { res, principal, request });
        return;
      }
      if (parsed.waitSeconds === 0) {
        res.status(200).json(pageBody(await deps.store.changes.read({ principal, request: parsed })));
        return;
      }
      slots.take(principal);
      try {
        res.status(200).json(pageBody(await heldRead(held, { res, principal, request: parsed })));
      } finally {
        slots.release(principal);
      }
    };
  },
);

/** What every held request of the route shares. */
interface Held {
  readonly deps: RouteDeps;
  readonly slots: StreamSlots;
  readonly keyChecks: HeldKeyChecks;
}

/**
 * The signal that ends a held request (the client leaves, the server stops, or the shared key check
 * finds its key revoked or expired: then `ended()` tells which), while `watch` lasts.
 */
function holdRequest(held: Held, res: Response, principal: Principal) {
  const keyEnded = new AbortController();
  let state: Exclude<HeldKeyState, 'valid'> | undefined;
  const unwatch = held.keyChecks.watch(principal, (found) => {
    state ??= found === 'valid' ? undefined : found;
    keyEnded.abort();
  });
  const closing = held.deps.changes?.closing;
  const signal = AbortSignal.any([signalOf(res), keyEnded.signal, ...(closing ? [closing] : [])]);
  return { signal, ended: () => state, unwatch };
}

/**
 * The key of a page about to be delivered, checked by a read that started after the page's (shared by
 * the key's held requests): an event committed after the key was revoked is never delivered.
 */
async function deliverable(held: Held, principal: Principal, readAt: number): Promise<HeldKeyState> {
  return held.keyChecks.confirm(principal, readAt);
}

/**
 * A long poll: read; while nothing and time is left, wait for a notice (or the safety poll), read again.
 * Events are answered only after the key is confirmed; a revoked or expired key is `401` (nothing was
 * sent yet).
 */
async function heldRead(
  held: Held,
  o: { res: Response; principal: Principal; request: ChangesRequest },
): Promise<ChangesPage> {
  const { deps } = held;
  const deadline = Date.now() + o.request.waitSeconds * 1000;
  const hold = holdRequest(held, o.res, o.principal);
  const waiter = new AccountWaiter(deps.changes?.notifier, o.principal.accountId);
  // A page may show none of the events it read (a key confined to folders, extensions §14): the next
  // read starts past them all the same.
  let request = o.request;
  try {
    for (;;) {
      const readAt = held.keyChecks.now();
      const page = await deps.store.changes.read({ principal: o.principal, request });
      const ended = hold.ended();
      if (ended) throw keyRefusal(ended);
      if (page.changes.length > 0) {
        const state = await deliverable(held, o.principal, readAt);
        if (state !== 'valid') throw keyRefusal(state);
        return page;
      }
      if (Date.now() >= deadline || hold.signal.aborted) return page;
      request = { ...request, since: page.nextSince };
      await waiter.next(Math.min(deadline - Date.now(), CHANGES_LIMITS.safetyPollMs), hold.signal);
    }
  } finally {
    hold.unwatch();
    waiter.close();
  }
}

const sseEvent = (e: ChangeEventRecord): string =>
  `event: change\nid: ${e.seq}\ndata: ${JSON.stringify(eventBody(e))}\n\n`;

/**
 * The SSE stream: the first read answers errors as JSON (403, 404, 410, 422); then events as they commit,
 * a comment at least every `heartbeatMs`, and the end when the key is revoked or expires (found by the
 * shared key check, or before a page is delivered), the client leaves, or retention overtakes the
 * reader (the stream ends; the next request gets the 410).
 */
async function streamChanges(
  held: Held,
  o: { res: Response; principal: Principal; request: ChangesRequest },
): Promise<void> {
  const { res, principal } = o;
  const store = held.deps.store as MdStore;
  let request = { ...o.request, limit: CHANGES_LIMITS.maxLimit };
  let readAt = held.keyChecks.now();
  const first = await store.changes.read({ principal, request });
  held.slots.take(principal);
  const hold = holdRequest(held, res, principal);
  const waiter = new AccountWaiter(held.deps.changes?.notifier, principal.accountId);
  try {
    res.status(200);
    res.set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.write(': mdstore change feed\n\n');
    const heartbeatMs = held.deps.changes?.heartbeatMs ?? CHANGES_LIMITS.heartbeatMs;
    let page = first;
    let lastWrite = Date.now();
    while (!hold.signal.aborted) {
      if (page.changes.length > 0) {
        if ((await deliverable(held, principal, readAt)) !== 'valid') break;
        res.write(page.changes.map(sseEvent).join(''));
        lastWrite = Date.now();
      }
      // Past every event read, shown or not (a key confined to folders sees fewer, extensions §14).
      request = { ...request, since: page.nextSince };
      if (!page.full) {
        const untilHeartbeat = lastWrite + heartbeatMs - Date.now();
        await waiter.next(Math.min(untilHeartbeat, CHANGES_LIMITS.safetyPollMs), hold.signal);
        if (hold.signal.aborted) break;
        if (Date.now() - lastWrite >= heartbeatMs) {
          res.write(': heartbeat\n\n');
          lastWrite = Date.now();
        }
      }
      try {
        readAt = held.keyChecks.now();
        page = await store.changes.read({ principal, request });
      } catch {
        break;
      }
    }
  } catch {
    // The key could not be confirmed (the store failed): the stream ends; the client resumes.
  } finally {
    hold.unwatch();
    waiter.close();
    held.slots.release(principal);
    if (!res.writableEnded) res.end();
  }
}

export const changeRoutes = [listChanges];
