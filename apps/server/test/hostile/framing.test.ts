import { describe, expect } from 'vitest';
import { BOUNDARY, multipartBody } from '../support/http-harness.js';
import {
  exchange,
  expectHealthy,
  type HostileContext,
  head,
  hostileTest,
  listedFiles,
  noConnectionsLeft,
  openSocket,
  settled,
  sleep,
  tempFiles,
} from './support.js';

const test = hostileTest();
/** Short deadlines so that slow clients are cut within a second or two. */
const slowClientTest = hostileTest({
  timeouts: { headersTimeoutMs: 800, requestTimeoutMs: 1500, checkIntervalMs: 100 },
});

const uploadPath = (ctx: HostileContext) => `/api/projects/${ctx.account.defaultProjectId}/files`;
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

async function expectNothingStored(ctx: HostileContext): Promise<void> {
  await settled(ctx);
  expect(await listedFiles(ctx)).toMatchObject({ files: [], total_count: 0, total_size_bytes: 0 });
  expect(await tempFiles(ctx)).toEqual([]);
}

/** Writes `text` one byte at a time, `everyMs` apart, until done or the socket is closed. */
async function trickle(socket: import('node:net').Socket, text: string, everyMs: number): Promise<number> {
  let sent = 0;
  for (const byte of Buffer.from(text)) {
    if (socket.destroyed || !socket.writable) break;
    socket.write(Buffer.of(byte));
    sent++;
    await sleep(everyMs);
  }
  return sent;
}

function receiveAll(socket: import('node:net').Socket) {
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { closed, text: () => Buffer.concat(received).toString('utf8') };
}

describe('hostile request framing', () => {
  test('a Content-Length shorter than the body: 400, nothing stored', async (ctx) => {
    const form = multipartBody([{ name: 'file', filename: 'short.md', data: '# short' }]);
    const lying = head(ctx, 'POST', uploadPath(ctx), {
      'Content-Type': MULTIPART,
      'Content-Length': form.body.byteLength - 20,
    });
    const { response } = await exchange(ctx, [lying, form.body]);
    expect(response?.status).toBe(400);
    await expectNothingStored(ctx);
    await expectHealthy(ctx);
  });

  test('a Content-Length longer than the body, then the client stops sending: no file, no 2xx', async (ctx) => {
    const form = multipartBody([{ name: 'file', filename: 'long.md', data: '# long' }]);
    const lying = head(ctx, 'POST', uploadPath(ctx), {
      'Content-Type': MULTIPART,
      'Content-Length': form.body.byteLength + 500,
    });
    const result = await exchange(ctx, [lying, form.body], { end: true });
    // The end of the stream in the middle of a declared body is a framing error of the HTTP parser.
    expect(result.response?.status).toBe(400);
    await noConnectionsLeft(ctx);
    await expectNothingStored(ctx);
    await expectHealthy(ctx);
  });

  test('both Content-Length and Transfer-Encoding: 400', async (ctx) => {
    const body = '5\r\n{"na\r\n0\r\n\r\n';
    const request = head(ctx, 'POST', '/api/projects', {
      'Content-Type': 'application/json',
      'Content-Length': 5,
      'Transfer-Encoding': 'chunked',
    });
    const { response } = await exchange(ctx, [request, body]);
    expect(response?.status).toBe(400);
    expect(JSON.parse(response!.body)).toEqual({ detail: 'Bad Request' });
    await expectHealthy(ctx);
  });

  test('oversize headers: 431', async (ctx) => {
    const request = head(ctx, 'GET', '/api/projects', { 'X-Junk': 'j'.repeat(40_000) });
    const { response } = await exchange(ctx, request);
    expect(response?.status).toBe(431);
    expect(JSON.parse(response!.body)).toEqual({ detail: 'Request Header Fields Too Large' });
    // Many small headers add up the same way.
    const many: Record<string, string> = {};
    for (let i = 0; i < 2000; i++) many[`X-H${i}`] = 'value';
    expect((await exchange(ctx, head(ctx, 'GET', '/api/projects', many))).response?.status).toBe(431);
    await expectHealthy(ctx);
  });

  slowClientTest('headers trickled one byte at a time are cut by the headers timeout', async (ctx) => {
    const socket = await openSocket(ctx.h.port);
    const { closed, text } = receiveAll(socket);
    const request = head(ctx, 'GET', '/api/projects', { 'X-Slow': 's'.repeat(200) });
    // 200 ms a byte: the whole head would take over 50 s; the server must give up long before.
    const sent = await Promise.race([trickle(socket, request, 200), closed.then(() => -1)]);
    await closed;
    expect(sent).toBe(-1);
    const answer = text();
    if (answer) expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    await noConnectionsLeft(ctx);
    await expectHealthy(ctx);
  });

  slowClientTest(
    'a body trickled one byte at a time is cut by the request timeout, temp file removed',
    async (ctx) => {
      const socket = await openSocket(ctx.h.port);
      const { closed, text } = receiveAll(socket);
      const form = multipartBody([{ name: 'file', filename: 'slow.md', data: `# slow\n${'s'.repeat(500)}` }]);
      socket.write(
        head(ctx, 'POST', uploadPath(ctx), {
          'Content-Type': MULTIPART,
          'Content-Length': form.body.byteLength,
        }),
      );
      // The part head at once, so the store opens its temp file, then the content byte by byte.
      const partHead = form.body.indexOf('\r\n\r\n') + 4;
      socket.write(form.body.subarray(0, partHead + 10));
      const sent = await Promise.race([
        trickle(socket, form.body.subarray(partHead + 10).toString('latin1'), 100),
        closed.then(() => -1),
      ]);
      await closed;
      expect(sent).toBe(-1);
      const answer = text();
      if (answer) expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      await noConnectionsLeft(ctx);
      await expectNothingStored(ctx);
      await expectHealthy(ctx);
    },
  );
});
