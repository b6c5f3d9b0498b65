import type { BudgetGrant, SharedBudget } from '@mdstore/core';

export interface BudgetModel {
  readonly shared: SharedBudget;
  /** The count of every key's current window, as the store holds it. */
  readonly windows: Map<string, { used: number; resetAt: number }>;
  /** Every take in order: what was asked, what was granted. */
  readonly takes: { key: string; want: number; granted: number; usedBefore: number }[];
  readonly givenBack: { key: string; units: number; resetAt: number }[];
  /** Makes the next calls of `take` or `giveBack` fail (one per entry). */
  readonly failNext: ('take' | 'giveBack')[];
}

/**
 * A `SharedBudget` in memory with the adapters' semantics. `allOrNothing` grants either the whole `want`
 * or, when it does not fit, one unit if one is left (PostgreSQL's adapter); otherwise the grant is cut to
 * what is left (SQLite's). `defer` wraps each call, e.g. in a fast-check scheduler, so that calls from
 * several limiters interleave; each call is atomic where `defer` runs it.
 */
export function createBudgetModel(
  o: { allOrNothing?: boolean; defer?: <T>(run: () => T) => Promise<T> } = {},
): BudgetModel {
  const windows = new Map<string, { used: number; resetAt: number }>();
  const takes: BudgetModel['takes'] = [];
  const givenBack: BudgetModel['givenBack'] = [];
  const failNext: BudgetModel['failNext'] = [];
  const defer = o.defer ?? (async <T>(run: () => T) => run());
  const failing = (what: 'take' | 'giveBack') => {
    if (failNext[0] !== what) return false;
    failNext.shift();
    return true;
  };

  const take = (r: Parameters<SharedBudget['take']>[0]): BudgetGrant => {
    if (failing('take')) throw new Error('take failed');
    const stored = windows.get(r.key);
    const open = stored !== undefined && r.now < stored.resetAt;
    const usedBefore = open ? stored.used : 0;
    const resetAt = open ? stored.resetAt : r.now + r.windowMs;
    const left = Math.max(0, r.limit - usedBefore);
    const fits = Math.min(r.want, left);
    const granted = o.allOrNothing ? (r.want <= left ? r.want : Math.min(1, left)) : fits;
    takes.push({ key: r.key, want: r.want, granted, usedBefore });
    if (granted > 0) windows.set(r.key, { used: usedBefore + granted, resetAt });
    return { granted, used: usedBefore + granted, resetAt };
  };

  const shared: SharedBudget = {
    take: (r) => defer(() => take(r)),
    giveBack: (r) =>
      defer(() => {
        if (failing('giveBack')) throw new Error('give-back failed');
        const stored = windows.get(r.key);
        if (stored && stored.resetAt === r.resetAt && stored.used >= r.units) {
          stored.used -= r.units;
          givenBack.push(r);
        }
      }),
    close: async () => {},
  };
  return { shared, windows, takes, givenBack, failNext };
}
