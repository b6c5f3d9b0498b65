import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../../src/composition/server.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/logger.js';
import { type Receiver, startReceiver } from './receiver.js';

/**
 * The server's wiring of webhooks (extensions §7): the delivery engine started on the composition's change
 * feed (the records store's outbox) and notifier, the transport from `MDSTORE_WEBHOOK_ALLOW_PRIVATE`, and
 * the delivery metrics.
 */
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function start(o: { env?: Record<string, string> }) {
  const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-webhooks-'));
  const lines: string[] = [];
  const sink = { write: (line: string) => lines.push(line) };
  const server: ServerProcess = await startServer({
    config: loadConfig({ MDSTORE_DATA_DIR: dir, PORT: '0', ...o.env }),
    logger: createLogger({ level: 'info', stdout: sink, stderr: sink }),
    shutdownGraceMs: 500,
  });
  stops.push(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const created = await server.runtime.store.accounts.create({ name: 'hooks' });
  const call = (route: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${server.url}${route}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${created.apiKey.apiKey}`, 'content-type': 'application/json' },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
  return { server, lines, call, accountId: created.account.id, projectId: created.defaultProject.id };
}

const receiver = async (): Promise<Receiver> => {
  const r = await startReceiver();
  stops.push(() => r.close());
  return r;
};

describe('webhooks in the server', () => {
  it('delivers a committed change to a loopback receiver, logs the attempt and counts it', async () => {
    const r = await receiver();
    const s = await start({
      env: { MDSTORE_WEBHOOK_ALLOW_PRIVATE: 'true', MDSTORE_METRICS_PORT: '0' },
    });
    const created = await s.call('/api/webhooks', { method: 'POST', body: { url: `${r.url}/in` } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // A real commit: its event goes out of the store's outbox.
    const project = await s.call('/api/projects', { method: 'POST', body: { name: 'Hooked' } });
    expect(project.status).toBe(201);
    const { id: projectId } = (await project.json()) as { id: string };
    await expect.poll(() => r.received.length, { timeout: 5000 }).toBe(1);
    const body = JSON.parse(r.received[0]?.body ?? '') as { type: string; data: Record<string, unknown> };
    expect(body).toMatchObject({ type: 'project.created', data: { project_id: projectId, filename: null } });
    const seq = body.data.seq as number;
    expect(r.received[0]?.headers['webhook-id']).toBe(`msg_${id}_${seq}`);
    await expect
      .poll(
        async () =>
          ((await (await s.call(`/api/webhooks/${id}/deliveries`)).json()) as { deliveries: unknown[] })
            .deliveries,
      )
      .toEqual([
        {
          event_seq: seq,
          attempt: 1,
          status_code: 200,
          error: null,
          duration_ms: expect.any(Number),
          date: expect.stringMatching(/Z$/),
        },
      ]);
    const metrics = await (await fetch(s.server.metricsUrl!)).text();
    expect(metrics).toMatch(/^mdstore_webhook_deliveries_total\{outcome="success"\} 1$/m);
    expect(metrics).toMatch(/^mdstore_webhook_deliveries_total\{outcome="failure"\} 0$/m);
    expect(metrics).toMatch(/^mdstore_webhook_lag_seconds_count 1$/m);
  });

  it('refuses loopback targets unless MDSTORE_WEBHOOK_ALLOW_PRIVATE=true', async () => {
    const s = await start({});
    const refused = await s.call('/api/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/in' } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { detail: { loc: string[]; msg: string }[] }).detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'url'],
        msg: 'Value error, url host resolves to a loopback address',
      }),
    ]);
  });
});
