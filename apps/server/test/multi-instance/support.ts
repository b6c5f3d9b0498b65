import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { RunningS3rver } from '@mdstore/s3/testing';
import { TEST_POSTGRES_URL } from '../support/adapters.js';
import { multipartBody } from '../support/http-harness.js';
import { programArgs, REPO_ROOT } from '../support/programs.js';

/** How long a child may take to start listening (tsx compiles the sources on a 2-core machine). */
const START_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 15_000;
const CLI_TIMEOUT_MS = 30_000;

/**
 * The environment of every instance (and of the CLI): one Postgres schema and one S3 endpoint, exactly as
 * an operator would configure N servers behind a load balancer. Nothing of the test process leaks in.
 */
export async function sharedEnvironment(o: {
  schema: string;
  s3: RunningS3rver;
  extra?: Record<string, string>;
}): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  // Only a fallback: with Postgres and S3 configured nothing should be written there.
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mdstore-multi-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    MDSTORE_DATA_DIR: dataDir,
    MDSTORE_DATABASE_URL: TEST_POSTGRES_URL,
    MDSTORE_POSTGRES_SCHEMA: o.schema,
    MDSTORE_BLOB_STORE: 's3',
    MDSTORE_S3_ENDPOINT: o.s3.endpoint,
    MDSTORE_S3_REGION: 'us-east-1',
    MDSTORE_S3_FORCE_PATH_STYLE: 'true',
    MDSTORE_S3_CHECKSUM: 'WHEN_REQUIRED',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    // Keep the SDK away from any shared config or credentials file of the machine.
    AWS_CONFIG_FILE: path.join(dataDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(dataDir, 'no-aws-credentials'),
    // One serving process per instance unless a test asks for more (the default is one per core).
    MDSTORE_WORKERS: '1',
    ...o.extra,
  };
  return { env, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
}

export interface Instance {
  readonly url: string;
  readonly instanceId: string;
  readonly child: ChildProcessWithoutNullStreams;
  /** Every JSON line the process wrote on stdout so far. */
  readonly logs: Array<Record<string, unknown>>;
  readonly stderr: string[];
  fetch(pathname: string, init?: RequestInit & { key?: string }): Promise<Response>;
  /** SIGTERM, then SIGKILL if it has not exited in time. Resolves with the exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcessWithoutNullStreams>();

/** Starts `apps/server/src/main.ts` as a child and waits (bounded) for its "listening" log line. */
export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, programArgs('server'), { cwd: REPO_ROOT, env });
  running.add(child);
  const logs: Array<Record<string, unknown>> = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => logs.push(parseLogLine(line)));
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const exited = once(child, 'close').then(([code]) => code as number | null);
  exited.finally(() => running.delete(child));

  const ready = await waitFor(
    () => logs.find((line) => String(line.msg).startsWith('mdstore listening on ')),
    { timeoutMs: START_TIMEOUT_MS, what: 'the "listening" log line', abandon: exited },
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}; stderr: ${stderr.join('\n')}`);
  });

  const url = String(ready.url);
  return {
    url,
    instanceId: String(ready.instanceId),
    child,
    logs,
    stderr,
    fetch: (pathname, init = {}) => {
      const headers = new Headers(init.headers);
      if (init.key !== undefined) headers.set('Authorization', `Bearer ${init.key}`);
      return fetch(`${url}${pathname}`, { ...init, headers, signal: AbortSignal.timeout(20_000) });
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** For afterAll: whatever a failed test left running is killed. */
export function killAllInstances(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** Runs every clean-up step even when one fails; then reports the first failure. */
export async function cleanUp(steps: Array<() => unknown>): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}

function parseLogLine(line: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { msg: line, unparsed: true };
  }
}

/**
 * Polls `probe` until it returns something other than undefined; rejects after `timeoutMs`, or as soon as
 * `abandon` settles (e.g. the process died).
 */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  o: { timeoutMs: number; what: string; intervalMs?: number; abandon?: Promise<unknown> },
): Promise<T> {
  const deadline = Date.now() + o.timeoutMs;
  let gone = false;
  void o.abandon?.then(() => {
    gone = true;
  });
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (gone) throw new Error(`the process exited before ${o.what}`);
    if (Date.now() > deadline) throw new Error(`no ${o.what} within ${o.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, o.intervalMs ?? 25));
  }
}

/** Runs the admin CLI (the root `mdstore` script's command) with `env`; expects JSON on stdout. */
export function cli(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...programArgs('cli'), ...args],
      { cwd: REPO_ROOT, env, timeout: CLI_TIMEOUT_MS },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`mdstore ${args.join(' ')} failed: ${error.message} ${stderr}`));
        else resolve(JSON.parse(stdout) as Record<string, unknown>);
      },
    );
  });
}

export interface CliAccount {
  readonly accountId: string;
  readonly apiKey: string;
  readonly keyId: string;
  readonly defaultProjectId: string;
}

export async function createAccount(name: string, env: Record<string, string>): Promise<CliAccount> {
  const created = await cli(['accounts', 'create', '--name', name], env);
  return {
    accountId: String(created.account_id),
    apiKey: String(created.api_key),
    keyId: String(created.key_id),
    defaultProjectId: String(created.default_project_id),
  };
}

/** A one-file upload request, ready for `Instance.fetch`. */
export function uploadRequest(key: string, filename: string, content: string): RequestInit & { key: string } {
  const form = multipartBody([{ name: 'file', filename, data: content }]);
  return {
    method: 'POST',
    key,
    headers: { 'Content-Type': form.contentType },
    body: new Uint8Array(form.body),
  };
}
