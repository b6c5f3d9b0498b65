import type { ServerResponse } from 'node:http';

/** The callbacks waiting for each response's `close`, in the order they were added. */
const HOOKS = new WeakMap<ServerResponse, Array<() => void>>();

/**
 * Runs `callback` once when `res` emits `close` (the response is done with its connection: answered,
 * or the client went away). Every layer that needs the end of a response (the access log, the closing
 * server's unanswered set, the account share, a route's abort signal, the MCP endpoint) shares one
 * `close` listener per response: Node's `pipeline(…, res)` of a streamed answer adds seven of its own,
 * and a listener per layer on top went past the emitter's default of 10 (`MaxListenersExceededWarning`).
 * Callbacks run in the order they were added. Gives a function that takes `callback` off again. A
 * response that has already closed is not waited for: the caller checks `res.closed` first.
 */
export function onResponseClose(res: ServerResponse, callback: () => void): () => void {
  let hooks = HOOKS.get(res);
  if (hooks === undefined) {
    const list: Array<() => void> = [];
    hooks = list;
    HOOKS.set(res, list);
    res.once('close', () => {
      HOOKS.delete(res);
      for (const hook of list.splice(0)) hook();
    });
  }
  const list = hooks;
  list.push(callback);
  return () => {
    const index = list.indexOf(callback);
    if (index >= 0) list.splice(index, 1);
  };
}
