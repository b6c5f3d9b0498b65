import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { BlobStore, RecordsRepository } from '@mdstore/core';
import { type FaultPlan, noFaults, withBlobFaults, withRecordsFaults } from '@mdstore/core/testing';
import type { DependencyContainer } from 'tsyringe';
import { TOKENS } from '../../src/composition/index.js';
import { type ServerProcess, startServer } from '../../src/composition/server.js';
import { type Environment, loadConfig } from '../../src/config/index.js';
import { createLogger, type LogLevel } from '../../src/logger.js';
import { programArgs, REPO_ROOT } from '../support/programs.js';

/**
 * An in-process mdstore as `main.ts` builds it (configuration from variables, the real pino logger, SQLite
 * and files in a temp folder), with every log line captured and optional faults injected into the real
 * adapters.
 */
export interface TestServer {
  readonly server: ServerProcess;
  readonly url: string;
  readonly dir: string;
  /** Every log line, as written (stdout and stderr together). */
  readonly lines: string[];
  /** The log lines parsed. */
  logs(): Array<Record<string, unknown>>;
  account(name?: string): Promise<{ apiKey: string; projectId: string }>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  readonly env?: Environment;
  readonly level?: LogLevel;
  readonly records?: FaultPlan;
  readonly blobs?: FaultPlan;
}

/**
 * Fault plans wrapped around the runtime's records repository and blob store: the wrapped ports are
 * registered in a child container of the runtime's, from which the store is built (tsyringe).
 */
export const withFaults =
  (records: FaultPlan, blobs: FaultPlan) =>
  (child: DependencyContainer): void => {
    const real = {
      records: child.resolve<RecordsRepository>(TOKENS.records),
      blobs: child.resolve<BlobStore>(TOKENS.blobs),
    };
    child.register(TOKENS.records, { useValue: withRecordsFaults(real.records, records) });
    child.register(TOKENS.blobs, { useValue: withBlobFaults(real.blobs, blobs) });
  };

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-ops-'));
  const config = loadConfig({ MDSTORE_DATA_DIR: dir, PORT: '0', ...options.env });
  const lines: string[] = [];
  const sink = { write: (line: string) => lines.push(line) };
  const logger = createLogger({ level: options.level ?? 'debug', stdout: sink, stderr: sink });
  let server: ServerProcess;
  try {
    server = await startServer({
      config,
      logger,
      shutdownGraceMs: 1000,
      override: withFaults(options.records ?? noFaults, options.blobs ?? noFaults),
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    server,
    url: server.url,
    dir,
    lines,
    logs: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    async account(name = `acct-${Math.random().toString(36).slice(2, 10)}`) {
      const created = await server.runtime.store.accounts.create({ name });
      return { apiKey: created.apiKey.apiKey, projectId: created.defaultProject.id };
    },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A multipart upload body with one file part and an optional metadata part. */
export function uploadBody(filename: string, content: string, metadata?: unknown) {
  const form = new FormData();
  if (metadata !== undefined) form.append('metadata', JSON.stringify(metadata));
  form.append('file', new Blob([content], { type: 'text/markdown' }), filename);
  return form;
}

export { REPO_ROOT };

export interface ChildServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stdout: string[];
  readonly stderr: string[];
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
  /** The first JSON log line whose `msg` matches; rejects if the process ends first. */
  logLine(pattern: RegExp): Promise<Record<string, unknown>>;
}

/**
 * Runs `command` (by default the server entry point: its build when current, else its sources, `programArgs`)
 * with only PATH and `env`, collecting its output lines.
 */
export function spawnServer(
  env: Record<string, string>,
  command: readonly string[] = [process.execPath, ...programArgs('server')],
  /** `detached`: the child leads a process group of its own, to be signalled as a whole. */
  options: { detached?: boolean } = {},
): ChildServer {
  const [file, ...args] = command;
  const child = spawn(file!, args, {
    cwd: REPO_ROOT,
    detached: options.detached ?? false,
    // One serving process unless a test asks for more (MDSTORE_WORKERS defaults to the cores).
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MDSTORE_WORKERS: '1', ...env },
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => stdout.push(line));
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const exited = once(child, 'close').then(([code]) => code as number | null);
  const logLine = (pattern: RegExp) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const scan = () => {
        for (const line of stdout) {
          if (!line.startsWith('{')) continue;
          const record = JSON.parse(line) as Record<string, unknown>;
          if (pattern.test(String(record.msg))) {
            clearInterval(timer);
            resolve(record);
            return;
          }
        }
      };
      const timer = setInterval(scan, 20);
      void exited.then(() => {
        scan();
        clearInterval(timer);
        reject(new Error(`exited before logging ${pattern}: ${stderr.join('\n')}`));
      });
    });
  return { child, stdout, stderr, exited, logLine };
}
