import { FILE_LINK_LIMITS, REWRITE_LIMITS } from '@mdstore/core';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * The link index (extensions §9): a file's outgoing and incoming links, broken links, orphans, and
 * Delete File's `if_unreferenced`, kept by every content write (upload, replace, edit, restore, copy,
 * move, delete, trash restore) in its transaction, resolved when read (late resolution, no rescan).
 * Runs on every adapter pair (matrix).
 */
const test = serverTest();

interface Outgoing {
  line: number;
  kind: 'markdown' | 'wiki';
  raw: string;
  target: string | null;
  anchor: string | null;
  resolved: boolean;
  anchor_found: boolean | null;
}
interface Incoming {
  source: string;
  line: number;
  kind: string;
  raw: string;
  anchor: string | null;
}
interface Broken {
  source: string;
  line: number;
  raw: string;
  target: string | null;
  reason: string;
}

async function setup(h: HttpHarness, settings?: Record<string, unknown>) {
  const { apiKey } = await h.account();
  const created = await h.json('/api/projects', 'POST', apiKey, { name: 'Links', settings });
  const { id: projectId } = (await created.json()) as { id: string };
  const file = (name: string) => `/api/projects/${projectId}/files/${encodeURIComponent(name)}`;
  const api = {
    apiKey,
    projectId,
    upload: (name: string, content: string) => h.uploadFile(apiKey, projectId, name, content),
    replace: async (name: string, content: string) => {
      const response = await h.fetch(`${file(name)}/content`, {
        method: 'PUT',
        key: apiKey,
        headers: { 'Content-Type': 'text/markdown' },
        body: content,
      });
      expect(response.status).toBe(200);
    },
    post: async (name: string, op: string, body: unknown) => {
      const response = await h.json(`${file(name)}/${op}`, 'POST', apiKey, body);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    edit: async (name: string, edits: unknown[]) => {
      const response = await h.json(file(name), 'PATCH', apiKey, { edits });
      expect(response.status).toBe(200);
    },
    remove: (name: string, query = '') => h.fetch(`${file(name)}${query}`, { method: 'DELETE', key: apiKey }),
    links: async (name: string, key = apiKey, query = '') => {
      const response = await h.fetch(`${file(name)}/links${query}`, { key });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        outgoing: Outgoing[];
        incoming: Incoming[];
        next_cursor: string | null;
      };
    },
    broken: async (query = '') => {
      const response = await h.fetch(`/api/projects/${projectId}/links/broken${query}`, { key: apiKey });
      return {
        status: response.status,
        body: (await response.json()) as { links: Broken[]; next_cursor: string | null },
      };
    },
    orphans: async (query = '') => {
      const response = await h.fetch(`/api/projects/${projectId}/links/orphans${query}`, { key: apiKey });
      return {
        status: response.status,
        body: (await response.json()) as { orphans: string[]; next_cursor: string | null },
      };
    },
  };
  return api;
}

/** Every broken link of the project, page by page. */
async function allBroken(api: Awaited<ReturnType<typeof setup>>, limit = 100) {
  const found: Broken[] = [];
  let cursor: string | null = null;
  do {
    const { status, body } = await api.broken(
      `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(status).toBe(200);
    found.push(...body.links);
    cursor = body.next_cursor;
  } while (cursor !== null);
  return found;
}

describe('GET …/files/{filename}/links', () => {
  test('outgoing links: Markdown links and images to relative paths, wiki links, in line order', async (h) => {
    const api = await setup(h);
    await api.upload('docs/guide.md', '# Guide\n\n## Install it\n');
    await api.upload('docs/my file.md', '# Mine\n');
    await api.upload('notes/Setup.mdx', '# Setup\n\n## Steps\n');
    const content = [
      '---',
      'see: "[x](docs/guide.md) [[Setup]]"',
      '---',
      '# Home',
      '',
      '[Guide](docs/guide.md#install-it) and ![pic](docs/my%20file.md) and [web](https://example.com/a.md)',
      '[gone](missing.md) [bad anchor](./docs/guide.md#nope) [image](x.png)',
      '',
      '`[code](docs/guide.md)` [[Setup#Steps]] [[notes/Setup|the setup]] [[#Home]]',
      '',
      '```',
      '[fenced](docs/guide.md) [[Setup]]',
      '```',
      '',
      '<div>',
      '[html](docs/guide.md)',
      '</div>',
      '',
      '[ref][r]',
      '',
      '[r]: docs/guide.md',
    ].join('\n');
    await api.upload('index.md', content);
    const { outgoing } = await api.links('index.md');
    expect(outgoing).toEqual([
      {
        line: 6,
        kind: 'markdown',
        raw: 'docs/guide.md#install-it',
        target: 'docs/guide.md',
        anchor: 'install-it',
        resolved: true,
        anchor_found: true,
      },
      {
        line: 6,
        kind: 'markdown',
        raw: 'docs/my%20file.md',
        target: 'docs/my file.md',
        anchor: null,
        resolved: true,
        anchor_found: null,
      },
      {
        line: 7,
        kind: 'markdown',
        raw: 'missing.md',
        target: null,
        anchor: null,
        resolved: false,
        anchor_found: null,
      },
      {
        line: 7,
        kind: 'markdown',
        raw: './docs/guide.md#nope',
        target: 'docs/guide.md',
        anchor: 'nope',
        resolved: true,
        anchor_found: false,
      },
      // A relative path to another file is an attachment's (extensions §12): none here.
      {
        line: 7,
        kind: 'markdown',
        raw: 'x.png',
        target: null,
        anchor: null,
        resolved: false,
        anchor_found: null,
      },
      {
        line: 9,
        kind: 'wiki',
        raw: 'Setup#Steps',
        target: 'notes/Setup.mdx',
        anchor: 'Steps',
        resolved: true,
        anchor_found: true,
      },
      {
        line: 9,
        kind: 'wiki',
        raw: 'notes/Setup',
        target: 'notes/Setup.mdx',
        anchor: null,
        resolved: true,
        anchor_found: null,
      },
      {
        line: 9,
        kind: 'wiki',
        raw: '#Home',
        target: 'index.md',
        anchor: 'Home',
        resolved: true,
        anchor_found: true,
      },
      {
        line: 19,
        kind: 'markdown',
        raw: 'docs/guide.md',
        target: 'docs/guide.md',
        anchor: null,
        resolved: true,
        anchor_found: null,
      },
    ]);
  });

  test('a Markdown link resolves from the linking file’s folder; `..` climbs, past the root is unresolved', async (h) => {
    const api = await setup(h);
    await api.upload('a/b/target.md', '# T\n');
    await api.upload(
      'a/c/from.md',
      '[up](../b/target.md) [root](../../a/b/target.md) [out](../../../x.md)\n',
    );
    const { outgoing } = await api.links('a/c/from.md');
    expect(outgoing.map((link) => [link.target, link.resolved])).toEqual([
      ['a/b/target.md', true],
      ['a/b/target.md', true],
      [null, false],
    ]);
  });

  test('incoming links in file then line order; a link to a file created later resolves then (no rescan)', async (h) => {
    const api = await setup(h);
    await api.upload('z.md', 'first [[later]]\n\nsecond [again](later.md)\n');
    await api.upload('a/one.md', 'x\n\n[to later](../later.md#part)\n');
    expect((await api.links('z.md')).outgoing.map((link) => link.resolved)).toEqual([false, false]);
    await api.upload('later.md', '# Later\n\n## Part\n');
    expect((await api.links('z.md')).outgoing.map((link) => [link.target, link.resolved])).toEqual([
      ['later.md', true],
      ['later.md', true],
    ]);
    expect((await api.links('later.md')).incoming).toEqual([
      { source: 'a/one.md', line: 3, kind: 'markdown', raw: '../later.md#part', anchor: 'part' },
      { source: 'z.md', line: 1, kind: 'wiki', raw: 'later', anchor: null },
      { source: 'z.md', line: 3, kind: 'markdown', raw: 'later.md', anchor: null },
    ]);
  });

  test('wiki links: exact name first, else the one file with that last segment; several is unresolved', async (h) => {
    const api = await setup(h);
    await api.upload('x/note.md', '# N\n');
    await api.upload('y/note.md', '# N\n');
    await api.upload('note.mdx', '# Root note\n');
    await api.upload('only/here.md', '# H\n');
    await api.upload('from.md', '[[note]] [[here]] [[y/note]] [[x/note.md]]\n');
    expect((await api.links('from.md')).outgoing.map((link) => link.target)).toEqual([
      'note.mdx',
      'only/here.md',
      'y/note.md',
      'x/note.md',
    ]);
    // Without the exact name, two files share the last segment: ambiguous.
    expect((await api.remove('note.mdx')).status).toBe(204);
    const [note] = (await api.links('from.md')).outgoing;
    expect(note).toMatchObject({ target: null, resolved: false });
    const broken = await allBroken(api);
    expect(broken).toEqual([
      { source: 'from.md', line: 1, raw: 'note', target: 'note', reason: 'ambiguous' },
    ]);
  });

  test('paged: at most `limit` links a page, outgoing first, then incoming, until next_cursor is null (issue 34)', async (h) => {
    const api = await setup(h);
    await api.upload('t.md', '[a](a.md)\n[[b]]\n');
    for (const name of ['s1.md', 's2.md', 's3.md']) await api.upload(name, '[[t]]\n'.repeat(7));
    // Same stem, another file: read as a candidate, never answered as an incoming link of t.md.
    await api.upload('x/t.md', 'x\n');
    await api.upload('y.md', '[[x/t]]\n'.repeat(9));
    const sizes: number[] = [];
    const incoming: string[] = [];
    let outgoing = 0;
    let cursor: string | null = null;
    do {
      const page = await api.links(
        't.md',
        api.apiKey,
        `?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      sizes.push(page.outgoing.length + page.incoming.length);
      outgoing += page.outgoing.length;
      incoming.push(...page.incoming.map((link) => `${link.source}:${link.line}`));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(sizes).toEqual([5, 5, 5, 5, 3]);
    expect(outgoing).toBe(2);
    expect(incoming).toEqual(
      ['s1.md', 's2.md', 's3.md'].flatMap((s) => [1, 2, 3, 4, 5, 6, 7].map((l) => `${s}:${l}`)),
    );
    // The default page holds all of it: a client reading the first page sees every link, as before.
    const whole = await api.links('t.md');
    expect([whole.outgoing.length, whole.incoming.length, whole.next_cursor]).toEqual([2, 21, null]);
    const file = `/api/projects/${api.projectId}/files/t.md/links`;
    expect((await h.fetch(`${file}?limit=${FILE_LINK_LIMITS.pageMax + 1}`, { key: api.apiKey })).status).toBe(
      422,
    );
    expect((await h.fetch(`${file}?cursor=nope`, { key: api.apiKey })).status).toBe(422);
  });

  test('404 for a missing file; read keys may read links', async (h) => {
    const api = await setup(h);
    await api.upload('a.md', '[b](b.md)\n');
    expect(
      (await h.fetch(`/api/projects/${api.projectId}/files/none.md/links`, { key: api.apiKey })).status,
    ).toBe(404);
    const created = await h.json('/api/keys', 'POST', api.apiKey, { name: 'reader', role: 'read' });
    expect(created.status).toBe(201);
    const { api_key: reader } = (await created.json()) as { api_key: string };
    expect((await api.links('a.md', reader)).outgoing).toHaveLength(1);
    const brokenAsReader = await h.fetch(`/api/projects/${api.projectId}/links/broken`, { key: reader });
    expect(brokenAsReader.status).toBe(200);
  });
});

describe('every content write keeps the index', () => {
  test('replace, edit, copy, move, delete, trash restore and restore', async (h) => {
    const api = await setup(h, { trash_retention_days: 7 });
    await api.upload('t.md', '# T\n');
    await api.upload('dir/src.md', 'none yet\n');
    const incomingSources = async () => (await api.links('t.md')).incoming.map((link) => link.source);
    expect(await incomingSources()).toEqual([]);
    await api.replace('dir/src.md', '[t](../t.md)\n');
    expect(await incomingSources()).toEqual(['dir/src.md']);
    await api.edit('dir/src.md', [{ op: 'replace', old: '../t.md', new: '../u.md' }]);
    expect(await incomingSources()).toEqual([]);
    await api.edit('dir/src.md', [{ op: 'replace', old: '../u.md', new: '../t.md' }]);
    expect((await api.post('dir/src.md', 'copy', { to: 'other/copy.md' })).status).toBe(201);
    expect(await incomingSources()).toEqual(['dir/src.md', 'other/copy.md']);
    // A move to another folder resolves the file's own relative links from there: `../t.md` from the
    // root climbs out of the project.
    expect((await api.post('dir/src.md', 'move', { to: 'moved.md' })).status).toBe(200);
    expect(await incomingSources()).toEqual(['other/copy.md']);
    expect((await api.links('moved.md')).outgoing[0]).toMatchObject({ target: null, resolved: false });
    // Moving the target breaks links to its old name.
    expect((await api.post('t.md', 'move', { to: 'renamed.md' })).status).toBe(200);
    expect((await api.links('other/copy.md')).outgoing[0]).toMatchObject({ target: null, resolved: false });
    expect((await api.post('renamed.md', 'move', { to: 't.md' })).status).toBe(200);
    // Delete (to the trash) and trash restore.
    expect((await api.remove('other/copy.md')).status).toBe(204);
    expect(await incomingSources()).toEqual([]);
    const trash = (await (
      await h.fetch(`/api/projects/${api.projectId}/trash`, { key: api.apiKey })
    ).json()) as {
      trash: Array<{ trash_id: string; filename: string }>;
    };
    const item = trash.trash.find((entry) => entry.filename === 'other/copy.md')!;
    const restored = await h.json(
      `/api/projects/${api.projectId}/trash/${item.trash_id}/restore`,
      'POST',
      api.apiKey,
      {},
    );
    expect(restored.status).toBe(201);
    expect(await incomingSources()).toEqual(['other/copy.md']);
    // Restore of an older revision brings its links back.
    await api.replace('other/copy.md', 'no links\n');
    expect(await incomingSources()).toEqual([]);
    expect((await api.post('other/copy.md', 'restore', { revision: 1 })).status).toBe(200);
    expect(await incomingSources()).toEqual(['other/copy.md']);
  });
});

describe('broken links and orphans', () => {
  test('an anchor-broken link names the file it resolved to, as outgoing[].target does (issue 34, finding 16)', async (h) => {
    const api = await setup(h);
    await api.upload('notes/b.md', '# B\n');
    await api.upload('a.md', '[[b#nope]] [x](notes/b.md#nope)\n');
    const outgoing = (await api.links('a.md')).outgoing.map((link) => link.target);
    expect(outgoing).toEqual(['notes/b.md', 'notes/b.md']);
    expect(await allBroken(api)).toEqual([
      { source: 'a.md', line: 1, raw: 'b#nope', target: 'notes/b.md', reason: 'anchor' },
      { source: 'a.md', line: 1, raw: 'notes/b.md#nope', target: 'notes/b.md', reason: 'anchor' },
    ]);
  });

  test('reasons missing and anchor (GitHub slugs for Markdown, heading text for wiki), paged in order', async (h) => {
    const api = await setup(h);
    await api.upload('b.md', '# Hello, World!\n\n## Hello, World!\n\n## Café Menü\n');
    await api.upload(
      'a.md',
      [
        '[ok](b.md#hello-world) [ok2](b.md#hello-world-1) [ok3](b.md#café-menü)',
        '[bad](b.md#Hello-World) [gone](c.md) [[b#Café Menü]] [[b#cafe-menu]] [[nowhere]]',
      ].join('\n'),
    );
    await api.upload('c2.md', '[[b#Hello, World!]]\n');
    const expected = [
      { source: 'a.md', line: 2, raw: 'b.md#Hello-World', target: 'b.md', reason: 'anchor' },
      { source: 'a.md', line: 2, raw: 'c.md', target: 'c.md', reason: 'missing' },
      { source: 'a.md', line: 2, raw: 'b#cafe-menu', target: 'b.md', reason: 'anchor' },
      { source: 'a.md', line: 2, raw: 'nowhere', target: 'nowhere', reason: 'missing' },
    ];
    expect(await allBroken(api)).toEqual(expected);
    expect(await allBroken(api, 1)).toEqual(expected);
    const first = await api.broken('?limit=3');
    expect(first.body.links).toEqual(expected.slice(0, 3));
    expect(first.body.next_cursor).not.toBeNull();
    // Creating the missing file mends its links.
    await api.upload('c.md', '# C\n');
    expect((await allBroken(api)).map((link) => link.raw)).toEqual([
      'b.md#Hello-World',
      'b#cafe-menu',
      'nowhere',
    ]);
    expect((await api.broken('?limit=0')).status).toBe(422);
    expect((await api.broken('?cursor=nonsense')).status).toBe(422);
  });

  test('links to attachments (extensions §12): indexed, resolved to the attachment, missing until it exists', async (h) => {
    const api = await setup(h);
    await api.upload('notes/a.md', '![cat](pics/cat.png) [r](../q3.pdf) ![[logo.png]] [[q3.pdf]]\n');
    const put = (path: string, type: string, body: Buffer) =>
      h.fetch(`/api/projects/${api.projectId}/attachments/${encodeURIComponent(path)}`, {
        method: 'PUT',
        key: api.apiKey,
        headers: { 'Content-Type': type },
        body,
      });
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    expect((await allBroken(api)).map((link) => [link.raw, link.target, link.reason])).toEqual([
      ['pics/cat.png', 'notes/pics/cat.png', 'missing'],
      ['../q3.pdf', 'q3.pdf', 'missing'],
      ['logo.png', 'logo.png', 'missing'],
      ['q3.pdf', 'q3.pdf', 'missing'],
    ]);
    expect((await put('notes/pics/cat.png', 'image/png', png)).status).toBe(201);
    expect((await put('q3.pdf', 'application/pdf', Buffer.from('%PDF-1.4\n%%EOF\n'))).status).toBe(201);
    const outgoing = (await api.links('notes/a.md')).outgoing;
    expect(outgoing.map((link) => [link.kind, link.raw, link.target, link.resolved])).toEqual([
      ['markdown', 'pics/cat.png', 'notes/pics/cat.png', true],
      ['markdown', '../q3.pdf', 'q3.pdf', true],
      ['wiki', 'logo.png', null, false],
      ['wiki', 'q3.pdf', 'q3.pdf', true],
    ]);
    expect(await allBroken(api)).toEqual([
      { source: 'notes/a.md', line: 1, raw: 'logo.png', target: 'logo.png', reason: 'missing' },
    ]);
  });

  test('orphans: files no other file links to (a link to itself does not count), paged', async (h) => {
    const api = await setup(h);
    await api.upload('a.md', '[b](b.md) [self](a.md)\n');
    await api.upload('b.md', '[[c]]\n');
    await api.upload('c.md', 'nothing\n');
    await api.upload('d.md', '[[#top]] [me](d.md)\n');
    const all = await api.orphans();
    expect(all.body).toEqual({ orphans: ['a.md', 'd.md'], next_cursor: null });
    const first = await api.orphans('?limit=1');
    expect(first.body.orphans).toEqual(['a.md']);
    const second = await api.orphans(`?limit=1&cursor=${encodeURIComponent(first.body.next_cursor!)}`);
    expect(second.body.orphans).toEqual(['d.md']);
  });
});

describe('Delete File ?if_unreferenced=true', () => {
  test('409 with the referring files; nothing is deleted; unreferenced files and plain deletes go', async (h) => {
    const api = await setup(h);
    await api.upload('t.md', '[self](t.md)\n');
    await api.upload('x/a.md', '[t](../t.md)\n');
    await api.upload('b.md', '[[t]] [again](t.md)\n');
    const refused = await api.remove('t.md', '?if_unreferenced=true');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ detail: 'File is referenced', referenced_by: ['b.md', 'x/a.md'] });
    expect((await api.links('t.md')).incoming).toHaveLength(4);
    expect((await api.remove('b.md', '?if_unreferenced=true')).status).toBe(204);
    expect((await api.remove('t.md', '?if_unreferenced=maybe')).status).toBe(422);
    expect((await api.remove('t.md', '?if_unreferenced=false')).status).toBe(204);
  });

  const roomy = serverTest({ settings: { maxFileBytes: 64 * 1024 } });
  roomy(
    `past ${FILE_LINK_LIMITS.referrerScanMax} links read with no referrer found: 409 work_budget, nothing deleted (issue 34)`,
    async (h) => {
      const api = await setup(h);
      await api.upload('x/t.md', 'the target\n');
      await api.upload('y/t.md', 'a namesake\n');
      // 18 000 wiki links named `t` from y/, resolving to y/t.md, never to x/t.md.
      for (let f = 0; f < 9; f++) await api.upload(`y/s${f}.md`, '[[t]]\n'.repeat(2000));
      const refused = await api.remove('x/t.md', '?if_unreferenced=true');
      expect(refused.status).toBe(409);
      const body = (await refused.json()) as { detail: { loc: unknown[]; type: string }[] };
      expect(body.detail).toMatchObject([{ loc: ['query', 'if_unreferenced'], type: 'work_budget' }]);
      expect((await api.links('x/t.md')).incoming).toEqual([]);
      expect((await api.remove('x/t.md')).status).toBe(204);
    },
  );
});

describe('MCP: links and broken_links (read role)', () => {
  test('the same answers as the HTTP API', async (h) => {
    const api = await setup(h);
    await api.upload('a.md', '[b](b.md) [[c#Top]]\n');
    await api.upload('b.md', '# B\n');
    const call = async (name: string, args: Record<string, unknown>) => {
      const response = await h.fetch('/mcp', {
        method: 'POST',
        key: api.apiKey,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      });
      const text = await response.text();
      // A JSON answer, or one Server-Sent Event whose data is the JSON-RPC answer.
      const json = text.startsWith('{') ? text : text.slice(text.indexOf('data: ') + 6).split('\n')[0]!;
      const payload = JSON.parse(json) as {
        result: { structuredContent: unknown; isError?: boolean };
      };
      expect(payload.result.isError ?? false).toBe(false);
      return payload.result.structuredContent;
    };
    const links = await call('links', { project_id: api.projectId, filename: 'b.md' });
    expect(links).toEqual(await api.links('b.md'));
    const broken = (await call('broken_links', { project_id: api.projectId })) as { links: Broken[] };
    expect(broken).toEqual({
      links: [{ source: 'a.md', line: 1, raw: 'c#Top', target: 'c', reason: 'missing' }],
      next_cursor: null,
    });
  });
});

describe('POST …/move with rewrite_links', () => {
  const index = [
    '# Index',
    '',
    'See [setup](docs/setup.md#install "Setup") and [[docs/setup|the setup]] and [[setup#Install]].',
    '',
    '[ref]: ./docs/setup.md',
    '',
    'Also [again][ref] and `[code](docs/setup.md)`.',
    '',
  ].join('\n');
  const setupDoc = '# Setup\n\n## Install\n\nBack to [index](../index.md) or [[index]].\n';

  async function scene(h: HttpHarness) {
    const api = await setup(h);
    await api.upload('index.md', index);
    await api.upload('docs/setup.md', setupDoc);
    await api.upload('a/b.md', '[x](<../docs/setup.md>)\n');
    const text = async (name: string) =>
      (
        await h.fetch(`/api/projects/${api.projectId}/files/${encodeURIComponent(name)}`, { key: api.apiKey })
      ).text();
    return { api, text };
  }

  test('dry_run answers what would be rewritten and changes nothing', async (h) => {
    const { api, text } = await scene(h);
    const answer = await api.post('docs/setup.md', 'move', {
      to: 'guides/install.md',
      rewrite_links: true,
      dry_run: true,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      filename: 'guides/install.md',
      rewritten: [
        { filename: 'a/b.md', links: 1 },
        { filename: 'index.md', links: 4 },
      ],
    });
    expect(await text('index.md')).toBe(index);
    expect(await text('docs/setup.md')).toBe(setupDoc);
    expect(await allBroken(api)).toEqual([]);
  });

  test('the move and every rewrite commit together; only link destinations change; nothing breaks', async (h) => {
    const { api, text } = await scene(h);
    const answer = await api.post('docs/setup.md', 'move', { to: 'guides/install.md', rewrite_links: true });
    expect(answer.status).toBe(200);
    expect(answer.body.filename).toBe('guides/install.md');
    expect(answer.body.rewritten).toEqual([
      { filename: 'a/b.md', links: 1 },
      { filename: 'index.md', links: 4 },
    ]);
    expect(await text('index.md')).toBe(
      index
        .replace('(docs/setup.md#install', '(guides/install.md#install')
        .replace('[[docs/setup|', '[[guides/install|')
        .replace('[[setup#Install]]', '[[install#Install]]')
        .replace('[ref]: ./docs/setup.md', '[ref]: ./guides/install.md'),
    );
    expect(await text('a/b.md')).toBe('[x](<../guides/install.md>)\n');
    // At the same depth its own relative link still resolves: it is left as it was.
    expect(await text('guides/install.md')).toBe(setupDoc);
    expect(await allBroken(api)).toEqual([]);
    expect((await api.links('guides/install.md')).incoming.map((link) => link.source)).toEqual([
      'a/b.md',
      'index.md',
      'index.md',
      'index.md',
      'index.md',
    ]);
    // Each rewritten file has a new revision.
    const revisions = await h.fetch(`/api/projects/${api.projectId}/files/index.md/revisions`, {
      key: api.apiKey,
    });
    const list = (await revisions.json()) as { revisions: Array<{ change: string }> };
    expect(list.revisions.map((revision) => revision.change)).toEqual(['edit', 'created']);
  });

  test('a move to another folder rewrites the moved file’s own relative links', async (h) => {
    const { api, text } = await scene(h);
    const answer = await api.post('docs/setup.md', 'move', { to: 'deep/er/setup.md', rewrite_links: true });
    expect(answer.status).toBe(200);
    expect(await text('deep/er/setup.md')).toBe(setupDoc.replace('(../index.md)', '(../../index.md)'));
    expect(await allBroken(api)).toEqual([]);
  });

  test('the move and every rewrite are one changeset: one revision each, one id, contiguous events', async (h) => {
    const { api, text } = await scene(h);
    const get = async (path: string) => (await h.fetch(path, { key: api.apiKey })).json();
    const revisions = async (name: string) =>
      (
        (await get(`/api/projects/${api.projectId}/files/${encodeURIComponent(name)}/revisions`)) as {
          revisions: Array<{ revision: number; change: string; changeset_id: string | null }>;
        }
      ).revisions.map((r) => [r.revision, r.change, r.changeset_id]);
    const feed = async (since: number) =>
      (await get(`/api/changes?since=${since}&limit=1000&project_id=${api.projectId}`)) as {
        changes: Array<{
          seq: number;
          type: string;
          filename: string;
          from: string | null;
          changeset_id: string;
        }>;
        next_since: number;
      };
    const { next_since: since } = await feed(0);
    // Into another folder: the moved file's own relative link changes too.
    const answer = await api.post('docs/setup.md', 'move', { to: 'deep/er/setup.md', rewrite_links: true });
    expect(answer.status).toBe(200);
    expect(answer.body.rewritten).toEqual([
      { filename: 'a/b.md', links: 1 },
      { filename: 'deep/er/setup.md', links: 1 },
      { filename: 'index.md', links: 2 },
    ]);
    expect(await text('deep/er/setup.md')).toBe(setupDoc.replace('(../index.md)', '(../../index.md)'));
    // The moved file has ONE new revision (its new name and its rewritten content), carrying the id.
    const moved = await revisions('deep/er/setup.md');
    const id = moved[0]![2] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(moved).toEqual([
      [2, 'edit', id],
      [1, 'created', null],
    ]);
    expect(answer.body.revision).toBe(2);
    for (const name of ['index.md', 'a/b.md'])
      expect(await revisions(name)).toEqual([
        [2, 'edit', id],
        [1, 'created', null],
      ]);
    // Its events (extensions §7): one per touched file, contiguous, each with the id.
    const { changes } = await feed(since);
    expect(changes.map((e) => [e.type, e.filename, e.from, e.changeset_id]).sort()).toEqual([
      ['file.moved', 'deep/er/setup.md', 'docs/setup.md', id],
      ['file.updated', 'a/b.md', null, id],
      ['file.updated', 'index.md', null, id],
    ]);
    const seqs = changes.map((e) => e.seq);
    expect(seqs).toEqual([seqs[0], seqs[0]! + 1, seqs[0]! + 2]);
  });

  test('a move without rewrite_links stays a single move: one revision, no changeset', async (h) => {
    const { api } = await scene(h);
    const answer = await api.post('docs/setup.md', 'move', { to: 'deep/er/setup.md' });
    expect(answer.status).toBe(200);
    expect(answer.body.rewritten).toBeUndefined();
    const response = await h.fetch(`/api/projects/${api.projectId}/files/deep%2Fer%2Fsetup.md/revisions`, {
      key: api.apiKey,
    });
    const list = (await response.json()) as {
      revisions: Array<{ change: string; changeset_id: string | null }>;
    };
    expect(list.revisions.map((r) => [r.change, r.changeset_id])).toEqual([
      ['move', null],
      ['created', null],
    ]);
  });

  test('refusals: a taken name (409), a non-boolean rewrite_links (422); nothing changes', async (h) => {
    const { api, text } = await scene(h);
    expect((await api.post('docs/setup.md', 'move', { to: 'index.md', rewrite_links: true })).status).toBe(
      409,
    );
    const invalid = await api.post('docs/setup.md', 'move', { to: 'x.md', rewrite_links: 'yes' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail).toEqual([
      { loc: ['body', 'rewrite_links'], msg: 'Input should be a valid boolean', type: 'bool_type' },
    ]);
    expect(await text('index.md')).toBe(index);
  });

  // Files of 15 KB: above the suites' small file limit.
  const roomy = serverTest({ settings: { maxFileBytes: 64 * 1024 } });
  roomy(
    'past REWRITE_LIMITS.maxLinks links: 409 work_budget, dry run or not; nothing changes (issue 34)',
    async (h) => {
      const api = await setup(h);
      await api.upload('t.md', 'target\n');
      const perFile = Math.ceil((REWRITE_LIMITS.maxLinks + 1) / 4);
      for (let f = 0; f < 4; f++) await api.upload(`s${f}.md`, '[[t]]\n'.repeat(perFile));
      for (const dry_run of [true, false]) {
        const refused = await api.post('t.md', 'move', { to: 'u.md', rewrite_links: true, dry_run });
        expect(refused.status).toBe(409);
        expect(refused.body.detail).toMatchObject([{ loc: ['body', 'rewrite_links'], type: 'work_budget' }]);
      }
      const page = await api.links('t.md', api.apiKey, '?limit=1');
      expect(page.outgoing).toEqual([]);
      expect(page.incoming).toHaveLength(1);
      // Within the bound it moves: fewer links, the same files.
      await api.replace('s0.md', '[[t]]\n');
      for (let f = 1; f < 4; f++) await api.replace(`s${f}.md`, '[[t]]\n[[t]]\n');
      const moved = await api.post('t.md', 'move', { to: 'u.md', rewrite_links: true });
      expect(moved.status).toBe(200);
      expect((moved.body.rewritten as Array<{ links: number }>).map((r) => r.links)).toEqual([1, 2, 2, 2]);
    },
  );
});
