import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture, textStream } from './support/fixture.js';

/**
 * The project storage cap (`maxProjectBytes`, `MDSTORE_MAX_PROJECT_BYTES`): current content, history
 * and trash count together; a write may reach the cap exactly, not pass it; a project already above it
 * (the cap lowered) still takes writes that free bytes. (The mutation run found the cap's arithmetic
 * reached only by the HTTP suites; see docs/testing.md.)
 */

async function scene(maxProjectBytes: number) {
  const fixture = createFixture({ settings: { maxProjectBytes } });
  const alice = await anAccount(fixture.store, 'alice');
  const project = await fixture.store.projects.create({
    principal: alice.principal,
    body: { name: 'capped', settings: { keep_revisions: 5, trash_retention_days: 1 } },
  });
  const at = { principal: alice.principal, projectId: project.id };
  const put = (filename: string, text: string) =>
    codeOf(() => fixture.store.files.upload({ ...at, filename, content: textStream(text) }));
  const replace = (filename: string, text: string) =>
    codeOf(() => fixture.store.files.updateContent({ ...at, filename, content: textStream(text) }));
  const held = async () => {
    const p = await fixture.store.projects.get(at);
    return [p.totalSizeBytes, p.historySizeBytes, p.trashSizeBytes];
  };
  return { ...fixture, at, put, replace, held };
}

describe('the project storage cap', () => {
  it('takes writes up to the cap exactly and refuses the byte beyond, changing nothing', async () => {
    const { put, held } = await scene(10);
    expect(await put('a.md', '123456')).toBe('OK');
    expect(await put('b.md', '1234')).toBe('OK');
    expect(await put('c.md', '1')).toBe('STORAGE_LIMIT_REACHED');
    expect(await held()).toEqual([10, 0, 0]);
  });

  it('counts history and trash with the current content', async () => {
    const { store, at, put, replace, held } = await scene(10);
    expect(await put('a.md', '1234')).toBe('OK');
    expect(await replace('a.md', '12345')).toBe('OK'); // 5 current + 4 kept as history
    expect(await held()).toEqual([5, 4, 0]);
    expect(await put('b.md', '12')).toBe('STORAGE_LIMIT_REACHED');
    expect(await put('b.md', '1')).toBe('OK');
    await store.files.delete({ ...at, filename: 'b.md' }); // into the trash: still held
    expect(await held()).toEqual([5, 4, 1]);
    expect(await put('c.md', '1')).toBe('STORAGE_LIMIT_REACHED');
  });

  it('refuses a move with rewrite_links whose rewrites pass the cap, as the move’s own error', async () => {
    const { store, at, put, held } = await scene(30);
    expect(await put('a.md', '[x](b.md)\n')).toBe('OK');
    expect(await put('b.md', 'B\n')).toBe('OK');
    // a.md grows by 14 bytes and keeps its 10 as history: 12 + 24 held, above 30.
    const move = () =>
      store.files.move({ ...at, filename: 'b.md', body: { to: 'sub/longer-name.md', rewrite_links: true } });
    const refused = await move().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'STORAGE_LIMIT_REACHED' });
    // Not a changeset operation's error (no operation index, no `body.operations` issue).
    expect(refused).not.toHaveProperty('operation');
    expect(await held()).toEqual([12, 0, 0]);
    expect((await store.files.list(at)).files.map((f) => f.filename).sort()).toEqual(['a.md', 'b.md']);
  });

  it('above a lowered cap, takes writes that free bytes and refuses those that add', async () => {
    const first = await scene(100);
    expect(await first.put('a.md', '12345678')).toBe('OK');
    const store = first.restart({ settings: { maxProjectBytes: 4 } });
    const replace = (text: string) =>
      codeOf(() => store.files.updateContent({ ...first.at, filename: 'a.md', content: textStream(text) }));
    expect(await replace('123456789')).toBe('STORAGE_LIMIT_REACHED');
    // A smaller content still adds here: the old one stays as history (2 + 8 held, more than 8).
    expect(await replace('12')).toBe('STORAGE_LIMIT_REACHED');
    // A delete into the trash holds the same bytes (not more): taken.
    expect(await codeOf(() => store.files.delete({ ...first.at, filename: 'a.md' }))).toBe('OK');
    expect(await first.held()).toEqual([0, 0, 8]);
  });
});
