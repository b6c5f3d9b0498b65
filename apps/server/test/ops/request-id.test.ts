import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { scriptedFaults, throwing, unavailableError } from '@mdstore/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startingGate } from '../../src/http/starting.js';
import { parseRawResponse, rawExchange } from '../support/http-harness.js';
import { startTestServer, type TestServer, uploadBody } from './support.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let running: TestServer | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  running = await startTestServer(options);
  return running;
}

describe('X-Request-Id', () => {
  it("echoes a client's well-formed id on every kind of answer", async () => {
    const t = await start();
    const { apiKey } = await t.account();
    const auth = { Authorization: `Bearer ${apiKey}` };
    const cases: Array<[string, RequestInit, number]> = [
      ['/healthz', {}, 200],
      ['/readyz', {}, 200],
      ['/healthz', { method: 'HEAD' }, 200],
      ['/api/projects', { headers: auth }, 200],
      ['/api/projects', {}, 401],
      ['/api/nothing', { headers: auth }, 404],
      ['/nothing', {}, 404],
      ['/api/projects', { method: 'PATCH', headers: auth }, 405],
      ['/api/projects/not-a-uuid', { headers: auth }, 422],
      [
        '/api/projects',
        { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'x' },
        415,
      ],
    ];
    for (const [i, [path, init, status]] of cases.entries()) {
      const id = `client-${i}.A_b-${'x'.repeat(i)}`;
      const headers = new Headers(init.headers);
      headers.set('X-Request-Id', id);
      const response = await fetch(`${t.url}${path}`, { ...init, headers });
      await response.arrayBuffer();
      expect([path, response.status, response.headers.get('x-request-id')]).toEqual([path, status, id]);
    }
    const longest = 'a'.repeat(128);
    const response = await fetch(`${t.url}/healthz`, { headers: { 'X-Request-Id': longest } });
    expect(response.headers.get('x-request-id')).toBe(longest);
  });

  it('gives a new UUID when the client sends none, or one it may not choose', async () => {
    const t = await start();
    const hostile = [
      '',
      'a'.repeat(129),
      'with space',
      'semi;colon',
      '../../etc/passwd',
      '<script>alert(1)</script>',
      'caf\u00e9',
      'a,b',
      '"quoted"',
      'tab\there',
    ];
    const seen = new Set<string>();
    for (const value of [undefined, ...hostile]) {
      const response = await fetch(`${t.url}/healthz`, {
        headers: value === undefined ? {} : { 'X-Request-Id': value },
      });
      const id = response.headers.get('x-request-id') ?? '';
      expect(id, JSON.stringify(value)).toMatch(UUID);
      seen.add(id);
    }
    expect(seen.size).toBe(hostile.length + 1);
    // Raw bytes fetch would refuse to send, and two headers (which Node joins with ", ").
    for (const header of ['X-Request-Id: \u00ff\u00fe', 'X-Request-Id: good\r\nX-Request-Id: twice']) {
      const text = await rawExchange(
        Number(new URL(t.url).port),
        Buffer.from(`GET /healthz HTTP/1.1\r\nHost: x\r\n${header}\r\nConnection: close\r\n\r\n`, 'latin1'),
      );
      const answer = parseRawResponse(text);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-request-id')).toMatch(UUID);
    }
  });

  it('is on the answers written straight to the socket: parser errors, CONNECT, Expect', async () => {
    const t = await start();
    const port = Number(new URL(t.url).port);
    const raw = async (text: string) => parseRawResponse(await rawExchange(port, text));
    const malformed = await raw('GARBAGE\r\n\r\n');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-request-id')).toMatch(UUID);
    const tooBig = await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(tooBig.status).toBe(431);
    expect(tooBig.headers.get('x-request-id')).toMatch(UUID);
    const connect = await raw(
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\nX-Request-Id: tunnel-1\r\n\r\n',
    );
    expect(connect.status).toBe(405);
    expect(connect.headers.get('x-request-id')).toBe('tunnel-1');
    const expect417 = await raw(
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: magic\r\nX-Request-Id: exp-1\r\n\r\n',
    );
    expect(expect417.status).toBe(417);
    expect(expect417.headers.get('x-request-id')).toBe('exp-1');
  });

  it('is on every log line of the request: access log, server error and the core warnings', async () => {
    // The blob is written but the store reports a failure, and then cannot delete it: a 500, a core
    // warning ("reconciliation will remove it") and the error line, all while serving one request.
    const blobs = scriptedFaults([
      {
        method: 'put',
        action: throwing(() => unavailableError('injected: put acknowledgement lost'), 'after'),
      },
      { method: 'delete', action: throwing(() => unavailableError('injected: delete failed')) },
    ]);
    // No inline contents: every content goes to the blob store, where the faults are.
    const t = await start({ blobs, env: { MDSTORE_INLINE_MAX_BYTES: '0' } });
    const { apiKey, projectId } = await t.account();
    t.lines.length = 0;
    const response = await fetch(`${t.url}/api/projects/${projectId}/files`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'X-Request-Id': 'trace-500' },
      body: uploadBody('a.md', '# A\n'),
    });
    expect(response.status).toBe(500);
    expect(response.headers.get('x-request-id')).toBe('trace-500');
    await response.arrayBuffer();
    await expect.poll(() => t.logs().some((l) => l.msg === 'http request')).toBe(true);
    const lines = t.logs();
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        'Could not remove a replaced blob; reconciliation will remove it',
        'request failed',
        'http request',
      ]),
    );
    for (const line of lines) expect(line, JSON.stringify(line)).toMatchObject({ request_id: 'trace-500' });

    // Lines outside any request carry none.
    t.lines.length = 0;
    const other = await fetch(`${t.url}/healthz`);
    await other.arrayBuffer();
    await expect.poll(() => t.logs().length).toBeGreaterThan(0);
    expect(t.logs()[0]).toMatchObject({ msg: 'http request', request_id: other.headers.get('x-request-id') });
  });
});

describe('the start-up gate', () => {
  it('answers 503 with Retry-After and a request id until the app is ready, then hands over', async () => {
    const gate = startingGate({ secure: false });
    const server = http.createServer(gate.listener).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const starting = await fetch(`${url}/healthz`, { headers: { 'X-Request-Id': 'early-1' } });
      expect(starting.status).toBe(503);
      expect(starting.headers.get('retry-after')).toBe('1');
      expect(starting.headers.get('x-request-id')).toBe('early-1');
      expect(await starting.json()).toEqual({ detail: 'Service Unavailable: starting' });
      gate.open((_req, res) => res.end('ready'));
      const ready = await fetch(`${url}/healthz`);
      expect(await ready.text()).toBe('ready');
    } finally {
      server.close();
    }
  });
});
