import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChildServer, spawnServer } from './support.js';

let dataDir: string;
let started: ChildServer | undefined;
let serverPid: number | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'mdstore-npm-start-'));
});
afterEach(async () => {
  if (started?.child.exitCode === null) started.child.kill('SIGKILL');
  if (serverPid !== undefined && isRunning(serverPid)) process.kill(serverPid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function portIsFree(port: number): Promise<boolean> {
  const probe = createServer();
  probe.listen(port, '127.0.0.1');
  try {
    await once(probe, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    probe.close();
  }
}

describe('npm start', () => {
  it('stops the server when the npm process gets SIGTERM (as systemd or a container runtime sends it)', async () => {
    // What a supervisor runs: `npm start` (which builds first), then SIGTERM to the process it started.
    started = spawnServer({ MDSTORE_DATA_DIR: dataDir, PORT: '0' }, ['npm', 'start']);
    const ready = await started.logLine(/^mdstore listening on /);
    serverPid = Number(ready.pid);
    const port = Number(new URL(String(ready.url)).port);
    expect(serverPid).not.toBe(started.child.pid);
    expect(await portIsFree(port)).toBe(false);

    const signalled = performance.now();
    // 'exit', not 'close': a server left behind would hold the output pipes open forever.
    const npmExited = once(started.child, 'exit');
    started.child.kill('SIGTERM');
    await Promise.race([npmExited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    expect(started.child.exitCode ?? started.child.signalCode).not.toBeNull();
    await expect.poll(() => isRunning(serverPid!), { timeout: 5_000, interval: 50 }).toBe(false);
    expect(await portIsFree(port)).toBe(true);
    expect(performance.now() - signalled).toBeLessThan(8_000);
    const stopped = started.stdout.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line).msg);
    expect(stopped).toEqual(expect.arrayContaining(['stopping', 'mdstore stopped']));
  }, 240_000);

  it('stops gracefully and exits 0 when the whole process group gets SIGINT (Ctrl-C), with two workers', async () => {
    started = spawnServer({ MDSTORE_DATA_DIR: dataDir, PORT: '0', MDSTORE_WORKERS: '2' }, ['npm', 'start'], {
      detached: true,
    });
    const ready = await started.logLine(/^mdstore listening on /);
    serverPid = Number(ready.pid);
    const workers = (ready.workers as Array<{ pid: number }>).map((w) => w.pid);
    expect(workers).toHaveLength(2);
    process.kill(-started.child.pid!, 'SIGINT');
    expect(await started.exited).toBe(0);
    const lines = started.stdout
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Each process gets a second signal during its stop: npm forwards the group's SIGINT to the primary
    // (the kernel may merge the two), and the primary's SIGTERM follows the group's SIGINT at each
    // worker. Without an idempotent stop a worker would exit 1 at once, and so would the primary and npm.
    expect(lines.filter((l) => l.msg === 'mdstore stopped').map((l) => l.pid)).toEqual(
      expect.arrayContaining([serverPid, ...workers]),
    );
    expect(lines.find((l) => l.pid === serverPid && l.msg === 'mdstore stopped')).toMatchObject({
      exitCode: 0,
    });
    for (const pid of [serverPid, ...workers]) expect(isRunning(pid)).toBe(false);
  }, 240_000);
});
