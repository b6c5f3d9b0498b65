import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { waitFor } from '../multi-instance/support.js';
import { multipartBody } from '../support/http-harness.js';
import { programArgs, REPO_ROOT } from '../support/programs.js';

/** tsx compiles the sources in the primary and in every worker, on a 2-core machine shared with others. */
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 40_000;

export type LogLine = Record<string, unknown>;

export interface Cluster {
  readonly url: string;
  /** The primary's `/metrics` URL, when `MDSTORE_METRICS_PORT` is set. */
  readonly metricsUrl: string | undefined;
  /** The primary, leader of its own process group. */
  readonly child: ChildProcessWithoutNullStreams;
  /** Every JSON line the primary and its workers wrote on stdout and stderr so far. */
  readonly logs: LogLine[];
  readonly stderr: string[];
  readonly exited: Promise<number | null>;
  /** The workers' pids in the "listening" line of the primary. */
  readonly workerPids: number[];
  /** A request with a fresh `X-Request-Id`; `pid` is the worker's that answered, from its log line. */
  request(
    pathname: string,
    init?: RequestInit & { key?: string },
  ): Promise<{ status: number; body: string; pid: number }>;
  /** Log lines whose `msg` is `msg`. */
  lines(msg: string): LogLine[];
  /** Sends `signal` to the whole process group (primary and workers), as Ctrl-C or a process manager. */
  signalGroup(signal: NodeJS.Signals): void;
}

const running = new Set<ChildProcessWithoutNullStreams>();
let requestCount = 0;

/** Starts `main.ts` with `env` (which sets MDSTORE_WORKERS) and waits for the primary's "listening" line. */
export async function startCluster(env: Record<string, string>): Promise<Cluster> {
  const child = spawn(process.execPath, programArgs('server'), {
    cwd: REPO_ROOT,
    env,
    detached: true,
  });
  running.add(child);
  const logs: LogLine[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as LogLine);
    } catch {
      logs.push({ msg: line, unparsed: true });
    }
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr.push(line);
    // Warnings and errors are logged on stderr.
    if (line.startsWith('{')) logs.push(JSON.parse(line) as LogLine);
  });
  const exited = once(child, 'close').then(([code]) => code as number | null);
  void exited.finally(() => running.delete(child));
  const lines = (msg: string) => logs.filter((line) => line.msg === msg);
  const ready = await waitFor(
    () => logs.find((line) => String(line.msg).startsWith('mdstore listening on ')),
    {
      timeoutMs: START_TIMEOUT_MS,
      what: 'the "listening" log line',
      abandon: exited,
    },
  ).catch((error: unknown) => {
    killGroup(child);
    throw new Error(`${(error as Error).message}; stderr: ${stderr.join('\n')}`);
  });
  const url = String(ready.url);
  const workerPids = (ready.workers as Array<{ pid: number }>).map((w) => w.pid);

  const request: Cluster['request'] = async (pathname, init = {}) => {
    const id = `workers-test-${process.pid}-${++requestCount}`;
    const answer = await oneConnectionRequest(`${url}${pathname}`, id, init);
    const logged = await waitFor(
      () => logs.find((line) => line.request_id === id && line.msg === 'http request'),
      { timeoutMs: 10_000, what: `the log line of request ${id}` },
    );
    return { ...answer, pid: Number(logged.pid) };
  };

  return {
    url,
    metricsUrl: ready.metricsUrl === undefined ? undefined : String(ready.metricsUrl),
    child,
    logs,
    stderr,
    exited,
    workerPids,
    request,
    lines,
    signalGroup: (signal) => process.kill(-child.pid!, signal),
  };
}

/**
 * One request on a connection of its own (`agent: false`): the primary hands each new connection to the
 * next worker, whereas a kept-alive one would stay with the worker that accepted it.
 */
function oneConnectionRequest(
  url: string,
  requestId: string,
  init: RequestInit & { key?: string },
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { 'X-Request-Id': requestId };
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
  const body =
    init.body === undefined || init.body === null ? undefined : Buffer.from(init.body as Uint8Array);
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers, agent: false, timeout: 20_000 });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${url} timed out`)));
    req.end(body);
  });
}

function killGroup(child: ChildProcessWithoutNullStreams): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** For afterAll: whatever a failed test left running (the whole group) is killed. */
export function killAllClusters(): void {
  for (const child of running) killGroup(child);
  running.clear();
}

/** Resolves with the exit code, or SIGKILLs the group and rejects when it does not end in time. */
export async function exitOf(cluster: Cluster): Promise<number | null> {
  const timer = setTimeout(() => killGroup(cluster.child), STOP_TIMEOUT_MS);
  try {
    return await cluster.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a one-file upload with `Expect: 100-continue` and resolves once a worker has started reading
 * its body (the server sends `100 Continue` only then): the request is in flight inside a worker.
 * `finish` sends the body and resolves with the answer's status.
 */
export async function uploadInFlight(
  url: string,
  o: { key: string; projectId: string; filename: string; content: string },
): Promise<{ finish(): Promise<number> }> {
  const form = multipartBody([{ name: 'file', filename: o.filename, data: o.content }]);
  const target = new URL(`${url}/api/projects/${o.projectId}/files`);
  const req = http.request(target, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${o.key}`,
      'Content-Type': form.contentType,
      'Content-Length': String(form.body.length),
      Expect: '100-continue',
    },
    timeout: 30_000,
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('the upload timed out')));
  });
  req.flushHeaders();
  await Promise.race([
    once(req, 'continue'),
    answered.then((status) => {
      throw new Error(`answered ${status} before reading the body`);
    }),
  ]);
  return {
    finish: () => {
      req.end(Buffer.from(form.body));
      return answered;
    },
  };
}
