import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createFsBlobStore } from '@mdstore/fs';
import { openSqliteStore } from '@mdstore/sqlite';
import { expect, it } from 'vitest';
import type { TestAdapters } from '../support/adapters.js';
import { type HarnessOptions, HttpHarness, type TestAccount } from '../support/http-harness.js';

/**
 * Shared tools of the hostile-input and security suites: a real server over SQLite + filesystem whose
 * data folder the test can inspect, raw-socket exchanges (fetch would sanitise what these tests send),
 * a health check, and a scan of every response for leaked internals.
 */

/** The sqlite-fs adapters plus the folder holding `mdstore.db` and `blobs/`. */
export interface InspectableAdapters extends TestAdapters {
  readonly dir: string;
}

/** The embedded default (SQLite records and rate limiter, filesystem blobs) in a fresh temp folder. */
export async function inspectableSqliteFs(): Promise<InspectableAdapters> {
  const dir = await mkdtemp(join(tmpdir(), 'mdstore-hostile-'));
  const sqlite = await openSqliteStore({ path: join(dir, 'mdstore.db') });
  const blobs = createFsBlobStore({ root: join(dir, 'blobs') });
  return {
    dir,
    records: sqlite.records,
    blobs,
    rateLimiter: sqlite.rateLimiter,
    close: async () => {
      await blobs.close();
      await sqlite.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface HostileContext {
  readonly h: HttpHarness;
  readonly dir: string;
  readonly account: TestAccount;
  /** Every response text seen by the test, for the internals scan. */
  readonly seen: string[];
}

/**
 * Declares a test with its own server on inspectable SQLite + fs adapters and an account. `wrap` may
 * replace ports (e.g. to inject a failure); every response the test records is scanned for internals.
 */
export function hostileTest(
  options: Omit<HarnessOptions, 'adapters'> & {
    wrap?: (adapters: InspectableAdapters) => InspectableAdapters;
  } = {},
) {
  return (name: string, body: (ctx: HostileContext) => Promise<void>, timeout?: number): void => {
    it(
      name,
      async () => {
        let opened: InspectableAdapters | undefined;
        const h = await HttpHarness.start({
          ...options,
          adapters: async () => {
            opened = await inspectableSqliteFs();
            return options.wrap ? options.wrap(opened) : opened;
          },
        });
        const seen: string[] = [];
        try {
          const account = await h.account();
          await body({ h, dir: opened!.dir, account, seen });
          for (const text of seen) expectNoInternals(text);
        } finally {
          await h.close();
        }
      },
      timeout,
    );
  };
}

/** What a response must never show: stack frames, source or data paths, SQL. */
const INTERNALS: readonly RegExp[] = [
  /\bat [^\s]+ \(/,
  /\bat (?:async )?(?:file:|node:|\/)/,
  /\.ts:\d/,
  /\.js:\d+:\d+/,
  /\/work\//,
  /\/tmp\//,
  /node_modules/,
  /\bSELECT\b/,
  /\bINSERT\b/,
  /\bUPDATE [a-z_]+ SET\b/i,
  /SQLITE/,
];

export function expectNoInternals(text: string): void {
  for (const pattern of INTERNALS) {
    if (pattern.test(text)) throw new Error(`a response leaks internals (${pattern}): ${text.slice(0, 400)}`);
  }
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Map<string, string>;
  readonly body: string;
  readonly text: string;
}

export function parseResponse(text: string): RawResponse | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4), text };
}

/** The first complete response in `text`, or undefined while it is still arriving. */
function completeResponse(text: string): RawResponse | undefined {
  const response = parseResponse(text);
  if (!response) return undefined;
  const length = response.headers.get('content-length');
  if (length === undefined) return undefined;
  const bodyBytes = Buffer.byteLength(response.body);
  if (bodyBytes < Number(length)) return undefined;
  const body = Buffer.from(response.body).subarray(0, Number(length)).toString('utf8');
  return { ...response, body };
}

export function openSocket(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export interface ExchangeResult {
  /** The first response, if one arrived. */
  readonly response: RawResponse | undefined;
  /** Everything the server wrote. */
  readonly text: string;
  /** The server closed (or reset) the connection before `waitMs` ran out. */
  readonly closedByServer: boolean;
}

/**
 * Writes `request` on a fresh connection and waits for the first complete response, or for the server
 * to close the connection, or for `waitMs`. `end` half-closes after writing (the client sends no more).
 */
export async function exchange(
  ctx: HostileContext,
  request: string | Buffer | readonly (string | Buffer)[],
  options: { end?: boolean; waitMs?: number; localAddress?: string } = {},
): Promise<ExchangeResult> {
  const socket = await openSocket(ctx.h.port, options.localAddress);
  const received: Buffer[] = [];
  const text = () => Buffer.concat(received).toString('utf8');
  const result = await new Promise<ExchangeResult>((resolve) => {
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      resolve({ response: completeResponse(text()) ?? parseResponse(text()), text: text(), closedByServer });
    };
    const timer = setTimeout(() => finish(false), options.waitMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      if (completeResponse(text())) finish(false);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    const pieces = Array.isArray(request) ? request : [request];
    for (const piece of pieces) socket.write(piece as string | Buffer);
    if (options.end) socket.end();
  });
  socket.destroy();
  ctx.seen.push(result.text);
  return result;
}

/** A request head for `path` with the account's key (unless `key` is given) and `Connection: close`. */
export function head(
  ctx: HostileContext,
  method: string,
  path: string,
  headers: Record<string, string | number> = {},
  key: string | null = ctx.account.apiKey,
): string {
  let text = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`;
  if (key !== null) text += `Authorization: Bearer ${key}\r\n`;
  for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
  return `${text}\r\n`;
}

/** `fetch` through the harness, remembering the body for the internals scan. */
export async function call(
  ctx: HostileContext,
  path: string,
  init: RequestInit & { key?: string } = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await ctx.h.fetch(path, { key: ctx.account.apiKey, ...init });
  const text = await response.text();
  ctx.seen.push(text);
  return { status: response.status, headers: response.headers, text };
}

/** The server still serves: `/healthz` is 200 and a normal authenticated request succeeds. */
export async function expectHealthy(ctx: HostileContext): Promise<void> {
  const health = await ctx.h.fetch('/healthz');
  expect(health.status).toBe(200);
  await health.arrayBuffer();
  const project = await call(ctx, `/api/projects/${ctx.account.defaultProjectId}`);
  expect(project.status).toBe(200);
}

/** Waits until every content write the core started has finished (no staged blob left). */
export async function settled(ctx: HostileContext): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if ((await ctx.h.adapters.records.listBlobIntents({ limit: 10 })).length === 0) return;
    await sleep(10);
  }
  throw new Error('a write never settled');
}

/** Files of the default project, as the API lists them. */
export async function listedFiles(ctx: HostileContext, projectId = ctx.account.defaultProjectId) {
  const listed = await call(ctx, `/api/projects/${projectId}/files`);
  expect(listed.status).toBe(200);
  return JSON.parse(listed.text) as {
    files: Array<{ filename: string; size_bytes: number; metadata: unknown }>;
    total_count: number;
    total_size_bytes: number;
  };
}

/** Temp files of the filesystem blob store that are still there. */
export async function tempFiles(ctx: HostileContext): Promise<string[]> {
  try {
    return await readdir(join(ctx.dir, 'blobs', '.tmp'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Every file under `root`, as paths relative to it. */
export async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(root.length + 1));
}

export const readBytes = (path: string): Promise<Buffer> => readFile(path);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves when the server side has no open connection left (or throws after a while). */
export async function noConnectionsLeft(ctx: HostileContext): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const count = await new Promise<number>((resolve, reject) =>
      ctx.h.server.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
    if (count === 0) return;
    await sleep(10);
  }
  throw new Error('the server kept a connection open');
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Memory figures after a full garbage collection: what is still held, not what awaits collection. */
export function liveMemory(): NodeJS.MemoryUsage {
  gc();
  gc();
  return process.memoryUsage();
}
