import http from 'node:http';
import https from 'node:https';
import { connect } from 'node:net';
import { createMdStore } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/index.js';
import { startHttpServer } from '../../src/http/server.js';
import { memoryAdapters } from '../support/adapters.js';
import { collectingLogger, parseRawResponse, serverTest } from '../support/http-harness.js';
import { selfSignedCertificate } from '../support/tls.js';

const test = serverTest();

describe('routing and error shape', () => {
  test('unknown paths outside /api are 404 JSON without a key', async (h) => {
    // `/` is the console (extensions §11), tested in test/console.
    for (const path of ['/nope', '/API/projects', '/apiary']) {
      const response = await h.fetch(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ detail: 'Not Found' });
    }
  });

  test('a method a path does not have is 405 JSON with Allow', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/projects', 'GET, HEAD, POST'],
      ['PATCH', `/api/projects/${defaultProjectId}`, 'GET, HEAD, PUT, DELETE'],
      ['PUT', `/api/projects/${defaultProjectId}/files`, 'GET, HEAD, POST'],
      ['POST', `/api/projects/${defaultProjectId}/files/a.md`, 'GET, HEAD, PUT, DELETE, PATCH'],
      ['POST', `/api/projects/${defaultProjectId}/files/a.md/content`, 'PUT'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await h.fetch(path, { method, key: apiKey });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(await response.json()).toEqual({ detail: 'Method Not Allowed' });
      expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
    const health = await h.fetch('/healthz', { method: 'POST' });
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET, HEAD');
  });

  test('trailing slashes are tolerated; HEAD answers headers only', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    expect((await h.fetch('/api/projects/', { key: apiKey })).status).toBe(200);
    await h.uploadFile(apiKey, defaultProjectId, 'h.md', '# head');
    const head = await h.fetch(`/api/projects/${defaultProjectId}/files/h.md`, {
      method: 'HEAD',
      key: apiKey,
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('6');
    expect(await head.text()).toBe('');
  });

  test('every answer carries X-Content-Type-Options: nosniff and no X-Powered-By', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'n.md', '# n');
    const responses = [
      await h.fetch('/healthz'),
      await h.fetch('/nope'),
      await h.fetch('/api/projects'),
      await h.fetch('/api/projects', { key: apiKey }),
      await h.fetch(`/api/projects/${defaultProjectId}/files/n.md`, { key: apiKey }),
    ];
    for (const response of responses) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-powered-by')).toBeNull();
      expect(response.headers.get('strict-transport-security')).toBeNull();
    }
  });

  test('the parser refusing a request line is a raw 400 JSON answer', async (h) => {
    const response = parseRawResponse(await h.raw('GARBAGE\r\n\r\n'));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(JSON.parse(response.body)).toEqual({ detail: 'Bad Request' });
    const smuggled = parseRawResponse(
      await h.raw(
        'POST /api/projects HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ),
    );
    expect(smuggled.status).toBe(400);
    const badHeader = parseRawResponse(await h.raw('GET / HTTP/1.1\r\nHo st: x\r\n\r\n'));
    expect(badHeader.status).toBe(400);
  });

  test('oversize headers are a raw 431 JSON answer', async (h) => {
    const response = parseRawResponse(
      await h.raw(`GET /api/projects HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body)).toEqual({ detail: 'Request Header Fields Too Large' });
  });

  test('bad percent-encoding in a path is 400 in the validation shape', async (h) => {
    const { apiKey } = await h.account();
    const response = await h.fetch('/api/projects/%ZZ', { key: apiKey });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { detail: Array<{ loc: unknown[] }> };
    expect(body.detail[0]!.loc).toEqual(['path']);
  });

  it('a server failure is 500 Internal Server Error without internals, and is logged', async () => {
    const adapters = await memoryAdapters();
    const records = new Proxy(adapters.records, {
      get(target, property, receiver) {
        if (property === 'listProjects') {
          return async () => {
            throw new Error('database exploded at /var/lib/secret');
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const store = createMdStore({ records, blobs: adapters.blobs, rateLimiter: adapters.rateLimiter });
    const { lines, logger } = collectingLogger();
    const app = createHttpApp({ store, logger, trustProxy: false, tls: false });
    const server = await startHttpServer({ app, host: '127.0.0.1', port: 0, logger });
    try {
      const { apiKey } = (await store.accounts.create({ name: 'boom' })).apiKey;
      const response = await fetch(`${server.url}/api/projects`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ detail: 'Internal Server Error' });
      expect(text).not.toContain('secret');
      expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
      const logged = lines.find((line) => line.level === 'error');
      expect(JSON.stringify(logged)).toContain('database exploded');
      expect(JSON.stringify(lines)).not.toContain(apiKey);
    } finally {
      await server.close();
      await adapters.close();
    }
  });
});

describe('behind a trusted proxy', () => {
  const proxied = serverTest({ app: { trustProxy: true } });

  proxied('X-Forwarded-Proto: http is redirected with 308 to the same path and query on https', async (h) => {
    const response = await h.fetch('/api/projects?a=1&b=%20', {
      method: 'POST',
      headers: { 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'docs.example.com' },
    });
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('https://docs.example.com/api/projects?a=1&b=%20');
  });

  proxied('X-Forwarded-Proto: https is served, with Strict-Transport-Security', async (h) => {
    const { apiKey } = await h.account();
    const response = await h.fetch('/api/projects', {
      key: apiKey,
      headers: { 'X-Forwarded-Proto': 'https' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
  });
});

describe('behind a trusted proxy, the client address', () => {
  const proxied = serverTest({ app: { trustProxy: true }, settings: { authFailureLimit: 2 } });

  proxied(
    'is the address the proxy appended, so a forged X-Forwarded-For cannot dodge the throttle',
    async (h) => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 4; attempt++) {
        const response = await h.fetch('/api/projects', {
          key: 'wrong-key',
          // The client forges the first address; the one proxy in front appends the real one.
          headers: { 'X-Forwarded-For': `198.51.100.${attempt}, 203.0.113.7` },
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([401, 401, 429, 429]);
      const other = await h.fetch('/api/projects', {
        key: 'wrong-key',
        headers: { 'X-Forwarded-For': '203.0.113.8' },
      });
      expect(other.status).toBe(401);
    },
  );
});

describe('TLS', () => {
  it('serves HTTPS with HSTS, and the plain listener redirects everything with 308', async () => {
    const tls = selfSignedCertificate();
    const adapters = await memoryAdapters();
    const store = createMdStore({
      records: adapters.records,
      blobs: adapters.blobs,
      rateLimiter: adapters.rateLimiter,
    });
    const { logger } = collectingLogger();
    const app = createHttpApp({ store, logger, trustProxy: false, tls: true });
    const server = await startHttpServer({ app, host: '127.0.0.1', port: 0, tls, redirectPort: 0, logger });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const secure = await new Promise<http.IncomingMessage>((resolve, reject) => {
        https.get(`${server.url}/healthz`, { ca: tls.cert }, resolve).on('error', reject);
      });
      expect(secure.statusCode).toBe(200);
      expect(secure.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
      secure.resume();

      const redirected = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const request = http.request(`${server.redirectUrl}/api/projects?x=1`, { method: 'PUT' }, resolve);
        request.on('error', reject);
        request.end('{"name":"x"}');
      });
      expect(redirected.statusCode).toBe(308);
      expect(redirected.headers.location).toBe(`${server.url}/api/projects?x=1`);
      redirected.resume();
    } finally {
      await server.close();
      await adapters.close();
    }
  });
});

describe('graceful close', () => {
  it('lets a request in flight finish, then stops accepting connections', async () => {
    const adapters = await memoryAdapters();
    const store = createMdStore({
      records: adapters.records,
      blobs: adapters.blobs,
      rateLimiter: adapters.rateLimiter,
    });
    const { logger } = collectingLogger();
    const app = createHttpApp({ store, logger, trustProxy: false, tls: false });
    const server = await startHttpServer({ app, host: '127.0.0.1', port: 0, logger, shutdownGraceMs: 5000 });
    const port = Number(new URL(server.url).port);
    const { apiKey } = (await store.accounts.create({ name: 'closing' })).apiKey;
    const body = '{"name":"late"}';
    const socket = connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    const ended = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.write(
      `POST /api/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = server.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(body.slice(5));
    await closed;
    await ended;
    const response = parseRawResponse(Buffer.concat(received).toString('utf8'));
    expect(response.status).toBe(201);
    expect(response.headers.get('connection')).toBe('close');
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    await adapters.close();
  });
});
