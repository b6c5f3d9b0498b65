import { spawn } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { createInstanceProbe } from '../../src/instance-probe.js';

const failingKill = (code: string) => () => {
  throw Object.assign(new Error(code), { code });
};

describe('createInstanceProbe', () => {
  it('identifies this process by host name and pid', () => {
    const probe = createInstanceProbe();
    expect(probe.pid).toBe(process.pid);
    expect(probe.hostname.startsWith(os.hostname())).toBe(true);
  });

  it('answers from process.kill(pid, 0): ESRCH is gone, success and EPERM are running', () => {
    const at = (kill: (pid: number, signal: 0) => void) =>
      createInstanceProbe({ hostname: 'h', pid: 1, kill });
    expect(at(() => {}).isRunning({ hostname: 'h', pid: 42 })).toBe(true);
    expect(at(failingKill('EPERM')).isRunning({ hostname: 'h', pid: 42 })).toBe(true);
    expect(at(failingKill('ESRCH')).isRunning({ hostname: 'h', pid: 42 })).toBe(false);
    expect(at(failingKill('EINVAL')).isRunning({ hostname: 'h', pid: 42 })).toBeUndefined();
  });

  it('does not know about other hosts, its own pid or impossible pids', () => {
    const probe = createInstanceProbe({ hostname: 'h', pid: 7, kill: failingKill('ESRCH') });
    expect(probe.isRunning({ hostname: 'other', pid: 42 })).toBeUndefined();
    expect(probe.isRunning({ hostname: 'h', pid: 7 })).toBeUndefined();
    expect(probe.isRunning({ hostname: 'h', pid: 0 })).toBeUndefined();
    expect(probe.isRunning({ hostname: 'h', pid: -1 })).toBeUndefined();
  });

  it('sees a real process end', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const probe = createInstanceProbe();
    const pid = child.pid!;
    expect(probe.isRunning({ hostname: probe.hostname, pid })).toBe(true);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(probe.isRunning({ hostname: probe.hostname, pid })).toBe(false);
  });
});
