import { scriptedFaults, throwing, unavailableError } from '@mdstore/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRawResponse, rawExchange } from '../support/http-harness.js';
import { startTestServer, type TestServer, uploadBody } from './support.js';

const TOKEN = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const FILE_ROUTE = '/api/projects/:project_id/files/:filename';

let running: TestServer | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** `name{labels} value` lines of a Prometheus text exposition, labels as an object. */
function samples(text: string) {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g))
        labels[pair[1]!] = pair[2]!;
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

function value(
  all: ReturnType<typeof samples>,
  name: string,
  labels: Record<string, string>,
): number | undefined {
  return all.find((s) => s.name === name && Object.entries(labels).every(([key, v]) => s.labels[key] === v))
    ?.value;
}

describe('the metrics listener', () => {
  it('is off unless MDSTORE_METRICS_PORT is set', async () => {
    running = await startTestServer();
    expect(running.server.metricsUrl).toBeUndefined();
  });

  it('counts requests by route template, method and status, with latency, bytes, transactions and reconciliations', async () => {
    // One transaction fails inside its work (a metadata update), so that it rolls back.
    const records = scriptedFaults([
      { method: 'tx.updateFile', action: throwing(() => unavailableError()), times: 1 },
    ]);
    running = await startTestServer({ env: { MDSTORE_METRICS_PORT: '0' }, records });
    const metricsUrl = running.server.metricsUrl!;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const { apiKey, projectId } = await running.account();
    const auth = { Authorization: `Bearer ${apiKey}` };
    const api = `${running.url}/api/projects`;
    const content = `# Big\n${'x'.repeat(20_000)}\n`;
    const call = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, init);
      await response.arrayBuffer();
      return response.status;
    };
    expect(await call(api, { headers: auth })).toBe(200);
    expect(await call(api, { headers: auth })).toBe(200);
    expect(
      await call(`${api}/${projectId}/files`, {
        method: 'POST',
        headers: auth,
        body: uploadBody('big.md', content),
      }),
    ).toBe(201);
    expect(
      await call(`${api}/${projectId}/files`, {
        method: 'POST',
        headers: auth,
        body: uploadBody('big.md', '# again\n'),
      }),
    ).toBe(409);
    expect(await call(`${api}/${projectId}/files/big.md`, { headers: auth })).toBe(200);
    const metadata = JSON.stringify({ metadata: { a: 1 } });
    const json = { ...auth, 'Content-Type': 'application/json' };
    expect(
      await call(`${api}/${projectId}/files/big.md`, { method: 'PUT', headers: json, body: metadata }),
    ).toBe(500);
    expect(await call(`${api}/${projectId}/files/missing.md`, { headers: auth })).toBe(404);
    expect(await call(`${api}/${projectId}/files/secret-name.md`)).toBe(401);
    expect(await call(`${running.url}/no/such/path`)).toBe(404);
    expect(await call(`${running.url}/healthz`, { method: 'DELETE' })).toBe(405);
    // Extensions §7: the account's default project and the upload; the rolled-back update wrote none.
    const feed = (await (await fetch(`${running.url}/api/changes`, { headers: auth })).json()) as {
      changes: Array<{ type: string }>;
    };
    expect(feed.changes.map((e) => e.type)).toEqual(['project.created', 'file.created']);

    const scrape = await fetch(metricsUrl);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await scrape.text();
    const all = samples(text);
    const requests = (labels: Record<string, string>) => value(all, 'mdstore_http_requests_total', labels);
    expect(requests({ method: 'GET', route: '/api/projects', status: '200' })).toBe(2);
    expect(requests({ method: 'POST', route: '/api/projects/:project_id/files', status: '201' })).toBe(1);
    expect(requests({ method: 'POST', route: '/api/projects/:project_id/files', status: '409' })).toBe(1);
    expect(requests({ method: 'GET', route: FILE_ROUTE, status: '200' })).toBe(1);
    expect(requests({ method: 'GET', route: FILE_ROUTE, status: '404' })).toBe(1);
    // Refused before routing, still named by its template.
    expect(requests({ method: 'GET', route: FILE_ROUTE, status: '401' })).toBe(1);
    expect(requests({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(requests({ method: 'DELETE', route: '/healthz', status: '405' })).toBe(1);
    // Never a raw path: no id or filename in any label.
    expect(text).not.toContain(projectId);
    expect(text).not.toMatch(/big\.md|missing\.md|secret-name|no\/such/);

    const histogram = (suffix: string, labels: Record<string, string>) =>
      value(all, `mdstore_http_request_duration_seconds_${suffix}`, labels);
    const get200 = { method: 'GET', route: '/api/projects', status: '200' };
    expect(histogram('count', get200)).toBe(2);
    expect(histogram('bucket', { ...get200, le: '+Inf' })).toBe(2);
    expect(histogram('sum', get200)).toBeGreaterThan(0);

    const upload = { method: 'POST', route: '/api/projects/:project_id/files' };
    expect(value(all, 'mdstore_http_request_bytes_total', upload)).toBeGreaterThan(content.length);
    const download = { method: 'GET', route: FILE_ROUTE, status: '200' };
    expect(value(all, 'mdstore_http_response_bytes_total', download)).toBeGreaterThan(content.length);
    expect(value(all, 'mdstore_http_response_bytes_total', get200)).toBeLessThan(content.length);

    expect(
      value(all, 'mdstore_store_transaction_duration_seconds_count', { outcome: 'commit' }),
    ).toBeGreaterThan(2);
    expect(requests({ method: 'PUT', route: FILE_ROUTE, status: '500' })).toBe(1);
    expect(
      value(all, 'mdstore_store_transaction_duration_seconds_count', { outcome: 'rollback' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(all, 'mdstore_reconciliation_runs_total', { outcome: 'ok' })).toBe(1);
    expect(value(all, 'mdstore_reconciliation_runs_total', { outcome: 'failed' })).toBe(0);
    expect(value(all, 'mdstore_reconciliation_items_total', { kind: 'intents_resolved' })).toBe(0);
    expect(value(all, 'mdstore_change_events_total', {})).toBe(2);
    expect(value(all, 'mdstore_change_streams_open', {})).toBe(0);
    // prom-client's process and Node.js metrics.
    expect(value(all, 'process_cpu_user_seconds_total', {})).toBeGreaterThan(0);
    expect(value(all, 'nodejs_heap_size_used_bytes', {})).toBeGreaterThan(0);

    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
    const post = await fetch(metricsUrl, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('on a non-loopback host, answers only with the bearer token', async () => {
    running = await startTestServer({
      env: { MDSTORE_METRICS_PORT: '0', MDSTORE_METRICS_HOST: '0.0.0.0', MDSTORE_METRICS_TOKEN: TOKEN },
    });
    // Listening on every address; reached here through loopback.
    const url = running.server.metricsUrl!.replace('0.0.0.0', '127.0.0.1');
    const scrape = (authorization?: string) =>
      fetch(url, authorization === undefined ? {} : { headers: { Authorization: authorization } });
    for (const refused of [
      undefined,
      `Bearer ${TOKEN.slice(0, -1)}x`,
      `Bearer ${TOKEN}0`,
      `Basic ${TOKEN}`,
      'Bearer',
    ]) {
      const response = await scrape(refused);
      expect([refused, response.status, response.headers.get('www-authenticate')]).toEqual([
        refused,
        401,
        'Bearer',
      ]);
      expect(await response.json()).toEqual({ detail: 'Invalid authentication credentials' });
    }
    const ok = await scrape(`bearer ${TOKEN}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('mdstore_http_requests_total');
    // Two Authorization headers are refused, even if one is right.
    const port = Number(new URL(url).port);
    const twice = parseRawResponse(
      await rawExchange(
        port,
        `GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
      ),
    );
    expect(twice.status).toBe(401);
  });
});
