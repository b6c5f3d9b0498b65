import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect } from 'vitest';
import { BOUNDARY } from '../support/http-harness.js';
import {
  expectHealthy,
  type HostileContext,
  head,
  hostileTest,
  listedFiles,
  liveMemory,
  openSocket,
  parseResponse,
  settled,
  sleep,
} from './support.js';

const MiB = 1024 * 1024;
const tenMiBTest = hostileTest({ settings: { maxFileBytes: 10 * MiB } });
/** A small drain budget: what the server reads of a refused body is bounded by it. */
const smallDrainTest = hostileTest({ app: { drainLimits: { maxBytes: 256 * 1024, maxMs: 60_000 } } });
const test = hostileTest();

const memory = () => process.memoryUsage();

/** Writes `total` bytes of `fill` from one reused 64 KiB buffer, honouring backpressure. */
async function writeRepeated(socket: Socket, total: number, fill: number, stop: () => boolean) {
  const chunk = Buffer.alloc(64 * 1024, fill);
  let written = 0;
  while (written < total && !stop() && socket.writable) {
    const piece = chunk.subarray(0, Math.min(chunk.byteLength, total - written));
    written += piece.byteLength;
    if (!socket.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.once('drain', done);
        socket.once('close', done);
      });
    }
  }
  return written;
}

/** Collects what the server writes back; `response()` resolves once the socket closes or a body is whole. */
function collect(socket: Socket) {
  const received: Buffer[] = [];
  let closed = false;
  socket.on('error', () => {});
  const done = new Promise<void>((resolve) => {
    socket.on('close', () => {
      closed = true;
      resolve();
    });
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const response = parseResponse(Buffer.concat(received).toString('utf8'));
      const length = Number(response?.headers.get('content-length'));
      if (response && Buffer.byteLength(response.body) >= length) resolve();
    });
  });
  return {
    done,
    isClosed: () => closed,
    text: () => Buffer.concat(received).toString('utf8'),
  };
}

/** Uploads `size` bytes of one repeated letter over a raw socket, without ever holding the body. */
async function streamUpload(ctx: HostileContext, filename: string, size: number, letter: string) {
  const partHead =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
    'Content-Type: text/markdown\r\n\r\n';
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  const socket = await openSocket(ctx.h.port);
  const answer = collect(socket);
  socket.write(
    head(ctx, 'POST', `/api/projects/${ctx.account.defaultProjectId}/files`, {
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': partHead.length + size + tail.length,
    }),
  );
  socket.write(partHead);
  await writeRepeated(socket, size, letter.charCodeAt(0), answer.isClosed);
  socket.write(tail);
  await answer.done;
  socket.destroy();
  return parseResponse(answer.text());
}

describe('bounded resources', () => {
  tenMiBTest(
    'uploads stream: three concurrent 10 MiB uploads never hold anything like 30 MiB of buffers',
    async (ctx) => {
      // Warm up allocators, the thread pool and the SQLite caches first.
      expect((await streamUpload(ctx, 'warm.md', 10 * MiB, 'w'))?.status).toBe(201);
      const before = liveMemory();
      let peakBuffers = before.arrayBuffers;
      const sampler = setInterval(() => {
        peakBuffers = Math.max(peakBuffers, memory().arrayBuffers);
      }, 5);
      try {
        const results = await Promise.all(
          ['a', 'b', 'c'].map((letter) => streamUpload(ctx, `${letter}.md`, 10 * MiB, letter)),
        );
        expect(results.map((result) => result?.status)).toEqual([201, 201, 201]);
      } finally {
        clearInterval(sampler);
      }
      // Buffering the bodies would need at least 30 MiB of buffers at once; streaming needs a few chunks
      // each. (RSS is no signal here: it also holds this process's own client side and whatever the
      // garbage collector has not returned yet; the server's peak RSS under load is a benchmark row.)
      expect(peakBuffers - before.arrayBuffers).toBeLessThan(12 * MiB);
      await settled(ctx);
      const listed = await listedFiles(ctx);
      expect(listed.total_size_bytes).toBe(40 * MiB);
      await expectHealthy(ctx);
    },
  );

  tenMiBTest('a slow reader of a 10 MiB download does not make the server buffer it', async (ctx) => {
    expect((await streamUpload(ctx, 'big.md', 10 * MiB, 'd'))?.status).toBe(201);
    let serverResponse: ServerResponse | undefined;
    const capture = (_req: IncomingMessage, res: ServerResponse) => {
      serverResponse = res;
    };
    ctx.h.server.server.on('request', capture);
    const socket = await openSocket(ctx.h.port);
    socket.on('error', () => {});
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.byteLength;
      // The reader stalls after the first bytes and stays paused.
      if (received > 0) socket.pause();
    });
    const before = liveMemory();
    socket.write(head(ctx, 'GET', `/api/projects/${ctx.account.defaultProjectId}/files/big.md`));
    await sleep(1000);
    ctx.h.server.server.off('request', capture);
    expect(serverResponse).toBeDefined();
    const after = liveMemory();
    // What the server holds in user space for this answer: the response's and the socket's buffers.
    const buffered = serverResponse!.writableLength + (serverResponse!.socket?.writableLength ?? 0);
    expect(buffered).toBeLessThan(1 * MiB);
    // Holding the file would keep 10 MiB alive; streaming keeps a chunk or two.
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(2 * MiB);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(4 * MiB);
    // The client has far from everything (the kernel's socket buffers hold the rest in flight).
    expect(received).toBeLessThan(10 * MiB);
    // Resumed, the reader gets every byte.
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.removeAllListeners('data');
    socket.on('data', (chunk: Buffer) => {
      received += chunk.byteLength;
    });
    socket.resume();
    await closed;
    expect(received).toBeGreaterThan(10 * MiB);
    await expectHealthy(ctx);
  });

  smallDrainTest('a JSON body above 1 MiB is 413 without the server reading the rest', async (ctx) => {
    // Declared too large: refused from the header, and the body is not waited for.
    const declared = await openSocket(ctx.h.port);
    const declaredAnswer = collect(declared);
    declared.write(
      head(ctx, 'POST', '/api/projects', { 'Content-Type': 'application/json', 'Content-Length': 200 * MiB }),
    );
    declared.write('{"name":"');
    // The drain budget would allow a minute of waiting; the answer must not wait for a body that big.
    await Promise.race([declaredAnswer.done, sleep(10_000)]);
    const refused = parseResponse(declaredAnswer.text());
    expect(refused?.status).toBe(413);
    expect(refused?.headers.get('connection')).toBe('close');
    declared.destroy();

    // Chunked, with no length declared: the server stops after 1 MiB plus its drain budget.
    const chunked = await openSocket(ctx.h.port);
    const chunkedAnswer = collect(chunked);
    chunked.write(
      head(ctx, 'POST', '/api/projects', {
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
      }),
    );
    const piece = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x20), Buffer.from('\r\n')]);
    let sent = 0;
    const stop = () => chunkedAnswer.isClosed() || chunkedAnswer.text().length > 0;
    while (sent < 64 * MiB && !stop()) {
      sent += 0x10000;
      if (!chunked.write(piece))
        await Promise.race([new Promise((r) => chunked.once('drain', r)), sleep(200)]);
    }
    await chunkedAnswer.done;
    const tooLarge = parseResponse(chunkedAnswer.text());
    expect(tooLarge?.status).toBe(413);
    // The kernel buffers some megabytes in flight; 64 MiB was never read.
    expect(sent).toBeLessThan(32 * MiB);
    chunked.destroy();
    await expectHealthy(ctx);
  });

  test('a JSON body of exactly 1 MiB is read, one byte more is 413', async (ctx) => {
    const padding = (length: number) => `{"name":"limit","description":"${'d'.repeat(length - 33)}"}`;
    expect(padding(MiB).length).toBe(MiB);
    const exact = await ctx.h.fetch('/api/projects', {
      method: 'POST',
      key: ctx.account.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: padding(MiB),
    });
    expect(exact.status).toBe(201);
    const over = await ctx.h.fetch('/api/projects', {
      method: 'POST',
      key: ctx.account.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: padding(MiB + 1),
    });
    expect(over.status).toBe(413);
    await expectHealthy(ctx);
  });
});
