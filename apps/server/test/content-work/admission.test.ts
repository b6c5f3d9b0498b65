import { CONTENT_WORK_LIMITS } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { PoolAdmission } from '../../src/content-work/admission.js';
import { currentAccount, runForAccount } from '../../src/content-work/owner.js';

/**
 * The content work pool's admission (content-work/admission.ts): its own bounds (threads running,
 * `queue` waiting) and each account's share of them. Tasks are fake and slow (they end when the test
 * says so); admissions are counted, nothing is timed.
 */

/** A fake slow task of `account`: admitted or refused; it holds its place until `finish()`. */
function submit(admission: PoolAdmission, account: string | undefined, counts: Counts, signal?: AbortSignal) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const ran = admission.enter(account, signal).then(
    async () => {
      counts.admitted++;
      await done;
      admission.leave(account);
      return 'ran' as const;
    },
    (error: unknown) => {
      counts.refused++;
      return (error as { code?: string }).code ?? 'aborted';
    },
  );
  return { ran, finish };
}

interface Counts {
  admitted: number;
  refused: number;
}

/** Lets every settled admission run its continuation. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PoolAdmission', () => {
  it('one account holds at most its share of the places; other accounts get the rest', async () => {
    const admission = new PoolAdmission({ threads: 1, queue: 8, perAccount: 3 });
    const a: Counts = { admitted: 0, refused: 0 };
    const b: Counts = { admitted: 0, refused: 0 };
    const tasksOfA = Array.from({ length: 10 }, () => submit(admission, 'a', a));
    await settle();
    // 1 running and 2 waiting: the other 7 refused at once (503), not queued.
    expect(a).toEqual({ admitted: 1, refused: 7 });
    expect(admission.heldBy('a')).toBe(3);
    expect(await Promise.all(tasksOfA.slice(3).map((task) => task.ran))).toEqual(
      Array(7).fill('CONTENT_WORK_BUSY'),
    );
    // Another account still gets in (waits for a worker like any task, within the queue).
    const tasksOfB = Array.from({ length: 3 }, () => submit(admission, 'b', b));
    await settle();
    expect(b).toEqual({ admitted: 0, refused: 0 });
    expect(admission.heldBy('b')).toBe(3);
    // First come, first served: a's three run, then b's.
    for (const task of tasksOfA.slice(0, 3)) {
      task.finish();
      await settle();
    }
    expect(a.admitted).toBe(3);
    expect(b.admitted).toBe(1);
    expect(admission.heldBy('a')).toBe(0);
    // a's places are free again.
    const again = submit(admission, 'a', a);
    await settle();
    expect(a.refused).toBe(7);
    for (const task of [...tasksOfB, again]) {
      task.finish();
      await settle();
    }
    expect(await again.ran).toBe('ran');
    expect({ a, b }).toEqual({ a: { admitted: 4, refused: 7 }, b: { admitted: 3, refused: 0 } });
  });

  it('the pool’s own queue bounds every account together; tasks of no account count only there', async () => {
    const admission = new PoolAdmission({ threads: 1, queue: 2, perAccount: 2 });
    const counts: Counts = { admitted: 0, refused: 0 };
    const tasks = [
      submit(admission, undefined, counts),
      submit(admission, undefined, counts),
      submit(admission, 'a', counts),
      submit(admission, 'b', counts),
    ];
    await settle();
    expect(counts).toEqual({ admitted: 1, refused: 1 });
    expect(await tasks[3]!.ran).toBe('CONTENT_WORK_BUSY');
    for (const task of tasks.slice(0, 3)) {
      task.finish();
      await settle();
    }
    expect(counts).toEqual({ admitted: 3, refused: 1 });
  });

  it('a waiting task whose request goes away gives its account’s place back', async () => {
    const admission = new PoolAdmission({ threads: 1, queue: 8, perAccount: 2 });
    const counts: Counts = { admitted: 0, refused: 0 };
    const running = submit(admission, 'a', counts);
    const controller = new AbortController();
    const waiting = submit(admission, 'a', counts, controller.signal);
    await settle();
    expect(admission.heldBy('a')).toBe(2);
    controller.abort(new Error('went away'));
    expect(await waiting.ran).toBe('aborted');
    expect(admission.heldBy('a')).toBe(1);
    running.finish();
    expect(await running.ran).toBe('ran');
    expect(admission.heldBy('a')).toBe(0);
  });

  it('the default share leaves most of the default pool to other accounts', () => {
    expect(CONTENT_WORK_LIMITS.defaultTasksPerAccount).toBeLessThan((1 + 8) / 2);
  });
});

describe('the account of the current work', () => {
  it('is the one work runs for, across awaits, and none outside', async () => {
    expect(currentAccount()).toBeUndefined();
    const seen = await runForAccount('acc-1', async () => {
      await settle();
      return currentAccount();
    });
    expect(seen).toBe('acc-1');
    expect(currentAccount()).toBeUndefined();
  });
});
