import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LEASE_POLICY } from '@mdstore/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../src/index.js';
import { tempDatabase } from './temp-db.js';

let database: Awaited<ReturnType<typeof tempDatabase>>;
const children: ChildProcess[] = [];
beforeEach(async () => {
  database = await tempDatabase();
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await database.remove();
});

const script = fileURLToPath(new URL('./fixtures/consume-in-bursts.ts', import.meta.url));

/** Starts the fixture and resolves once its store is open. */
async function startProcess(key: string, limit: number, count: number) {
  const child = spawn(
    process.execPath,
    [
      '--conditions=mdstore-source',
      '--import',
      'tsx',
      script,
      database.path,
      key,
      String(limit),
      String(count),
    ],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  children.push(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    output += text;
  });
  while (!output.includes('ready\n')) {
    if (child.exitCode !== null) throw new Error(`fixture exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    go: () => child.stdin!.write('go\n'),
    result: async () => {
      if (child.exitCode === null) await once(child, 'exit');
      const last = output.trim().split('\n').at(-1)!;
      return JSON.parse(last) as { allowed: number[]; refused: number };
    },
  };
}

describe('sqlite rate limiter, two processes on one file', () => {
  it('allows no more than the limit together, refuses at most one block early, and loses nothing', async () => {
    const limit = 2_000;
    const processes = await Promise.all([
      startProcess('shared', limit, 1_500),
      startProcess('shared', limit, 1_500),
    ]);
    for (const child of processes) child.go();
    const [one, two] = await Promise.all(processes.map((child) => child.result()));
    const allowed = [...one!.allowed, ...two!.allowed];
    expect(allowed.length).toBeLessThanOrEqual(limit);
    expect(new Set(allowed).size).toBe(allowed.length);
    expect(allowed.every((position) => position >= 1 && position <= limit)).toBe(true);
    // A process is refused only while the other holds unspent units: at most one block of them.
    expect(allowed.length).toBeGreaterThanOrEqual(limit - (DEFAULT_LEASE_POLICY.maxLease - 1));
    expect(one!.refused + two!.refused).toBe(3_000 - allowed.length);
    // Both gave their held units back at close: the shared count is what was served.
    const store = await openSqliteStore({ path: database.path });
    try {
      const next = await store.rateLimiter.consume({ key: 'shared', limit, windowMs: 3_600_000, now: 1_000 });
      expect(next.used).toBe(Math.min(limit, allowed.length + 1));
    } finally {
      await store.close();
    }
  }, 60_000);
});
