import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyBackup } from '../../src/backup/verify.js';
import { programArgs, REPO_ROOT } from '../support/programs.js';

/**
 * Extensions §16, scheduled backups with several servers on one store, as separate processes on the real
 * clock (docs/operations.md, "Scheduled backups"): two servers on one SQLite file, each with the same
 * schedule (every 2 s), each holding its own duties. Every slot is backed up by one of them only: no
 * backup fails for its place being taken, and the backups made are those the two logged, each once.
 * shared-schedule.test.ts tests the same with a fake clock, and a holder that dies.
 */

interface Server {
  readonly lines: { msg: string; path?: string; name?: string }[];
  readonly exited: Promise<unknown>;
  stop(): Promise<void>;
}

function startServer(env: Record<string, string>): Server {
  const child = spawn(process.execPath, programArgs('server'), { cwd: REPO_ROOT, env });
  const lines: Server['lines'] = [];
  // Errors and warnings are logged on stderr, the rest on stdout: both are read.
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      try {
        const record = JSON.parse(line) as Server['lines'][number];
        if (/backup/.test(record.msg)) lines.push(record);
      } catch {}
    });
  }
  const exited = once(child, 'close');
  return {
    lines,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const root = await mkdtemp(path.join(tmpdir(), 'mdstore-shared-schedule-processes-'));
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await rm(root, { recursive: true, force: true });
});

describe('two server processes on one SQLite store, one schedule', () => {
  it('back each slot up once between them', async () => {
    const backups = path.join(root, 'backups');
    const env = {
      PATH: process.env.PATH ?? '',
      MDSTORE_DATA_DIR: path.join(root, 'data'),
      PORT: '0',
      MDSTORE_WORKERS: '1',
      MDSTORE_LOG_LEVEL: 'info',
      MDSTORE_CONTENT_WORK_THREADS: '0',
      MDSTORE_BACKUP_SCHEDULE: '2s',
      MDSTORE_BACKUP_DIR: backups,
      MDSTORE_BACKUP_KEEP: '1000',
    };
    servers.push(startServer(env));
    // The second starts once the first has migrated the new store.
    for (let i = 0; i < 600 && !servers[0]!.lines.some((l) => l.msg === 'scheduled backups on'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    servers.push(startServer(env));
    const done = () =>
      servers.flatMap((server) => server.lines.filter((l) => l.msg === 'scheduled backup done'));
    const bothOn = () =>
      servers.every((server) => server.lines.some((l) => l.msg === 'scheduled backups on'));
    // Until both run the schedule and three slots have been backed up since (a bound, not a measure).
    let doneWhenBothOn: number | undefined;
    for (let i = 0; i < 1200; i++) {
      if (doneWhenBothOn === undefined && bothOn()) doneWhenBothOn = done().length;
      if (doneWhenBothOn !== undefined && done().length >= doneWhenBothOn + 3) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await Promise.all(servers.map((server) => server.stop()));
    const made = done().map((line) => path.basename(line.path!));
    expect(made.length).toBeGreaterThanOrEqual((doneWhenBothOn ?? 0) + 3);
    // Each slot once, and no backup failed (a second backup of a slot would find its place taken).
    expect(new Set(made).size).toBe(made.length);
    const failed = servers.flatMap((server) =>
      server.lines.filter((l) => l.msg === 'scheduled backup failed'),
    );
    expect(failed).toEqual([]);
    expect((await readdir(backups)).sort()).toEqual([...made].sort());
    expect((await verifyBackup(path.join(backups, made.at(-1)!))).ok).toBe(true);
  }, 180_000);
});
