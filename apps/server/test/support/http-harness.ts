import { connect } from 'node:net';
import {
  CHANGES_LIMITS,
  type Clock,
  type ContentWork,
  createMdStore,
  type Embedder,
  LocalChangeNotifier,
  type MdStore,
  type MdStoreSettings,
  noticingRecords,
  type WebhookTransport,
} from '@mdstore/core';
import { it } from 'vitest';
import { AuditQueue } from '../../src/http/audit.js';
import type { ChangeFeedDeps } from '../../src/http/changes-feed.js';
import { HeldKeyChecks } from '../../src/http/held-keys.js';
import { createHttpApp, type HttpAppOptions } from '../../src/http/index.js';
import { type RunningHttpServer, type ServerTimeouts, startHttpServer } from '../../src/http/server.js';
import { type AdapterFactory, memoryAdapters, selectedAdapters, type TestAdapters } from './adapters.js';

/** The SSE heartbeat of test servers (the default, `CHANGES_LIMITS.heartbeatMs`, is 10 s). */
export const HARNESS_HEARTBEAT_MS = 300;

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown> | undefined;
}

/** A logger that keeps every line, so tests can check what was (and was not) logged. */
export function collectingLogger() {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, fields });
  };
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

export interface TestAccount {
  readonly accountId: string;
  readonly apiKey: string;
  readonly defaultProjectId: string;
}

export interface HarnessOptions {
  readonly adapters?: AdapterFactory;
  readonly settings?: Partial<MdStoreSettings>;
  readonly app?: Partial<Omit<HttpAppOptions, 'store' | 'logger'>>;
  /** Short server timeouts let slow-client tests finish quickly. */
  readonly timeouts?: Partial<ServerTimeouts>;
  /** Where parses of large files run (the core's inline default when absent); the test closes it. */
  readonly contentWork?: ContentWork;
  /** How webhook targets are checked (extensions §7); the tests' stub resolver never reaches DNS. */
  readonly webhookTransport?: WebhookTransport;
  /** Extensions §15: turns search by meaning on (the test runs the indexer itself). */
  readonly embedder?: Embedder;
  /** The change feed's options over the harness's (bounds, `onOpenStreams`, `keyCheckMs`). */
  readonly changes?: Partial<Omit<ChangeFeedDeps, 'notifier' | 'keyChecks'>> & {
    readonly keyCheckMs?: number;
  };
}

/** Small limits so that size rules can be tested with small bodies. */
export const TEST_SETTINGS: Partial<MdStoreSettings> = { maxFileBytes: 1024 };

/** The wall clock moved forward by whatever tests ask for: time-dependent rules without waiting. */
export class ShiftedClock implements Clock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** A real mdstore HTTP server on an ephemeral loopback port, over a fresh store. */
export class HttpHarness {
  private constructor(
    readonly store: MdStore,
    readonly server: RunningHttpServer,
    readonly logs: LogLine[],
    readonly adapters: TestAdapters,
    /** The core's clock (the wall clock until a test advances it). */
    readonly clock: ShiftedClock,
    /** The settings the store runs with. */
    readonly settings: Partial<MdStoreSettings>,
    /** The audit log's writer (extensions §8). */
    readonly audit: AuditQueue,
    /** The shared key checks of held change reads (`tick()` runs an interval's check now). */
    readonly keyChecks: HeldKeyChecks,
    /** Streams and held polls open now (the server's `onOpenStreams`). */
    readonly held: { open: number },
  ) {}

  static async start(options: HarnessOptions = {}): Promise<HttpHarness> {
    const adapters = await (options.adapters ?? memoryAdapters)();
    const clock = new ShiftedClock();
    const settings = { ...TEST_SETTINGS, ...adapters.settings, ...options.settings };
    // Extensions §7: commits wake held change reads, as in the server's composition root.
    const notifier = new LocalChangeNotifier();
    const store = createMdStore({
      records: noticingRecords(adapters.records, (accountId) => notifier.publish(accountId)),
      blobs: adapters.blobs,
      rateLimiter: adapters.rateLimiter,
      clock,
      settings,
      ...(options.contentWork ? { contentWork: options.contentWork } : {}),
      ...(options.webhookTransport ? { webhookTransport: options.webhookTransport } : {}),
      ...(options.embedder ? { embedder: options.embedder } : {}),
    });
    const { lines, logger } = collectingLogger();
    const { keyCheckMs, ...changes } = options.changes ?? {};
    const keyChecks = new HeldKeyChecks((principal) => store.changes.keyState({ principal }), {
      intervalMs: keyCheckMs ?? CHANGES_LIMITS.keyCheckMs,
    });
    const held = { open: 0 };
    const onOpenStreams = (delta: number) => {
      held.open += delta;
      changes.onOpenStreams?.(delta);
    };
    // Extensions §8: audited like a server; tests read the log after `harness.audit.flush()`.
    const audit = new AuditQueue(store, logger, () => clock.now());
    const app = createHttpApp({
      store,
      logger,
      trustProxy: false,
      tls: false,
      audit,
      // A heartbeat every 300 ms: the rule (a comment line while idle) is tested without waiting 10 s.
      changes: {
        notifier,
        maxStreamsPerKey: 5,
        heartbeatMs: HARNESS_HEARTBEAT_MS,
        keyChecks,
        ...changes,
        onOpenStreams,
      },
      // The suites race writers of one account against each other in the store (If-Match races, held
      // barriers): every request must be able to run at once. The account's share of running requests
      // is the server's policy, tested on its own (http/account-share.test.ts passes its own share).
      accountShare: { running: 1_000, waiting: 1_000 },
      ...options.app,
    });
    const server = await startHttpServer({
      app,
      host: '127.0.0.1',
      port: 0,
      logger,
      shutdownGraceMs: 1000,
      timeouts: options.timeouts,
    });
    return new HttpHarness(store, server, lines, adapters, clock, settings, audit, keyChecks, held);
  }

  get url(): string {
    return this.server.url;
  }

  get port(): number {
    return Number(new URL(this.server.url).port);
  }

  async account(name = `account-${Math.random().toString(36).slice(2, 10)}`): Promise<TestAccount> {
    const created = await this.store.accounts.create({ name });
    return {
      accountId: created.account.id,
      apiKey: created.apiKey.apiKey,
      defaultProjectId: created.defaultProject.id,
    };
  }

  /** `fetch` against the server; `key` adds `Authorization: Bearer <key>`. */
  fetch(path: string, init: RequestInit & { key?: string } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (init.key !== undefined) headers.set('Authorization', `Bearer ${init.key}`);
    return fetch(`${this.url}${path}`, { ...init, headers, redirect: 'manual' });
  }

  json(path: string, method: string, key: string, body: unknown): Promise<Response> {
    return this.fetch(path, {
      method,
      key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  async createProject(key: string, name: string, description?: string | null): Promise<{ id: string }> {
    const response = await this.json('/api/projects', 'POST', key, { name, description });
    if (response.status !== 201)
      throw new Error(`create project: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  }

  upload(key: string, projectId: string, parts: FormPart[]): Promise<Response> {
    const form = multipartBody(parts);
    return this.fetch(`/api/projects/${projectId}/files`, {
      method: 'POST',
      key,
      headers: { 'Content-Type': form.contentType },
      body: form.body,
    });
  }

  /** Uploads one file (and optional metadata) and insists on a 201. */
  async uploadFile(
    key: string,
    projectId: string,
    filename: string,
    content: string | Uint8Array,
    metadata?: unknown,
  ) {
    const parts: FormPart[] = [{ name: 'file', filename, data: content }];
    if (metadata !== undefined) parts.unshift({ name: 'metadata', data: JSON.stringify(metadata) });
    const response = await this.upload(key, projectId, parts);
    if (response.status !== 201) throw new Error(`upload: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  }

  /** Sends raw bytes on a fresh TCP connection and returns everything the server wrote back. */
  raw(request: string | Buffer): Promise<string> {
    return rawExchange(this.port, request);
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.audit.close();
    await this.adapters.close();
  }
}

export interface FormPart {
  readonly name: string;
  readonly data: string | Uint8Array;
  /** `filename="…"` (sent as is, UTF-8). */
  readonly filename?: string;
  /** `filename*=UTF-8''…` (percent-encoded here). */
  readonly filenameStar?: string;
  readonly contentType?: string;
}

export const BOUNDARY = '----mdstore-test-boundary-7d2f1c';

/** A multipart/form-data body built by hand, so tests control part order, headers and oddities. */
export function multipartBody(parts: readonly FormPart[], boundary = BOUNDARY) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`;
    if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
    if (part.filenameStar !== undefined) {
      disposition += `; filename*=UTF-8''${encodeRfc8187(part.filenameStar)}`;
    }
    let head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n`;
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    else if (part.filename !== undefined || part.filenameStar !== undefined)
      head += 'Content-Type: text/markdown\r\n';
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Percent-encoding for RFC 8187 values: `encodeURIComponent` leaves `'()*` as they are. */
export const encodeRfc8187 = (value: string): string =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function rawExchange(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', (error) =>
      received.length > 0 ? resolve(Buffer.concat(received).toString('utf8')) : reject(error),
    );
    socket.on('close', () => resolve(Buffer.concat(received).toString('utf8')));
    socket.write(request);
  });
}

/** Status, headers (lower-case names) and body of a raw HTTP/1.1 response text. */
export function parseRawResponse(text: string) {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) };
}

/**
 * Declares a test that runs against its own fresh server and always closes it. The adapters come from
 * `options.adapters`, else from `MDSTORE_HTTP_TEST_ADAPTERS` (see `selectedAdapters`).
 */

export function serverTest(options: HarnessOptions = {}) {
  return (name: string, body: (harness: HttpHarness) => Promise<void>, timeout?: number): void => {
    it(
      name,
      async () => {
        const harness = await HttpHarness.start({ adapters: selectedAdapters(), ...options });
        try {
          await body(harness);
        } finally {
          await harness.close();
        }
      },
      timeout,
    );
  };
}
