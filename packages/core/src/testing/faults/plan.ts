import { StoreUnavailableError } from '../../errors.js';

/** The port a wrapped call belongs to. */
export type FaultPort = 'records' | 'blobs' | 'rateLimiter';

/**
 * Where in a call a fault may strike. Ordinary methods have one point, `call`. `withTransaction` has
 * three: `beforeWork` (inside the transaction, before the work runs), `beforeCommit` (the work resolved;
 * throwing here must roll it back) and `afterCommit` (the transaction committed but the caller hears a
 * failure: the lost acknowledgement of a connection that died right after COMMIT).
 */
export type FaultPoint = 'call' | 'beforeWork' | 'beforeCommit' | 'afterCommit';

/** One decision point, as the wrappers present it to a plan. */
export interface FaultCall {
  readonly port: FaultPort;
  /** The port method, e.g. `put`, `findFile`, `withTransaction`; transaction methods as `tx.insertFile`. */
  readonly method: string;
  /** 1-based count of calls of this method through this wrapper (points of one call share the number). */
  readonly call: number;
  readonly point: FaultPoint;
}

/**
 * What to do to a call:
 * - `throw`: reject with `error()`; `when: 'after'` runs the real call first (its effect happens, the
 *   caller hears a failure), `'before'` (default) never reaches the store.
 * - `hang`: never reach the store and never answer, until the call's abort signal fires (reject with its
 *   reason) or `maxMs` passes (reject with `error()`, by default a `StoreUnavailableError` timeout).
 * - `breakStream`: for `put`, the store receives the content's first `afterBytes` bytes and then the
 *   content fails with `error()`; for `get`, the returned content yields `afterBytes` bytes and then
 *   throws `error()`. On any other method it acts as `throw`.
 * - `pause`: waits for `until()` to settle, then lets the call through; e.g. at `beforeCommit`, holds a
 *   transaction open while the test kills its connection.
 */
export type FaultAction =
  | { readonly kind: 'throw'; readonly error: () => unknown; readonly when?: 'before' | 'after' }
  | { readonly kind: 'hang'; readonly maxMs: number; readonly error?: () => unknown }
  | { readonly kind: 'breakStream'; readonly afterBytes: number; readonly error: () => unknown }
  | { readonly kind: 'pause'; readonly until: () => Promise<unknown> };

/** A fault that was injected, for logs and statistics. */
export interface InjectedFault extends FaultCall {
  readonly action: FaultAction['kind'];
}

/** Decides, per decision point, whether a fault strikes. `undefined` lets the call through untouched. */
export interface FaultPlan {
  decide(call: FaultCall): FaultAction | undefined;
  /** Told of every fault actually injected. */
  injected?(fault: InjectedFault): void;
}

export const noFaults: FaultPlan = { decide: () => undefined };

/** An error shaped like Node's system errors (`code`, `errno`, `syscall`), e.g. ENOSPC on `write`. */
export function systemError(code: string, syscall = 'write'): NodeJS.ErrnoException {
  const messages: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EIO: 'i/o error',
    ECONNRESET: 'socket hang up',
    ETIMEDOUT: 'operation timed out',
  };
  const error: NodeJS.ErrnoException = new Error(
    `${code}: ${messages[code] ?? 'injected failure'}, ${syscall}`,
  );
  error.code = code;
  error.syscall = syscall;
  error.errno = -1;
  return error;
}

export const unavailableError = (message = 'injected: store unavailable') =>
  new StoreUnavailableError(message);

export const throwing = (error: () => unknown, when: 'before' | 'after' = 'before'): FaultAction => ({
  kind: 'throw',
  error,
  when,
});
export const hanging = (maxMs: number, error?: () => unknown): FaultAction => ({
  kind: 'hang',
  maxMs,
  error,
});
export const breakingStream = (afterBytes: number, error: () => unknown): FaultAction => ({
  kind: 'breakStream',
  afterBytes,
  error,
});

export const pausing = (until: () => Promise<unknown>): FaultAction => ({ kind: 'pause', until });

/** One rule of a scripted plan; a field left out matches anything. */
export interface FaultRule {
  readonly port?: FaultPort;
  readonly method?: string;
  /** Which calls: one number, a list, or a predicate. */
  readonly call?: number | readonly number[] | ((call: number) => boolean);
  readonly point?: FaultPoint;
  readonly action: FaultAction;
  /** How many times the rule may fire (default unlimited). */
  readonly times?: number;
}

const callMatches = (rule: FaultRule, call: number) => {
  if (rule.call === undefined) return true;
  if (typeof rule.call === 'number') return rule.call === call;
  if (typeof rule.call === 'function') return rule.call(call);
  return rule.call.includes(call);
};

const pointMatches = (rule: FaultRule, point: FaultPoint) =>
  // A rule without a point hits ordinary calls only, not each of a transaction's three points.
  rule.point === undefined ? point === 'call' || point === 'beforeWork' : rule.point === point;

/**
 * A plan from rules, first match wins. `enabled` can be switched off and on (e.g. to check the stores
 * with faults off between steps); `log` lists every injected fault.
 */
export function scriptedFaults(rules: readonly FaultRule[]) {
  const fired = new Map<FaultRule, number>();
  const log: InjectedFault[] = [];
  const plan = {
    enabled: true,
    log,
    decide(call: FaultCall): FaultAction | undefined {
      if (!plan.enabled) return undefined;
      for (const rule of rules) {
        if (rule.port !== undefined && rule.port !== call.port) continue;
        if (rule.method !== undefined && rule.method !== call.method) continue;
        if (!pointMatches(rule, call.point) || !callMatches(rule, call.call)) continue;
        const count = fired.get(rule) ?? 0;
        if (rule.times !== undefined && count >= rule.times) continue;
        fired.set(rule, count + 1);
        return rule.action;
      }
      return undefined;
    },
    injected(fault: InjectedFault) {
      log.push(fault);
    },
  };
  return plan;
}

/** mulberry32: a tiny seeded generator, so a failing random run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A plan that strikes each eligible decision point with probability `rate`, choosing among `actions`,
 * from a seeded source. `eligible` narrows the points (default: all).
 */
export function randomFaults(options: {
  seed: number;
  rate: number;
  actions: readonly FaultAction[];
  eligible?: (call: FaultCall) => boolean;
}) {
  const random = seededRandom(options.seed);
  const log: InjectedFault[] = [];
  const plan = {
    enabled: true,
    log,
    decide(call: FaultCall): FaultAction | undefined {
      if (!plan.enabled || options.actions.length === 0) return undefined;
      if (options.eligible && !options.eligible(call)) return undefined;
      if (random() >= options.rate) return undefined;
      return options.actions[Math.floor(random() * options.actions.length)];
    },
    injected(fault: InjectedFault) {
      log.push(fault);
    },
  };
  return plan;
}
