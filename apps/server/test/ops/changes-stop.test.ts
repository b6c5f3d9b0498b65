import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support.js';

let running: TestServer | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/**
 * Extensions §7 on stop: a held long poll is answered (empty) and a stream ends cleanly as soon as the
 * server stops, instead of being cut when the grace period runs out.
 */
describe('held change reads when the server stops', () => {
  it('a long poll is answered and a stream ends, both before the grace period cuts connections', async () => {
    running = await startTestServer();
    const { apiKey } = await running.account();
    const auth = { Authorization: `Bearer ${apiKey}` };
    const { next_since: since } = (await (
      await fetch(`${running.url}/api/changes`, { headers: auth })
    ).json()) as {
      next_since: number;
    };
    const held = fetch(`${running.url}/api/changes?since=${since}&wait=30`, { headers: auth });
    const stream = await fetch(`${running.url}/api/changes?since=${since}`, {
      headers: { ...auth, Accept: 'text/event-stream' },
    });
    const streamed = stream.text();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopping = running.stop();
    running = undefined;
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ changes: [], next_since: since });
    expect(await streamed).toMatch(/^: mdstore change feed/);
    await stopping;
  });
});
