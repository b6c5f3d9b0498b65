import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeActivity } from '../../src/http/write-activity.js';

/**
 * The writes a process serves, which the semantic indexer gives way to (extensions §15): a write counts
 * from its arrival to its response's end; reads do not; waiting for quiet is bounded.
 */
let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server?.listening) await new Promise((resolve) => server!.close(resolve));
});

async function serve() {
  const activity = writeActivity();
  const held: http.ServerResponse[] = [];
  server = http.createServer(
    activity.wrap((req, res) => {
      // Writes are held until the test answers them; reads answer at once.
      if (req.method === 'GET') res.end('read');
      else held.push(res);
    }),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const send = (method: string) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: '/' });
    request.on('error', () => {});
    request.end();
    return request;
  };
  const until = async (test: () => boolean) => {
    while (!test()) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { activity, held, send, until };
}

describe('write activity', () => {
  it('counts writes until their answer ends, not reads; quiet waits for the last write', async () => {
    const s = await serve();
    expect(s.activity.inFlight()).toBe(0);
    await s.activity.quiet(10_000);
    s.send('GET');
    s.send('POST');
    s.send('PUT');
    await s.until(() => s.held.length === 2);
    expect(s.activity.inFlight()).toBe(2);
    let quiet = false;
    const waited = s.activity.quiet(10_000).then(() => {
      quiet = true;
    });
    s.held[0]!.end('ok');
    await s.until(() => s.activity.inFlight() === 1);
    expect(quiet).toBe(false);
    s.held[1]!.end('ok');
    await waited;
    expect(s.activity.inFlight()).toBe(0);
  });

  it('a write that never ends does not hold the waiter past its bound', async () => {
    const s = await serve();
    s.send('DELETE');
    await s.until(() => s.held.length === 1);
    const started = Date.now();
    await s.activity.quiet(30);
    expect(s.activity.inFlight()).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    // A client that goes away ends its write too.
    s.held[0]!.destroy();
    await s.until(() => s.activity.inFlight() === 0);
  });
});
