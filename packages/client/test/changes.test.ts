import { beforeEach, describe, expect, it } from 'vitest';
import { createClient, MdStoreApiError, type MdStoreClient } from '../src/index.js';
import { useRealServer } from './support/server.js';

let client: MdStoreClient;
let projectId: string;
const scene = useRealServer();
beforeEach(() => {
  client = createClient({ baseUrl: scene.server.url, apiKey: scene.account.apiKey });
  projectId = scene.account.defaultProjectId;
});

describe('client.changes', () => {
  it('list reads a page after since', async () => {
    const start = (await client.changes.list({ limit: 1000 })).next_since;
    await client.files.upload(projectId, 'a.md', '# a\n');
    const page = await client.changes.list({ since: start });
    expect(page.changes.map((e) => [e.type, e.filename])).toEqual([['file.created', 'a.md']]);
    expect(page.next_since).toBe(page.changes[0]!.seq);
  });

  it('follow yields events as they commit and resumes after a dropped connection', async () => {
    const start = (await client.changes.list({ limit: 1000 })).next_since;
    // A fetch that fails the second poll as a dropped connection would.
    let polls = 0;
    const flaky: typeof fetch = (input, init) => {
      if (String(input).includes('/api/changes') && ++polls === 2) {
        return Promise.reject(new TypeError('fetch failed: connection reset'));
      }
      return fetch(input, init);
    };
    const follower = createClient({ baseUrl: scene.server.url, apiKey: scene.account.apiKey, fetch: flaky });
    const controller = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const event of follower.changes.follow({
        since: start,
        waitSeconds: 2,
        backoffMs: 50,
        signal: controller.signal,
      })) {
        seen.push(event.filename ?? '');
        if (seen.length === 3) controller.abort();
      }
    })();
    await client.files.upload(projectId, 'one.md', '1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.files.upload(projectId, 'two.md', '2');
    await client.files.upload(projectId, 'three.md', '3');
    await following;
    expect(seen).toEqual(['one.md', 'two.md', 'three.md']);
    expect(polls).toBeGreaterThanOrEqual(2);
  });

  it('follow throws what polling cannot mend (a project outside reach: 404)', async () => {
    const iterator = client.changes.follow({ projectId: '00000000-0000-4000-8000-000000000000' });
    await expect(iterator.next()).rejects.toBeInstanceOf(MdStoreApiError);
  });
});
