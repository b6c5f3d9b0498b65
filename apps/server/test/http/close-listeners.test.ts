import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * The `close` listeners of a response: the server's own layers (the access log, the closing server's
 * unanswered set, the account share, a route's abort signal, the MCP endpoint) share one
 * (`onResponseClose`), so that a streamed answer, whose `pipeline(…, res)` adds seven of Node's own,
 * stays within the emitter's default of 10 (no `MaxListenersExceededWarning`). Express adds none.
 */
const test = serverTest();

interface Watched {
  readonly method: string;
  readonly path: string;
  /** `close` listeners added by the server's own code (not Node's modules, not a library's). */
  server: number;
  /** The most `close` listeners the response held at once. */
  most: number;
  readonly closed: Promise<void>;
}

/** The frame that added a listener, past the wrapper and `node:events` (`once` adds through `on`). */
const addedBy = (stack: string): string =>
  stack
    .split('\n')
    .slice(2)
    .find((frame) => !frame.includes('node:events')) ?? '';

/** Watches the `close` listeners of every response the server makes from now on. */
function watchCloseListeners(h: HttpHarness): Watched[] {
  const watched: Watched[] = [];
  h.server.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    let closed!: () => void;
    const entry: Watched = {
      method: req.method ?? '',
      path: (req.url ?? '').split('?', 1)[0]!,
      server: 0,
      most: 0,
      closed: new Promise<void>((resolve) => {
        closed = resolve;
      }),
    };
    watched.push(entry);
    // The watcher's own listener, added before the wrap: not counted.
    res.prependOnceListener('close', () => closed());
    for (const method of ['on', 'addListener', 'prependListener'] as const) {
      const original = res[method].bind(res);
      res[method] = ((event: string | symbol, listener: (...args: unknown[]) => void) => {
        const result = original(event, listener);
        if (event === 'close') {
          const frame = addedBy(new Error().stack ?? '');
          if (!frame.includes('node:') && !frame.includes('node_modules')) entry.server += 1;
          entry.most = Math.max(entry.most, res.listenerCount('close') - 1);
        }
        return result;
      }) as ServerResponse['on'];
    }
  });
  return watched;
}

describe('close listeners of a response', () => {
  test('one per response from the server, within the default bound with a streamed answer', async (h) => {
    const { apiKey, defaultProjectId: projectId } = await h.account();
    await h.uploadFile(apiKey, projectId, 'a.md', '# A\n\nalpha\n');
    const watched = watchCloseListeners(h);
    const list = await h.fetch('/api/projects', { key: apiKey });
    expect(list.status).toBe(200);
    await list.arrayBuffer();
    const download = await h.fetch(`/api/projects/${projectId}/files/a.md`, { key: apiKey });
    expect(await download.text()).toBe('# A\n\nalpha\n');
    const exported = await h.fetch(`/api/projects/${projectId}/export`, { key: apiKey });
    expect(exported.status).toBe(200);
    await exported.arrayBuffer();
    const mcp = await h.fetch('/mcp', {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    expect(mcp.status).toBe(200);
    await mcp.arrayBuffer();
    await Promise.all(watched.map((entry) => entry.closed));
    // The access log, the unanswered set, the account share, the route's signal (download, export,
    // MCP) and the MCP endpoint's transport: one listener for all of them.
    expect(watched.map(({ method, path, server }) => ({ method, path, server }))).toEqual([
      { method: 'GET', path: '/api/projects', server: 1 },
      { method: 'GET', path: `/api/projects/${projectId}/files/a.md`, server: 1 },
      { method: 'GET', path: `/api/projects/${projectId}/export`, server: 1 },
      { method: 'POST', path: '/mcp', server: 1 },
    ]);
    // The streamed answers' pipeline adds Node's own on top (the MCP SDK one of its own): still within
    // the emitter's default bound.
    for (const entry of watched) expect(entry.most, entry.path).toBeLessThanOrEqual(10);
    expect(watched[2]!.most).toBeGreaterThan(1);
  });
});
