import { readdir } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { BOUNDARY } from '../support/http-harness.js';
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
const bigFileTest = hostileTest({ settings: { maxFileBytes: 4 * 1024 * 1024 } });

const openFileDescriptors = async (): Promise<number> => (await readdir('/proc/self/fd')).length;

/** A raw request with the given header lines (no Authorization added). */
const requestWith = (path: string, lines: string[]) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n`;

describe('hostile headers and clients that go away', () => {
  test('huge, duplicated or malformed Authorization headers: 400/401/431, never 500', async (ctx) => {
    const path = `/api/projects/${ctx.account.defaultProjectId}`;
    const key = ctx.account.apiKey;
    const cases: Array<[string, string[], number[]]> = [
      ['60 KB key', [`Authorization: Bearer ${'k'.repeat(60_000)}`], [431]],
      ['15 KB key', [`Authorization: Bearer ${'k'.repeat(15_000)}`], [401]],
      ['duplicated valid key', [`Authorization: Bearer ${key}`, `Authorization: Bearer ${key}`], [400, 401]],
      ['valid then invalid', [`Authorization: Bearer ${key}`, 'Authorization: Bearer nope'], [400, 401]],
      ['two keys in one header', [`Authorization: Bearer ${key}, Bearer ${key}`], [400, 401]],
      ['scheme only', ['Authorization: Bearer'], [401]],
      ['another scheme', [`Authorization: Basic ${Buffer.from('a:b').toString('base64')}`], [401]],
      ['spaces inside the key', [`Authorization: Bearer ${key.slice(0, 10)} ${key.slice(10)}`], [401]],
      ['empty', ['Authorization: '], [401]],
      ['non-ASCII bytes', ['Authorization: Bearer \u00ff\u00fe\u00e9'], [400, 401]],
    ];
    for (const [name, lines, statuses] of cases) {
      const { response } = await exchange(ctx, Buffer.from(requestWith(path, lines), 'latin1'));
      expect(statuses, `${name}: ${response?.status}`).toContain(response?.status);
      expect(JSON.parse(response!.body)).toHaveProperty('detail');
    }
    await expectHealthy(ctx);
  });

  bigFileTest(
    'clients that leave mid-upload and mid-download leak no file handle, socket or file',
    async (ctx) => {
      const projectPath = `/api/projects/${ctx.account.defaultProjectId}`;
      const big = 'x'.repeat(4 * 1024 * 1024);
      await ctx.h.uploadFile(ctx.account.apiKey, ctx.account.defaultProjectId, 'big.md', big);
      await abortUpload(ctx, 'warm-up.md');
      await abortDownload(ctx, `${projectPath}/files/big.md`);
      await noConnectionsLeft(ctx);
      await settled(ctx);
      const before = await openFileDescriptors();
      for (let round = 0; round < 10; round++) {
        await abortUpload(ctx, `cut-${round}.md`);
        await abortDownload(ctx, `${projectPath}/files/big.md`);
      }
      await noConnectionsLeft(ctx);
      await settled(ctx);
      expect(await tempFiles(ctx)).toEqual([]);
      // A few descriptors may come and go (SQLite, the thread pool); ten leaked rounds would show.
      expect(await openFileDescriptors()).toBeLessThanOrEqual(before + 3);
      const listed = await listedFiles(ctx);
      expect(listed.files.map((file) => file.filename)).toEqual(['big.md']);
      expect(listed.total_size_bytes).toBe(big.length);
      await expectHealthy(ctx);
    },
  );
});

/** Starts an upload, waits until its temp file exists, then resets the connection. */
async function abortUpload(ctx: HostileContext, filename: string): Promise<void> {
  const socket = await openSocket(ctx.h.port);
  socket.on('error', () => {});
  const partHead =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
    'Content-Type: text/markdown\r\n\r\n';
  socket.write(
    head(ctx, 'POST', `/api/projects/${ctx.account.defaultProjectId}/files`, {
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': 3 * 1024 * 1024,
    }),
  );
  socket.write(`${partHead}${'u'.repeat(256 * 1024)}`);
  for (let i = 0; i < 400 && (await tempFiles(ctx)).length === 0; i++) await sleep(5);
  socket.resetAndDestroy();
  await new Promise((resolve) => socket.once('close', resolve));
}

/** Starts a 4 MiB download, reads its first bytes, then resets the connection. */
async function abortDownload(ctx: HostileContext, path: string): Promise<void> {
  const socket = await openSocket(ctx.h.port);
  socket.on('error', () => {});
  socket.write(head(ctx, 'GET', path));
  await new Promise((resolve) => socket.once('data', resolve));
  socket.resetAndDestroy();
  await new Promise((resolve) => socket.once('close', resolve));
}
