import { readlinkSync } from 'node:fs';
import os from 'node:os';
import type { InstanceProbe } from '@mdstore/core';

export interface InstanceProbeOptions {
  /** Default: `os.hostname()`, qualified by the PID namespace where the system exposes it. */
  readonly hostname?: string;
  readonly pid?: number;
  /** Default `process.kill`; signal 0 only checks that the process exists. */
  readonly kill?: (pid: number, signal: 0) => void;
}

/**
 * Tells reconciliation at once when a server process on this same host has ended, so that its abandoned
 * writes need not wait for the heartbeat lease. Only answers for the same host *and* PID namespace:
 * containers sharing a host name (e.g. `--network host`) have separate PID spaces, where a missing PID
 * says nothing. The probe never answers for its own PID (another store in this process may own it).
 */
export function createInstanceProbe(options: InstanceProbeOptions = {}): InstanceProbe {
  const hostname = options.hostname ?? qualifiedHostname();
  const pid = options.pid ?? process.pid;
  const kill = options.kill ?? ((target: number, signal: 0) => process.kill(target, signal));
  return {
    hostname,
    pid,
    isRunning(instance) {
      if (instance.hostname !== hostname || instance.pid === pid || !Number.isSafeInteger(instance.pid)) {
        return undefined;
      }
      if (instance.pid <= 0) return undefined;
      try {
        kill(instance.pid, 0);
        return true;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === 'ESRCH') return false;
        // EPERM: the process exists but belongs to someone else.
        if (code === 'EPERM') return true;
        return undefined;
      }
    },
  };
}

/** `host` or, on Linux, `host/pidns:4026531836`: equal only for processes that can see each other's PIDs. */
function qualifiedHostname(): string {
  const host = os.hostname();
  try {
    const namespace = readlinkSync('/proc/self/ns/pid'); // e.g. "pid:[4026531836]"
    const id = /\[(\d+)\]/.exec(namespace)?.[1];
    return id ? `${host}/pidns:${id}` : host;
  } catch {
    return host;
  }
}
