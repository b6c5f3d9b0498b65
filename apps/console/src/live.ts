import type { ChangeEvent, ChangeList } from '@mdstore/client';
import { useEffect, useState } from 'preact/hooks';
import { isStatus, sdk } from './api';

type Listener = (events: ChangeEvent[]) => void;
const listeners = new Set<Listener>();
let running: AbortController | undefined;

/**
 * Falls back to this period of plain refreshes when the server has no change feed (`404`): a change
 * then shows within about a second and a request, and a tab costs a few requests a second.
 */
const FALLBACK_REFRESH_MS = 1000;
const HOLD_SECONDS = 25;

/**
 * Follows `GET /api/changes` with long polls (`wait`): each event is handed to every listener as soon as
 * the held request returns (an event reaches the console within 2 s). Without the feed (404) the
 * listeners are told every second with no events, and refresh what they show.
 */
export function startLiveUpdates(): () => void {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  void follow(controller.signal);
  return () => controller.abort();
}

async function follow(signal: AbortSignal): Promise<void> {
  let since: number | null = null;
  while (!signal.aborted) {
    try {
      const wait = since === null ? 0 : HOLD_SECONDS;
      let answer: ChangeList;
      try {
        answer = await sdk().changes.list({ since: since ?? 0, limit: 1000, wait }, { signal });
      } catch (caught) {
        if (isStatus(caught, 404)) return pollWithoutFeed(signal);
        if (!isStatus(caught, 410)) throw caught;
        since = null;
        tell([]);
        continue;
      }
      // The first answer only finds where the feed is: what came before is already on screen.
      if (since !== null && answer.changes.length > 0) tell(answer.changes);
      since = answer.next_since;
      if (since !== null && answer.changes.length === 1000) continue;
      if (wait === 0) await sleep(0, signal);
    } catch {
      if (signal.aborted) return;
      await sleep(FALLBACK_REFRESH_MS, signal);
    }
  }
}

async function pollWithoutFeed(signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    await sleep(FALLBACK_REFRESH_MS, signal);
    if (document.visibilityState === 'visible') tell([]);
  }
}

function tell(events: ChangeEvent[]): void {
  for (const listener of listeners) listener(events);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * A counter that grows whenever a change may concern `projectId` (or any project when null): screens
 * put it in their effects' dependencies to load again.
 */
export function useLiveVersion(projectId: string | null, filename?: string | null): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const listener: Listener = (events) => {
      const relevant =
        events.length === 0 ||
        events.some(
          (event) =>
            projectId === null ||
            (event.project_id === projectId &&
              (filename === undefined || event.filename === filename || event.from === filename)),
        );
      if (relevant) setVersion((v) => v + 1);
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [projectId, filename]);
  return version;
}
