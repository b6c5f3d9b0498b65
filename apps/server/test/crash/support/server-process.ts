import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { programArgs } from '../../support/programs.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

/**
 * The server and CLI run from their TypeScript sources through tsx, as `npm run mdstore` does. A start
 * costs about 1 s; running a build first (`npm run build`, then `node apps/server/dist/main.js`) saves
 * ~0.4 s per start but costs more than it saves at CI size, writes every package's `dist` in a tree other
 * people are editing, and would test stale code whenever the build is skipped.
 */
const TSX = ['--conditions=mdstore-source', '--import', 'tsx'];

export type LogRecord = Record<string, unknown> & { msg: string };

export interface ServerChild {
  readonly pid: number;
  readonly stderr: string[];
  /** Resolves with the first log line whose message matches; rejects if the process ends first. */
  logLine(pattern: RegExp): Promise<LogRecord>;
  readonly exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
  isRunning(): boolean;
}

/**
 * Starts the server (`programArgs`: its build when current, else its sources; or another script) as a child process with exactly the given environment,
 * one serving process unless it sets `MDSTORE_WORKERS` (whose default is one per core).
 */
export function startServerChild(env: Record<string, string>, script?: string): ServerChild {
  const args = script === undefined ? programArgs('server') : [...TSX, script];
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { MDSTORE_WORKERS: '1', ...env },
  });
  const seen: LogRecord[] = [];
  const waiters: { pattern: RegExp; resolve: (record: LogRecord) => void }[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    let record: LogRecord;
    try {
      record = JSON.parse(line) as LogRecord;
    } catch {
      return;
    }
    // Only the lines someone may wait for are kept: request logs would otherwise pile up.
    if (/^(reconciliation finished|mdstore listening on )/.test(String(record.msg))) seen.push(record);
    for (const waiter of waiters.splice(0)) {
      if (waiter.pattern.test(String(record.msg))) waiter.resolve(record);
      else waiters.push(waiter);
    }
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (stderr.length < 200) stderr.push(line);
  });
  const exited = once(child, 'close').then(([code]) => code as number | null);
  let running = true;
  void exited.then(() => {
    running = false;
  });
  return {
    pid: child.pid ?? -1,
    stderr,
    exited,
    isRunning: () => running,
    kill: (signal) => {
      if (running) child.kill(signal);
    },
    logLine: (pattern) => {
      const found = seen.find((record) => pattern.test(String(record.msg)));
      if (found) return Promise.resolve(found);
      return new Promise<LogRecord>((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then((code) =>
          reject(new Error(`server exited (${code}) before logging ${pattern}: ${stderr.join('\n')}`)),
        );
      });
    },
  };
}

/** Runs the admin CLI with the same environment as the server and returns its JSON output. */
export function runCli(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...programArgs('cli'), ...args],
      { cwd: REPO_ROOT, env },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`mdstore ${args.join(' ')} failed: ${stderr}`));
        else resolve(JSON.parse(stdout) as Record<string, unknown>);
      },
    );
  });
}
