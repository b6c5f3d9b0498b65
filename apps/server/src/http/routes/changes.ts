import {
  CHANGES_LIMITS,
  type ChangeEventRecord,
  type ChangesPage,
  type ChangesParams,
  type ChangesRequest,
  type MdStore,
  type Principal,
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

const tooManyStreams = () =>
  new HttpError(429, 'Too many open change streams for this API key', { 'Retry-After': '5' });

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
    return async (req, res) => {
      const params: ChangesParams = singleQueryParams(req, CHANGES_PARAMS);
      const principal = principalOf(res);
      const parsed = await deps.store.changes.open({ principal, params });
      if (wantsEventStream(req)) {
        const resumeAt = lastEventId(req);
        const request = resumeAt === undefined ? parsed : { ...parsed, since: resumeAt };
        await streamChanges(deps, slots, { req, res, principal, request });
        return;
      }
      if (parsed.waitSeconds === 0) {
        res.status(200).json(pageBody(await deps.store.changes.read({ principal, request: parsed })));
        return;
      }
      if (!slots.take(principal.keyId)) throw tooManyStreams();
      try {
        res.status(200).json(pageBody(await heldRead(deps, { res, principal, request: parsed })));
      } finally {
        slots.release(principal.keyId);
      }
    };
  },
);

/** Ends a held read: the client leaves, or the server stops. */
const heldSignal = (deps: RouteDeps, res: Response): AbortSignal =>
  deps.changes?.closing ? AbortSignal.any([signalOf(res), deps.changes.closing]) : signalOf(res);

/** A long poll: read; while nothing and time is left, wait for a notice (or the safety poll), read again. */
async function heldRead(
  deps: RouteDeps,
  o: { res: Response; principal: Principal; request: ChangesRequest },
): Promise<ChangesPage> {
  const deadline = Date.now() + o.request.waitSeconds * 1000;
  const signal = heldSignal(deps, o.res);
  const waiter = new AccountWaiter(deps.changes?.notifier, o.principal.accountId);
  try {
    for (;;) {
      const page = await deps.store.changes.read({ principal: o.principal, request: o.request });
      const left = deadline - Date.now();
      if (page.changes.length > 0 || left <= 0 || signal.aborted) return page;
      await waiter.next(Math.min(left, CHANGES_LIMITS.safetyPollMs), signal);
    }
  } finally {
    waiter.close();
  }
}

const sseEvent = (e: ChangeEventRecord): string =>
  `event: change\nid: ${e.seq}\ndata: ${JSON.stringify(eventBody(e))}\n\n`;

/**
 * The SSE stream: the first read answers errors as JSON (403, 404, 410, 422); then events as they commit,
 * a comment at least every `heartbeatMs`, and the end when the key is revoked or expires, the client
 * leaves, or retention overtakes the reader (the stream ends; the next request gets the 410).
 */
async function streamChanges(
  deps: RouteDeps,
  slots: StreamSlots,
  o: { req: Request; res: Response; principal: Principal; request: ChangesRequest },
): Promise<void> {
  const { res, principal, store } = { ...o, store: deps.store as MdStore };
  const signal = heldSignal(deps, res);
  const waiter = new AccountWaiter(deps.changes?.notifier, principal.accountId);
  try {
    let request = { ...o.request, limit: CHANGES_LIMITS.maxLimit };
    const first = await store.changes.read({ principal, request });
    if (!slots.take(principal.keyId)) throw tooManyStreams();
    try {
      res.status(200);
      res.set({
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
      res.write(': mdstore change feed\n\n');
      const heartbeatMs = deps.changes?.heartbeatMs ?? CHANGES_LIMITS.heartbeatMs;
      let page = first;
      let lastWrite = Date.now();
      let lastKeyCheck = Date.now();
      while (!signal.aborted) {
        if (page.changes.length > 0) {
          res.write(page.changes.map(sseEvent).join(''));
          lastWrite = Date.now();
          request = { ...request, since: page.nextSince };
        }
        if (page.changes.length < request.limit) {
          const now = Date.now();
          const untilHeartbeat = lastWrite + heartbeatMs - now;
          const untilKeyCheck = lastKeyCheck + CHANGES_LIMITS.keyCheckMs - now;
          await waiter.next(Math.min(untilHeartbeat, untilKeyCheck, CHANGES_LIMITS.safetyPollMs), signal);
          if (signal.aborted) break;
          if (Date.now() - lastKeyCheck >= CHANGES_LIMITS.keyCheckMs) {
            lastKeyCheck = Date.now();
            if (!(await store.changes.keyStillValid({ principal }))) break;
          }
          if (Date.now() - lastWrite >= heartbeatMs) {
            res.write(': heartbeat\n\n');
            lastWrite = Date.now();
          }
        }
        try {
          page = await store.changes.read({ principal, request });
        } catch {
          break;
        }
      }
    } finally {
      slots.release(principal.keyId);
      if (!res.writableEnded) res.end();
    }
  } finally {
    waiter.close();
  }
}

export const changeRoutes = [listChanges];
