import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRetryAfterSeconds } from '../src/errors.js';
import { createClient, MdStoreApiError, type RetryEvent } from '../src/index.js';
import { retryDelayMs, retryPolicy } from '../src/retry.js';
import { startRealServer } from './support/server.js';

/** A real HTTP server whose answers a test scripts: each request takes the next answer of the list. */
async function scripted(answers: Array<(res: ServerResponse) => void>) {
  const seen: Array<{ method: string; url: string; body: string; at: number }> = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      body: Buffer.concat(chunks).toString(),
      at: Date.now(),
    });
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
    answer(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { url, seen };
}
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

const status =
  (code: number, headers: Record<string, string> = {}, body = { detail: `status ${code}` }) =>
  (res: ServerResponse) => {
    res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const ok = status(200, {}, { projects: [], total_count: 0 } as never);

describe('retries', () => {
  it('429 and 503 are sent again after Retry-After, and the answer that follows is returned', async () => {
    const { url, seen } = await scripted([
      status(503, { 'Retry-After': '1' }),
      status(429, { 'Retry-After': '0' }),
      ok,
    ]);
    const events: RetryEvent[] = [];
    const client = createClient({ baseUrl: url, apiKey: 'k', retry: { onRetry: (e) => events.push(e) } });
    expect(await client.projects.list()).toEqual({ projects: [], total_count: 0 });
    expect(seen).toHaveLength(3);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(events.map((e) => [e.status, e.attempt, e.delayMs])).toEqual([
      [503, 1, 1000],
      [429, 2, 0],
    ]);
  });

  it('retries are bounded: after `retries` more tries the error is thrown', async () => {
    const { url, seen } = await scripted([status(503, { 'Retry-After': '0' })]);
    const client = createClient({ baseUrl: url, retry: { retries: 2 } });
    await expect(client.projects.list()).rejects.toMatchObject({ status: 503, retryAfterSeconds: 0 });
    expect(seen).toHaveLength(3);
  });

  it('a Retry-After beyond maxDelayMs is not waited for', async () => {
    const { url, seen } = await scripted([status(429, { 'Retry-After': '3600' })]);
    const client = createClient({ baseUrl: url, retry: { maxDelayMs: 10_000 } });
    const started = Date.now();
    const error = await client.projects.list().catch((e) => e);
    expect(error).toBeInstanceOf(MdStoreApiError);
    expect(error.retryAfterSeconds).toBe(3600);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('retry: false (client-wide or per call) sends once', async () => {
    const { url, seen } = await scripted([status(503, { 'Retry-After': '0' }), ok]);
    await expect(createClient({ baseUrl: url, retry: false }).projects.list()).rejects.toMatchObject({
      status: 503,
    });
    expect(seen).toHaveLength(1);
    await expect(createClient({ baseUrl: url }).projects.list({ retry: false })).resolves.toMatchObject({
      total_count: 0,
    });
  });

  it('other statuses are not retried', async () => {
    const { url, seen } = await scripted([status(500, { 'Retry-After': '0' }), ok]);
    await expect(createClient({ baseUrl: url }).projects.list()).rejects.toMatchObject({ status: 500 });
    expect(seen).toHaveLength(1);
  });

  it('a replayable upload is sent again whole; a streamed one is never sent twice', async () => {
    const created = {
      filename: 'a.md',
      project_id: 'p',
    };
    const { url, seen } = await scripted([
      status(503, { 'Retry-After': '0' }),
      status(201, {}, created as never),
    ]);
    const client = createClient({ baseUrl: url });
    await client.files.upload('00000000-0000-4000-8000-000000000000', 'a.md', '# replayed\n');
    expect(seen).toHaveLength(2);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(seen[1]!.body).toContain('# replayed\n');
    const streamed = await scripted([status(503, { 'Retry-After': '0' }), status(201, {}, created as never)]);
    const streaming = createClient({ baseUrl: streamed.url });
    await expect(
      streaming.files.upload(
        '00000000-0000-4000-8000-000000000000',
        'a.md',
        Readable.from([Buffer.from('x')]),
      ),
    ).rejects.toMatchObject({ status: 503 });
    expect(streamed.seen).toHaveLength(1);
  });

  it('an abort during the wait ends the call at once', async () => {
    const { url } = await scripted([status(503, { 'Retry-After': '20' })]);
    const controller = new AbortController();
    const call = createClient({ baseUrl: url }).projects.list({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('gave up')), 200);
    const started = Date.now();
    await expect(call).rejects.toThrow('gave up');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('without Retry-After the wait doubles from baseDelayMs, with jitter within [d/2, d]', () => {
    const policy = retryPolicy({ baseDelayMs: 100, retries: 3 });
    const response = new Response(null, { status: 503 });
    expect(retryDelayMs(policy, response, 1, () => 0)).toBe(50);
    expect(retryDelayMs(policy, response, 1, () => 1)).toBe(100);
    expect(retryDelayMs(policy, response, 3, () => 1)).toBe(400);
    expect(retryDelayMs(policy, response, 4, () => 1)).toBeUndefined();
    expect(retryDelayMs(policy, new Response(null, { status: 502 }), 1)).toBeUndefined();
  });

  it('Retry-After is read as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterSeconds('120', now)).toBe(120);
    expect(parseRetryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfterSeconds('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterSeconds('soon', now)).toBeUndefined();
    expect(parseRetryAfterSeconds(null, now)).toBeUndefined();
  });

  it('a real server whose hourly budget is spent answers 429 with Retry-After; the SDK does not wait an hour', async () => {
    const real = await startRealServer({ MDSTORE_RATE_LIMIT_STANDARD: '2' });
    try {
      const account = await real.account();
      const client = createClient({ baseUrl: real.url, apiKey: account.apiKey });
      await client.projects.list();
      await client.projects.list();
      const error = await client.projects.list().catch((e) => e);
      expect(error).toBeInstanceOf(MdStoreApiError);
      expect(error.status).toBe(429);
      expect(error.retryAfterSeconds).toBeGreaterThan(3000);
      expect(error.detail).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
    } finally {
      await real.stop();
    }
  });
});
