import { CHANGESET_WORK, OperationFailedError, type RecordsRepository } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture } from './support/fixture.js';

/** `applyChangeset` for embedders and the importer (extensions §9, §10): its content bound. */
describe('applyChangeset', () => {
  it('bounds put content at maxFileBytes × 4 in all, unless the caller gives its own bound', async () => {
    const f = createFixture({ settings: { maxFileBytes: 10 } });
    const { principal } = await anAccount(f.store, 'importer');
    const { id: projectId } = await f.store.projects.create({ principal, body: { name: 'p' } });
    const operations = Array.from({ length: 5 }, (_, i) => ({
      op: 'put' as const,
      filename: `f${i}.md`,
      content: '0123456789',
    }));
    const refused = await f.store.changesets.apply({ principal, projectId, operations }).catch((e) => e);
    expect(refused).toBeInstanceOf(OperationFailedError);
    expect(refused).toMatchObject({ code: 'CONTENT_TOO_LARGE', operation: 4 });
    expect((await f.store.projects.get({ principal, projectId })).fileCount).toBe(0);
    const applied = await f.store.changesets.apply({ principal, projectId, operations, maxContentBytes: 50 });
    expect(applied.files).toHaveLength(5);
    expect((await f.store.projects.get({ principal, projectId })).fileCount).toBe(5);
  });

  it('judges the content in all before any operation is planned: no file read, 413 at the passing operation', async () => {
    const calls: string[] = [];
    const f = createFixture({ settings: { maxFileBytes: 10 } });
    const logged = new Proxy(f.records, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return value.apply(target, args);
        };
      },
    }) as RecordsRepository;
    const store = f.restart({ records: logged, settings: { maxFileBytes: 10 } });
    const { principal } = await anAccount(store, 'writer');
    const { id: projectId } = await store.projects.create({ principal, body: { name: 'p' } });
    // The first operation names files (a plan would read them); the total passes at operation 5.
    const operations = [
      { op: 'delete', filename: 'missing.md' },
      ...Array.from({ length: 5 }, (_, i) => ({ op: 'put', filename: `f${i}.md`, content: 'é'.repeat(5) })),
    ];
    calls.length = 0;
    const refused = await store.changesets.apply({ principal, projectId, operations }).catch((e) => e);
    expect(refused).toMatchObject({ code: 'CONTENT_TOO_LARGE', operation: 5 });
    // The project's access check only: no file of the changeset was looked up.
    expect(calls.filter((name) => name.startsWith('findFile'))).toEqual([]);
  });

  it('gives the event loop a turn every CHANGESET_WORK.unitsPerTurn code units worked on, whatever the file count', async () => {
    const f = createFixture({ settings: { maxFileBytes: 64 * 1024 } });
    const { principal } = await anAccount(f.store, 'writer');
    const { id: projectId } = await f.store.projects.create({ principal, body: { name: 'p' } });
    // 100 files of 16 KiB: several times `unitsPerTurn` (a turn per megabyte would give two).
    const files = 100;
    const operations = Array.from({ length: files }, (_, i) => ({
      op: 'put' as const,
      filename: `f${i}.md`,
      content: `# ${i}\n\n${'lorem ipsum [[x]]\n'.repeat((16 * 1024) / 18)}`,
    }));
    let turns = 0;
    let running = true;
    const tick = () => {
      if (!running) return;
      turns += 1;
      setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const applied = await f.store.changesets.apply({
      principal,
      projectId,
      operations,
      maxContentBytes: 4 * 1024 ** 2,
    });
    running = false;
    expect(applied.files).toHaveLength(files);
    const units = operations.reduce((sum, op) => sum + op.content.length, 0);
    expect(Math.floor(units / CHANGESET_WORK.unitsPerTurn)).toBeGreaterThanOrEqual(5);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(units / CHANGESET_WORK.unitsPerTurn));
  });
});
