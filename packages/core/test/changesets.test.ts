import { OperationFailedError } from '@mdstore/core';
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
});
