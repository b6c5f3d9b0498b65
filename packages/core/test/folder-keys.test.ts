import type { MdStore, Principal } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture, readText, textStream } from './support/fixture.js';

/**
 * Extensions §14: keys confined to folders (`path_prefixes`). To such a key the files outside its
 * folders do not exist (404 for reads and writes alike, left out of lists, links and exports); the
 * operations that do not keep to folders yet are refused whole (403); a key makes only keys inside
 * its own folders.
 */
async function scene() {
  const { store } = createFixture();
  const admin = await anAccount(store, 'alice');
  const projectId = admin.defaultProjectId;
  const put = (principal: Principal, filename: string, text: string) =>
    store.files.upload({ principal, projectId, filename, content: textStream(text) });
  for (const name of ['memories/a.md', 'memories/deep/b.md', 'notes/n.md', 'top.md', 'memoriesX/c.md'])
    await put(admin.principal, name, `# ${name}\n\nSee [[a]].\n`);
  const keyOf = async (body: Record<string, unknown>, creator: Principal = admin.principal) => {
    const created = await store.keys.create({
      principal: creator,
      body: { name: 'agent', role: 'write', ...body },
    });
    return { created, principal: await store.authenticate({ apiKey: created.apiKey }) };
  };
  const agent = (await keyOf({ path_prefixes: ['memories'] })).principal;
  return { store, admin, projectId, put, keyOf, agent };
}

const names = async (store: MdStore, principal: Principal, projectId: string, params = {}) =>
  (await store.files.list({ principal, projectId, params })).files.map((file) => file.filename);

describe('keys confined to folders (extensions §14)', () => {
  it('stores folders with their closing slash, without repeats or folders inside others, and checks each', async () => {
    const { keyOf, store, admin } = await scene();
    const { created } = await keyOf({
      path_prefixes: ['notes/b', 'memories', 'notes/', 'memories/x/', 'memories/'],
    });
    expect(created.pathPrefixes).toEqual(['memories/', 'notes/']);
    // 21 folders: past the bound each list and search walks per folder (KEY_LIMITS.maxPathPrefixes).
    const tooMany = Array.from({ length: 21 }, (_, i) => `f${i}/`);
    for (const bad of [['../x'], [''], ['a//b'], ['guide.md/'], [], ['/abs'], tooMany]) {
      const code = await codeOf(() =>
        store.keys.create({
          principal: admin.principal,
          body: { name: 'k', role: 'read', path_prefixes: bad },
        }),
      );
      expect(code, JSON.stringify(bad)).toBe('INVALID_INPUT');
    }
  });

  it('a key confined to folders makes only keys inside them', async () => {
    const { store, agent } = await scene();
    const make = (body: Record<string, unknown>) =>
      codeOf(() => store.keys.create({ principal: agent, body: { name: 'k', role: 'read', ...body } }));
    expect(await make({})).toBe('OPERATION_NOT_ALLOWED');
    expect(await make({ path_prefixes: ['notes/'] })).toBe('OPERATION_NOT_ALLOWED');
    expect(await make({ path_prefixes: ['memoriesX/'] })).toBe('OPERATION_NOT_ALLOWED');
    expect(await make({ path_prefixes: ['memories/deep'] })).toBe('OK');
    expect(await make({ path_prefixes: ['memories/'] })).toBe('OK');
  });

  it('an admin key confined to folders lists only the keys confined inside them', async () => {
    const { store, keyOf } = await scene();
    const lead = (await keyOf({ role: 'admin', path_prefixes: ['memories/'] })).principal;
    await keyOf({ name: 'inside', path_prefixes: ['memories/deep/'] });
    await keyOf({ name: 'beside', path_prefixes: ['notes/'] });
    const listed = await store.keys.list({ principal: lead });
    expect(listed.map((key) => key.pathPrefixes?.join()).sort()).toEqual([
      'memories/',
      'memories/',
      'memories/deep/',
    ]);
  });

  it('reads and writes outside the folders are 404, whether the file exists or not', async () => {
    const { store, agent, projectId, put, admin } = await scene();
    const file = { principal: agent, projectId };
    expect(await codeOf(() => store.files.read({ ...file, filename: 'notes/n.md' }))).toBe('FILE_NOT_FOUND');
    expect(await codeOf(() => store.files.read({ ...file, filename: 'memoriesX/c.md' }))).toBe(
      'FILE_NOT_FOUND',
    );
    expect(await codeOf(() => store.files.listRevisions({ ...file, filename: 'top.md' }))).toBe(
      'FILE_NOT_FOUND',
    );
    expect(await codeOf(() => store.files.delete({ ...file, filename: 'notes/n.md' }))).toBe(
      'FILE_NOT_FOUND',
    );
    expect(await codeOf(() => put(agent, 'notes/new.md', '# x'))).toBe('FILE_NOT_FOUND');
    expect(await codeOf(() => put(agent, 'memories/new.md', '# x'))).toBe('OK');
    const moveTo = (to: string) =>
      codeOf(() => store.files.move({ ...file, filename: 'memories/a.md', body: { to } }));
    const copyTo = (to: string) =>
      codeOf(() => store.files.copy({ ...file, filename: 'memories/new.md', body: { to } }));
    expect(await moveTo('notes/a.md')).toBe('FILE_NOT_FOUND');
    expect(await copyTo('top2.md')).toBe('FILE_NOT_FOUND');
    expect(await copyTo('memories/copy.md')).toBe('OK');
    const attach = (path: string) =>
      codeOf(() =>
        store.attachments.write({ ...file, path, content: textStream('bytes'), contentType: 'text/plain' }),
      );
    expect(await attach('notes/x.txt')).toBe('ATTACHMENT_NOT_FOUND');
    // Nothing outside changed.
    expect(await names(store, admin.principal, projectId, { prefix: 'notes/' })).toEqual(['notes/n.md']);
    const kept = await store.files.read({ principal: admin.principal, projectId, filename: 'notes/n.md' });
    expect(kept.kind === 'content' && (await readText(kept.content!))).toContain('# notes/n.md');
  });

  it('lists only the files under the folders, counted as such, folded at the asked level', async () => {
    const { store, agent, projectId, keyOf } = await scene();
    expect(await names(store, agent, projectId)).toEqual(['memories/a.md', 'memories/deep/b.md']);
    const folded = await store.files.list({ principal: agent, projectId, params: { delimiter: '/' } });
    expect(folded.files).toEqual([]);
    expect(folded.folders).toEqual(['memories/']);
    expect(folded.totalCount).toBe(1);
    const two = (await keyOf({ role: 'read', path_prefixes: ['notes/', 'memories/deep/'] })).principal;
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.files.list({
        principal: two,
        projectId,
        params: { limit: 1, sort: 'filename', order: 'desc', ...(cursor && { cursor }) },
      });
      pages.push(...page.files.map((file) => file.filename));
      cursor = page.nextCursor ?? undefined;
      expect(page.totalCount).toBe(2);
    } while (cursor);
    expect(pages).toEqual(['notes/n.md', 'memories/deep/b.md']);
    const level = await store.files.list({
      principal: two,
      projectId,
      params: { prefix: 'memories/', delimiter: '/' },
    });
    expect(level.folders).toEqual(['memories/deep/']);
    expect(level.files).toEqual([]);
  });

  it('a changeset naming a path outside is refused whole', async () => {
    const { store, agent, projectId, admin } = await scene();
    const operations = [
      { op: 'put', filename: 'memories/ok.md', content: '# ok' },
      { op: 'put', filename: 'notes/evil.md', content: '# no' },
    ];
    expect(await codeOf(() => store.changesets.apply({ principal: agent, projectId, operations }))).toBe(
      'FILE_NOT_FOUND',
    );
    const moving = [{ op: 'move', filename: 'memories/a.md', to: 'top-level.md' }];
    expect(
      await codeOf(() => store.changesets.apply({ principal: agent, projectId, operations: moving })),
    ).toBe('FILE_NOT_FOUND');
    const all = await names(store, admin.principal, projectId);
    expect(all).not.toContain('memories/ok.md');
    expect(all).toContain('memories/a.md');
  });

  it('links from and to files outside are not shown, and a move rewrites only the files it reaches', async () => {
    const { store, agent, projectId, admin } = await scene();
    const links = await store.files.links({ principal: agent, projectId, filename: 'memories/a.md' });
    expect(links.incoming.map((link) => link.source).sort()).toEqual(['memories/a.md', 'memories/deep/b.md']);
    const all = await store.files.links({ principal: admin.principal, projectId, filename: 'memories/a.md' });
    expect(all.incoming.map((link) => link.source)).toContain('notes/n.md');
    await store.files.move({
      principal: agent,
      projectId,
      filename: 'memories/a.md',
      body: { to: 'memories/renamed.md', rewrite_links: true },
    });
    const read = async (filename: string) => {
      const got = await store.files.read({ principal: admin.principal, projectId, filename });
      return got.kind === 'content' ? readText(got.content!) : '';
    };
    expect(await read('memories/deep/b.md')).toContain('[[renamed]]');
    expect(await read('notes/n.md')).toContain('[[a]]');
  });

  it('renders links to files outside as broken, naming nothing there', async () => {
    const { store, agent, projectId, put, admin } = await scene();
    await put(admin.principal, 'memories/links.md', '# Links\n\n[[n]] and [[a]]\n');
    const read = await store.files.html({ principal: agent, projectId, filename: 'memories/links.md' });
    const html = read.kind === 'not-modified' ? '' : read.html;
    expect(html).toContain('broken-link');
    expect(html).not.toContain('notes/n.md');
    expect(html).toContain('memories/a.md');
    const full = await store.files.html({
      principal: admin.principal,
      projectId,
      filename: 'memories/links.md',
    });
    expect(full.kind === 'not-modified' ? '' : full.html).toContain('notes/n.md');
  });

  it('renders unsaved text (render) as it renders a file: only targets under the folders; a name outside is 404', async () => {
    const { store, agent, projectId, admin } = await scene();
    const text = '# Links\n\n[[n]] and [[a]]\n';
    const html = await store.files.render({
      principal: agent,
      projectId,
      body: { content: text, filename: 'memories/draft.md' },
    });
    expect(html).toContain('broken-link');
    expect(html).not.toContain('notes/n.md');
    expect(html).toContain('memories/a.md');
    const full = await store.files.render({
      principal: admin.principal,
      projectId,
      body: { content: text, filename: 'memories/draft.md' },
    });
    expect(full).toContain('notes/n.md');
    const outside = () =>
      store.files.render({
        principal: agent,
        projectId,
        body: { content: text, filename: 'notes/draft.md' },
      });
    expect(await codeOf(outside)).toBe('FILE_NOT_FOUND');
  });

  it('search finds only files under the folders, by words and the account-wide search alike', async () => {
    const { store, agent, projectId, admin } = await scene();
    const found = async (principal: Principal, o: { projectId?: string }) =>
      (await store.files.search({ principal, ...o, body: { query: 'see' } })).results.map(
        (hit) => hit.file.filename,
      );
    expect((await found(agent, { projectId })).sort()).toEqual(['memories/a.md', 'memories/deep/b.md']);
    expect((await found(agent, {})).sort()).toEqual(['memories/a.md', 'memories/deep/b.md']);
    expect(await found(admin.principal, { projectId })).toHaveLength(5);
  });

  it('the change feed shows the events of files under the folders and of the project, nothing else', async () => {
    const { store, agent, admin, projectId } = await scene();
    await store.files.move({
      principal: admin.principal,
      projectId,
      filename: 'notes/n.md',
      body: { to: 'memories/moved-in.md' },
    });
    const all = await store.changes.list({ principal: admin.principal, params: { limit: '100' } });
    const seen = await store.changes.list({ principal: agent, params: { limit: '100' } });
    expect(all.changes.length).toBeGreaterThan(seen.changes.length);
    expect(seen.nextSince).toBe(all.nextSince);
    for (const event of seen.changes) {
      if (event.filename !== null) expect(event.filename.startsWith('memories/'), event.filename).toBe(true);
      else expect(event.type.startsWith('project.')).toBe(true);
    }
    const moved = seen.changes.find((event) => event.type === 'file.moved');
    expect(moved).toMatchObject({ filename: 'memories/moved-in.md', from: null });
    // A page of 2 read events shows fewer when they are outside, and says it was full.
    const page = await store.changes.list({ principal: agent, params: { limit: '2' } });
    expect(page.full).toBe(true);
    expect(page.changes.length).toBeLessThanOrEqual(2);
  });

  it('the link reports hold only the files under the folders', async () => {
    const { store, agent, projectId, put, admin } = await scene();
    await put(admin.principal, 'notes/broken.md', '[[nowhere]]\n');
    await put(admin.principal, 'memories/broken.md', '[[nowhere either]]\n');
    await put(admin.principal, 'notes/lonely.md', '# alone\n');
    const broken = await store.links.broken({ principal: agent, projectId });
    expect(broken.links.map((link) => link.source)).toEqual(['memories/broken.md']);
    const all = await store.links.broken({ principal: admin.principal, projectId });
    expect(all.links.map((link) => link.source)).toContain('notes/broken.md');
    const orphans = await store.links.orphans({ principal: agent, projectId });
    expect(orphans.orphans.every((name) => name.startsWith('memories/'))).toBe(true);
    expect(orphans.orphans).toContain('memories/broken.md');
    expect((await store.links.orphans({ principal: admin.principal, projectId })).orphans).toContain(
      'notes/lonely.md',
    );
  });

  it('each revision names the key that wrote it, the agent’s memory commands included', async () => {
    const { store, agent, projectId, admin } = await scene();
    await store.memory.run({
      principal: agent,
      projectId,
      body: { command: 'str_replace', path: '/memories/a.md', old_str: 'See', new_str: 'Saw' },
    });
    await store.changesets.apply({
      principal: admin.principal,
      projectId,
      operations: [{ op: 'put', filename: 'memories/a.md', content: '# by the admin\n' }],
    });
    const history = await store.files.listRevisions({
      principal: admin.principal,
      projectId,
      filename: 'memories/a.md',
    });
    expect(history.revisions.map((revision) => [revision.revision, revision.keyId])).toEqual([
      [3, admin.principal.keyId],
      [2, agent.keyId],
      [1, admin.principal.keyId],
    ]);
  });

  it('exports only what the key reaches', async () => {
    const { store, agent, projectId } = await scene();
    const exported = await store.projects.export({ principal: agent, projectId });
    const seen: string[] = [];
    for await (const file of exported.files) {
      seen.push(file.file.filename);
      await readText(file.content);
    }
    expect(seen).toEqual(['memories/a.md', 'memories/deep/b.md']);
  });

  it('the memory tool sees only the folders: views list them, commands elsewhere find nothing', async () => {
    const { store, projectId, keyOf, admin } = await scene();
    await store.memory.run({
      principal: admin.principal,
      projectId,
      body: { command: 'create', path: '/memories/other/secret.md', file_text: 'not yours' },
    });
    const own = (await keyOf({ path_prefixes: ['memories/deep/'] })).principal;
    const run = async (body: Record<string, unknown>) =>
      (await store.memory.run({ principal: own, projectId, body: body as never })).result;
    const listing = await run({ command: 'view', path: '/memories' });
    expect(listing).toContain('deep/b');
    expect(listing).not.toContain('secret');
    expect(listing).not.toContain('a.md');
    expect(await run({ command: 'view', path: '/memories/other/secret.md' })).toBe(
      'The path /memories/other/secret.md does not exist. Please provide a valid path.',
    );
    expect(await run({ command: 'delete', path: '/memories/other/secret.md' })).toBe(
      'The path /memories/other/secret.md does not exist',
    );
    expect(await run({ command: 'create', path: '/memories/mine.md', file_text: 'x' })).toBe(
      'The path /memories/mine.md is outside the folders this key may write to.',
    );
    expect(
      await run({ command: 'rename', old_path: '/memories/deep/b.md', new_path: '/memories/b.md' }),
    ).toBe('The path /memories/b.md is outside the folders this key may write to.');
    expect(await run({ command: 'create', path: '/memories/deep/new.md', file_text: 'mine' })).toBe(
      'File created successfully at: /memories/deep/new.md',
    );
    // Deleting /memories/deep deletes what the key reaches there, nothing else.
    expect(await run({ command: 'delete', path: '/memories/deep' })).toBe(
      'Successfully deleted /memories/deep',
    );
    expect(await names(store, admin.principal, projectId, { prefix: 'memories/' })).toEqual([
      'memories/a.md',
      'memories/other/secret.md',
    ]);
  });

  it('refuses (403) what does not keep to folders yet, and what spans the whole project', async () => {
    const { store, agent, projectId } = await scene();
    const refused = [
      () => store.trash.list({ principal: agent, projectId }),
      () => store.drafts.list({ principal: agent, projectId }),
      () => store.shares.list({ principal: agent, projectId }),
      () => store.projects.update({ principal: agent, projectId, body: { description: 'x' } }),
      () => store.projects.create({ principal: agent, body: { name: 'mine' } }),
      () => store.webhooks.list({ principal: agent }),
    ];
    for (const call of refused)
      expect(await codeOf(call as () => Promise<unknown>)).toBe('OPERATION_NOT_ALLOWED');
  });
});
