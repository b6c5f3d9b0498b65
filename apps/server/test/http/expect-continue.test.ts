import type { Socket } from 'node:net';
import { describe, expect } from 'vitest';
import { DEFAULT_MULTIPART_LIMITS } from '../../src/http/multipart.js';
import { multipartAllowance } from '../../src/http/request-body.js';
import { openSocket, parseResponse, type RawResponse } from '../hostile/support.js';
import { projectWithFile } from '../support/conditional.js';
import { type HttpHarness, multipartBody, serverTest } from '../support/http-harness.js';

/**
 * `Expect: 100-continue` (extensions §2) over raw sockets: an answer that does not depend on the body
 * goes out as the final answer without `100 Continue`, while the client still holds its body back (so
 * the body is provably never read); a request that may succeed is told to continue, and only then.
 */
const MAX = 1024; // TEST_SETTINGS.maxFileBytes
const test = serverTest();
const limitedTest = serverTest({ settings: { rateLimits: { standard: 2, premium: 2 } } });

const CONTINUE = /^HTTP\/1\.1 100 Continue\r\n\r\n/;

interface Conversation {
  readonly socket: Socket;
  /** Everything the server wrote so far. */
  text(): string;
  /** Resolves once `pattern` matches what the server wrote (rejects after `ms`). */
  until(pattern: RegExp, ms?: number): Promise<string>;
  /** Resolves once the server has closed the connection. */
  readonly closed: Promise<void>;
}

async function converse(h: HttpHarness, head: string): Promise<Conversation> {
  const socket = await openSocket(h.port);
  const received: Buffer[] = [];
  const waiters: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    received.push(chunk);
    for (const wake of waiters.splice(0)) wake();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const text = () => Buffer.concat(received).toString('utf8');
  socket.write(head);
  return {
    socket,
    text,
    closed,
    until: async (pattern, ms = 5_000) => {
      const deadline = Date.now() + ms;
      while (!pattern.test(text())) {
        if (Date.now() > deadline)
          throw new Error(`no ${pattern} within ${ms} ms; got ${JSON.stringify(text())}`);
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), closed, sleep(50)]);
      }
      return text();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function requestHead(
  method: string,
  path: string,
  headers: Record<string, string | number>,
  key: string | undefined,
): string {
  let head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n`;
  if (key !== undefined) head += `Authorization: Bearer ${key}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return `${head}\r\n`;
}

/**
 * Sends the head only, never the body, and expects the final answer `status` at once: no `100 Continue`
 * before it, the connection closed after it (the client may still send the body, RFC 9110 §10.1.1).
 */
async function expectFinalWithoutBody(
  h: HttpHarness,
  o: { method: string; path: string; key?: string; headers: Record<string, string | number>; status: number },
): Promise<RawResponse> {
  const conversation = await converse(h, requestHead(o.method, o.path, o.headers, o.key));
  const text = await conversation.until(/\r\n\r\n[\s\S]*\}$/);
  await conversation.closed;
  conversation.socket.destroy();
  expect(text, `${o.method} ${o.path}`).not.toMatch(/100 Continue/);
  const response = parseResponse(text)!;
  expect(response.status, `${o.method} ${o.path}: ${text}`).toBe(o.status);
  expect(response.headers.get('connection')).toBe('close');
  expect(JSON.parse(response.body)).toHaveProperty('detail');
  return response;
}

describe('Expect: 100-continue', () => {
  test('a request that may succeed gets 100 Continue, then its answer once the body is sent', async (h) => {
    const s = await projectWithFile(h, '# before');
    const body = '# after';
    const conversation = await converse(
      h,
      requestHead(
        'PUT',
        `${s.path}/content`,
        { 'Content-Type': 'text/markdown', 'Content-Length': body.length, 'If-Match': s.file.etag },
        s.apiKey,
      ),
    );
    await conversation.until(CONTINUE);
    conversation.socket.write(body);
    const text = await conversation.until(/HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n\{[\s\S]*\}$/);
    conversation.socket.destroy();
    expect(text.match(/100 Continue/g)).toHaveLength(1);
    const download = await h.fetch(s.path, { key: s.apiKey });
    expect(await download.text()).toBe(body);
  });

  test('401, path 422, project 404 and 403, file 404: the final answer, without 100 Continue', async (h) => {
    const s = await projectWithFile(h);
    const other = await h.account();
    const content = { 'Content-Type': 'text/markdown', 'Content-Length': 10 };
    const json = { 'Content-Type': 'application/json', 'Content-Length': 20 };
    const cases: Array<[string, string, string | undefined, Record<string, string | number>, number]> = [
      ['PUT', `${s.path}/content`, undefined, content, 401],
      ['PUT', '/api/projects/nope/files/doc.md/content', s.apiKey, content, 422],
      [
        'PUT',
        `/api/projects/3f1c5b9e-8d2a-4c7b-9e1f-2a3b4c5d6e7f/files/doc.md/content`,
        s.apiKey,
        content,
        404,
      ],
      ['PUT', `${s.path}/content`, other.apiKey, content, 403],
      ['PUT', `/api/projects/${s.projectId}/files/none.md/content`, s.apiKey, content, 404],
      ['PUT', `/api/projects/${s.projectId}/files/none.md`, s.apiKey, json, 404],
      ['PUT', `/api/projects/3f1c5b9e-8d2a-4c7b-9e1f-2a3b4c5d6e7f`, s.apiKey, json, 404],
      [
        'POST',
        `/api/projects/${s.projectId}/files`,
        other.apiKey,
        { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': 200 },
        403,
      ],
      [
        'POST',
        '/api/projects/nope/files',
        s.apiKey,
        { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': 200 },
        422,
      ],
    ];
    for (const [method, path, key, headers, status] of cases) {
      await expectFinalWithoutBody(h, { method, path, key, headers, status });
    }
    expect(await (await h.fetch(s.path, { key: s.apiKey })).text()).toBe('# hello\n');
  });

  limitedTest('429 once the budget is spent: the final answer, without 100 Continue', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    for (let i = 0; i < 2; i++) await (await h.fetch('/api/projects', { key: apiKey })).arrayBuffer();
    const response = await expectFinalWithoutBody(h, {
      method: 'POST',
      path: `/api/projects/${defaultProjectId}/files`,
      key: apiKey,
      headers: { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': 500 },
      status: 429,
    });
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  test('412 and 428: the final answer, without 100 Continue', async (h) => {
    const s = await projectWithFile(h);
    const stale = { 'If-Match': '"stale"' };
    const failed = await expectFinalWithoutBody(h, {
      method: 'PUT',
      path: `${s.path}/content`,
      key: s.apiKey,
      headers: { ...stale, 'Content-Type': 'text/markdown', 'Content-Length': 10 },
      status: 412,
    });
    expect(failed.headers.get('etag')).toBe(s.file.etag);
    await expectFinalWithoutBody(h, {
      method: 'PUT',
      path: s.path,
      key: s.apiKey,
      headers: { ...stale, 'Content-Type': 'application/json', 'Content-Length': 16 },
      status: 412,
    });
    await expectFinalWithoutBody(h, {
      method: 'PUT',
      path: `/api/projects/${s.projectId}`,
      key: s.apiKey,
      headers: { ...stale, 'Content-Type': 'application/json', 'Content-Length': 16 },
      status: 412,
    });
    const settings = await h.json(`/api/projects/${s.projectId}`, 'PUT', s.apiKey, {
      settings: { require_if_match: true },
    });
    expect(settings.status).toBe(200);
    await settings.arrayBuffer();
    for (const [path, type] of [
      [`${s.path}/content`, 'text/markdown'],
      [s.path, 'application/json'],
    ] as const) {
      await expectFinalWithoutBody(h, {
        method: 'PUT',
        path,
        key: s.apiKey,
        headers: { 'Content-Type': type, 'Content-Length': 16 },
        status: 428,
      });
    }
  });

  test('415 and a malformed digest field: the final answer, without 100 Continue', async (h) => {
    const s = await projectWithFile(h);
    for (const [path, type] of [
      [`${s.path}/content`, 'text/plain'],
      [s.path, 'text/plain'],
      [`/api/projects/${s.projectId}`, 'text/plain'],
      ['/api/projects', 'text/plain'],
    ] as const) {
      await expectFinalWithoutBody(h, {
        method: path === '/api/projects' ? 'POST' : 'PUT',
        path,
        key: s.apiKey,
        headers: { 'Content-Type': type, 'Content-Length': 10 },
        status: 415,
      });
    }
    await expectFinalWithoutBody(h, {
      method: 'PUT',
      path: `${s.path}/content`,
      key: s.apiKey,
      headers: { 'Content-Type': 'text/markdown', 'Content-Length': 10, 'Content-Digest': 'sha-256=nope' },
      status: 400,
    });
  });

  test('413 for a declared length that cannot fit: content above the limit, JSON above 1 MiB, an upload above the limit plus the allowance', async (h) => {
    const s = await projectWithFile(h);
    const allowance = multipartAllowance(DEFAULT_MULTIPART_LIMITS);
    const cases: Array<[string, string, Record<string, string | number>]> = [
      ['PUT', `${s.path}/content`, { 'Content-Type': 'text/markdown', 'Content-Length': MAX + 1 }],
      ['PUT', s.path, { 'Content-Type': 'application/json', 'Content-Length': 1024 * 1024 + 1 }],
      [
        'PUT',
        `/api/projects/${s.projectId}`,
        { 'Content-Type': 'application/json', 'Content-Length': 1024 * 1024 + 1 },
      ],
      ['POST', '/api/projects', { 'Content-Type': 'application/json', 'Content-Length': 1024 * 1024 + 1 }],
      [
        'POST',
        `/api/projects/${s.projectId}/files`,
        { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': MAX + allowance + 1 },
      ],
    ];
    for (const [method, path, headers] of cases) {
      await expectFinalWithoutBody(h, { method, path, key: s.apiKey, headers, status: 413 });
    }
  });

  test('an upload declaring the limit plus the allowance may still succeed: it is told to continue', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const allowance = multipartAllowance(DEFAULT_MULTIPART_LIMITS);
    const conversation = await converse(
      h,
      requestHead(
        'POST',
        `/api/projects/${defaultProjectId}/files`,
        { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': MAX + allowance },
        apiKey,
      ),
    );
    await conversation.until(CONTINUE);
    conversation.socket.destroy();
    // A real upload with Expect: 100-continue goes through.
    const form = multipartBody([{ name: 'file', filename: 'c.md', data: '# continued' }]);
    const upload = await converse(
      h,
      requestHead(
        'POST',
        `/api/projects/${defaultProjectId}/files`,
        { 'Content-Type': form.contentType, 'Content-Length': form.body.length },
        apiKey,
      ),
    );
    await upload.until(CONTINUE);
    upload.socket.write(form.body);
    await upload.until(/HTTP\/1\.1 201 Created[\s\S]*\r\n\r\n\{[\s\S]*\}$/);
    upload.socket.destroy();
  });
});
