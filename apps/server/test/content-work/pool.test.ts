import { describeContentWorkContract } from '@mdstore/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContentWorkConfig } from '../../src/content-work/defaults.js';
import { runForAccount } from '../../src/content-work/owner.js';
import { PiscinaContentWork } from '../../src/content-work/pool.js';

/**
 * The piscina pool (content-work/pool.ts): the shared behaviour of every `ContentWork`, then what only
 * a pool does: a task past its deadline is stopped and refused, a worker past its memory limit dies,
 * its task is refused and the pool goes on, a full queue refuses at once. Assertions are on codes,
 * never on timings.
 */

const CONFIG: ContentWorkConfig = { threads: 1, deadlineMs: 60_000, memoryMb: 256, queue: 8 };

const threadErrors: unknown[] = [];
const open = (config: Partial<ContentWorkConfig> = {}) =>
  new PiscinaContentWork({ ...CONFIG, ...config }, (error) => threadErrors.push(error));

const shared = open();
afterAll(() => shared.close());

describeContentWorkContract('piscina', async () => ({ work: shared, close: async () => {} }));

/** 1.5 MiB of prose: above one inline step's bound, well within the pool's. */
const LARGE = 'Some prose with [a](b.md) link and *emphasis*.\n\n'.repeat(32_000);

describe('PiscinaContentWork', () => {
  it('a task past its deadline is stopped and refused with WORK_LIMIT_EXCEEDED (deadline)', async () => {
    const pool = open({ deadlineMs: 1 });
    try {
      await expect(pool.outline({ text: LARGE, mdx: false })).rejects.toMatchObject({
        code: 'WORK_LIMIT_EXCEEDED',
        reason: 'deadline',
      });
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('a worker past its memory limit: WORK_LIMIT_EXCEEDED (memory), and the next task is answered', async () => {
    const pool = open({ memoryMb: 48 });
    try {
      await pool.outline({ text: '# warm\n', mdx: false });
      // 300 000 links: within the pool's work estimate, far beyond 48 MB of heap for their tokens.
      const links = '[a](b) '.repeat(300_000);
      await expect(pool.outline({ text: links, mdx: false })).rejects.toMatchObject({
        code: 'WORK_LIMIT_EXCEEDED',
        reason: 'memory',
      });
      const after = await pool.outline({ text: '# still here\n', mdx: false });
      expect(after.headings.map((heading) => heading.text)).toEqual(['still here']);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('past its queue a task is refused at once with CONTENT_WORK_BUSY', async () => {
    const pool = open({ queue: 0 });
    try {
      await pool.outline({ text: '# warm\n', mdx: false });
      const running = pool.outline({ text: LARGE, mdx: false });
      await expect(pool.outline({ text: '# more\n', mdx: false })).rejects.toMatchObject({
        code: 'CONTENT_WORK_BUSY',
      });
      await expect(running).resolves.toMatchObject({ headings: [] });
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('tasks wait in a bounded queue; a waiting task whose request goes away leaves it', async () => {
    const pool = open({ queue: 1 });
    try {
      await pool.outline({ text: '# warm\n', mdx: false });
      const running = pool.outline({ text: LARGE, mdx: false });
      const controller = new AbortController();
      const waiting = pool.outline({ text: '# b\n', mdx: false }, controller.signal);
      await expect(pool.outline({ text: '# c\n', mdx: false })).rejects.toMatchObject({
        code: 'CONTENT_WORK_BUSY',
      });
      controller.abort(new Error('went away'));
      await expect(waiting).rejects.toThrow('went away');
      const next = pool.outline({ text: '# d\n', mdx: false });
      await expect(running).resolves.toMatchObject({ headings: [] });
      await expect(next).resolves.toMatchObject({ headings: [{ text: 'd' }] });
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('one account past its share is refused at once while another account’s task is taken', async () => {
    const pool = open({ perAccount: 1 });
    try {
      await pool.outline({ text: '# warm\n', mdx: false });
      const running = runForAccount('a', () => pool.outline({ text: LARGE, mdx: false }));
      await expect(
        runForAccount('a', () => pool.outline({ text: '# more\n', mdx: false })),
      ).rejects.toMatchObject({
        code: 'CONTENT_WORK_BUSY',
      });
      const other = runForAccount('b', () => pool.outline({ text: '# other\n', mdx: false }));
      await expect(running).resolves.toMatchObject({ headings: [] });
      await expect(other).resolves.toMatchObject({ headings: [{ text: 'other' }] });
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('the request going away aborts its task with the request signal`s reason', async () => {
    const controller = new AbortController();
    const task = shared.outline({ text: LARGE, mdx: false }, controller.signal);
    controller.abort(new Error('client went away'));
    await expect(task).rejects.toThrow('client went away');
  }, 60_000);

  it('no worker failed outside a task', () => {
    expect(threadErrors).toEqual([]);
  });
});

describe('the HTTP answer of a full pool', () => {
  it('CONTENT_WORK_BUSY is 503 with Retry-After: 1', async () => {
    const { ContentWorkBusyError } = await import('@mdstore/core');
    const { toErrorResponse } = await import('../../src/http/errors.js');
    expect(toErrorResponse(new ContentWorkBusyError())).toEqual({
      status: 503,
      detail: 'Service Unavailable: too much work on large files is under way; try again shortly',
      headers: { 'Retry-After': '1' },
    });
  });
});
