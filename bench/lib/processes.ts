import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Node flags that run the TypeScript sources directly, as `npm run bench` itself does. */
export const SOURCE_NODE_ARGS = ['--conditions=mdstore-source', '--import', 'tsx'];

/** A free loopback TCP port (released just before use: good enough on a machine we own). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

export interface Child {
  readonly pid: number;
  readonly process: ChildProcess;
  /** The last lines the child wrote on stderr (for error messages). */
  stderrTail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  readonly script: string;
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly nodeArgs?: readonly string[];
  /** Called with each stdout line (e.g. to read a ready message). Default: stdout is discarded. */
  readonly onLine?: (line: string) => void;
}

/** Starts `node <nodeArgs> <script> <args>` from the repository root. */
export function spawnNode(options: SpawnOptions): Child {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? SOURCE_NODE_ARGS), options.script, ...(options.args ?? [])],
    {
      cwd: REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', options.onLine ? 'pipe' : 'ignore', 'pipe'],
    },
  );
  if (child.pid === undefined) throw new Error(`could not start ${options.script}`);
  let tail = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    tail = (tail + text).slice(-4000);
  });
  if (options.onLine) {
    let pending = '';
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      pending += text;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        options.onLine?.(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    });
  }
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid,
    process: child,
    stderrTail: () => tail,
    stop(graceMs = 15_000) {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/** Resolves once `probe` succeeds; fails when the child exits first or `timeoutMs` passes. */
export async function waitUntilReady(child: Child, probe: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`child ${child.pid} exited during start-up:\n${child.stderrTail()}`);
    }
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`child ${child.pid} not ready after ${timeoutMs} ms:\n${child.stderrTail()}`);
}

export interface MemorySample {
  /** Resident set size now, bytes. */
  readonly rss: number;
  /** Peak resident set size since the process started (VmHWM), bytes. */
  readonly peak: number;
}

/** Reads VmRSS and VmHWM of a process from /proc (Linux); null when unavailable. */
export function readMemory(pid: number): MemorySample | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rss: kib('VmRSS') * 1024, peak: kib('VmHWM') * 1024 };
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `intervalMs` until stopped; reports the highest value seen. */
export function sampleMemory(pid: number, intervalMs = 100): { stop(): { maxRss: number; peak: number } } {
  let maxRss = 0;
  let peak = 0;
  const take = () => {
    const sample = readMemory(pid);
    if (!sample) return;
    // A process that has exited (a zombie until reaped) has no VmRSS line: NaN, not a sample.
    if (Number.isFinite(sample.rss)) maxRss = Math.max(maxRss, sample.rss);
    if (Number.isFinite(sample.peak)) peak = Math.max(peak, sample.peak);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      take();
      clearInterval(timer);
      return { maxRss, peak };
    },
  };
}
