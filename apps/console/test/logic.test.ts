import { describe, expect, it } from 'vitest';
import { frontMatterLength as coreFrontMatterLength } from '../../../packages/core/src/markdown/front-matter.ts';
import { consoleFileHref } from '../../../packages/core/src/markdown/hrefs.ts';
import { can, type Me } from '../src/api';
import { frontMatterLength, yamlLineTokens } from '../src/frontmatter';
import { decodePart, href, parseRoute } from '../src/route';
import { keyBody } from '../src/screens/admin';
import { draftActions, hunkPlace } from '../src/screens/drafts';
import { copyName } from '../src/screens/edit';
import { headingsOf, shownJson } from '../src/screens/file';
import { authorOf, changeOf } from '../src/screens/history';
import { newFileName } from '../src/screens/project';
import { highlightParts } from '../src/screens/search';
import { droppedFiles } from '../src/upload';

/** The console's pure logic, in Node: routes, links, outlines, highlights, dropped folders. */

const PROJECT = '0f0e0d0c-0b0a-4009-8807-060504030201';

describe('routes', () => {
  it('a file route round-trips any filename, and reads the renderer’s links (segments encoded, / kept)', () => {
    for (const name of [
      'a.md',
      'guides/setup.md',
      'dir with space/é #1?.md',
      'a/b/c/d.mdx',
      'percent%2F.md',
    ]) {
      const route = parseRoute(href.file(PROJECT, name));
      expect([route.view, route.projectId, route.filename, route.anchor]).toEqual([
        'file',
        PROJECT,
        name,
        null,
      ]);
      // The server's renderer writes `/#/p/…/f/…` (core markdown/hrefs.ts): the same route.
      const rendered = consoleFileHref(PROJECT, name, 'install');
      const fromRenderer = parseRoute(rendered.slice(rendered.indexOf('#')));
      expect([fromRenderer.filename, fromRenderer.anchor]).toEqual([name, 'install']);
      expect(`/${href.file(PROJECT, name)}`).toBe(consoleFileHref(PROJECT, name));
    }
    // The older form with `%2F` reads too.
    expect(parseRoute(`#/p/${PROJECT}/f/guides%2Fsetup.md`).filename).toBe('guides/setup.md');
    expect(parseRoute(`#/p/${PROJECT}/f/guides/setup.md`).dir).toBe('guides/');
  });

  it('folders, search, trash, settings, admin screens, and anything else is the projects list', () => {
    expect(parseRoute(href.folder(PROJECT, 'a b/'))).toMatchObject({ view: 'folder', dir: 'a b/' });
    expect(parseRoute(href.search(PROJECT, 'x & y'))).toMatchObject({ view: 'search', query: 'x & y' });
    expect(parseRoute(href.trash(PROJECT)).view).toBe('trash');
    expect(parseRoute(href.settings(PROJECT)).view).toBe('settings');
    expect(parseRoute(href.shares(PROJECT)).view).toBe('shares');
    expect(parseRoute(href.keys()).view).toBe('keys');
    expect(parseRoute(href.webhooks()).view).toBe('webhooks');
    expect(parseRoute(href.drafts(PROJECT))).toMatchObject({
      view: 'drafts',
      projectId: PROJECT,
      draftId: null,
    });
    const draftId = '1a2b3c4d-0000-4000-8000-000000000001';
    expect(parseRoute(href.draft(PROJECT, draftId))).toMatchObject({
      view: 'draft',
      projectId: PROJECT,
      draftId,
    });
    // A draft id that does not decode is the list.
    expect(parseRoute(`#/p/${PROJECT}/drafts/%E0%A4%A`).view).toBe('drafts');
    for (const other of ['', '#', '#/', '#/nowhere', '#/p']) expect(parseRoute(other).view).toBe('projects');
  });

  it('a part that is not valid percent-encoded UTF-8 never throws: projects, folder or no anchor (issue 34, finding 11)', () => {
    expect(decodePart('%E0%A4%A')).toBeNull();
    expect(decodePart('caf%C3%A9')).toBe('café');
    expect(parseRoute('#/p/%E0%A4%A')).toMatchObject({ view: 'projects', projectId: null });
    expect(parseRoute('#/p/%E0%A4%A/f/a.md')).toMatchObject({ view: 'projects', projectId: null });
    expect(parseRoute(`#/p/${PROJECT}/f/ok/%E0%A4%A.md`)).toMatchObject({
      view: 'folder',
      projectId: PROJECT,
      filename: null,
    });
    expect(parseRoute(`#/p/${PROJECT}/f/a.md#%E0%A4%A`)).toMatchObject({
      view: 'file',
      filename: 'a.md',
      anchor: null,
    });
    expect(parseRoute(`#/p/${PROJECT}/search?q=%E0%A4%A`).view).toBe('search');
  });
});

describe('search modes (extensions §15)', () => {
  it('the mode rides in the route beside the query; words (text) is the default and is not written', () => {
    expect(href.search(PROJECT, 'a b')).toBe(`#/p/${PROJECT}/search?q=a%20b`);
    for (const mode of ['text', 'semantic', 'hybrid'] as const) {
      expect(parseRoute(href.search(PROJECT, 'x & y', mode))).toMatchObject({ query: 'x & y', mode });
    }
    expect(href.search(PROJECT, 'q', 'hybrid')).toBe(`#/p/${PROJECT}/search?q=q&mode=hybrid`);
    // Anything else searches by words.
    expect(parseRoute(`#/p/${PROJECT}/search?q=q&mode=psychic`).mode).toBe('text');
  });
});

describe('roles and drafts (extensions §8, §13)', () => {
  const me = (role: Me['role'], id = 'key-1'): Me => ({ id, name: null, role, project_ids: null });

  it('each role covers those below it; a role the console does not know is read', () => {
    expect(can(me('propose'), 'read')).toBe(true);
    expect(can(me('propose'), 'write')).toBe(false);
    expect(can(me('write'), 'propose')).toBe(true);
    expect(can(me('admin'), 'write')).toBe(true);
    expect(can(me('read'), 'propose')).toBe(false);
    expect(can(me('owner' as Me['role']), 'read')).toBe(true);
    expect(can(me('owner' as Me['role']), 'propose')).toBe(false);
  });

  it('review and publish need write; close needs write or the propose key that wrote it; nothing once not open', () => {
    const open = { state: 'open' as const, author_key_id: 'key-1' };
    const none = { review: false, publish: false, close: false };
    expect(draftActions(me('write', 'key-2'), open)).toEqual({ review: true, publish: true, close: true });
    expect(draftActions(me('admin', 'key-2'), open)).toEqual({ review: true, publish: true, close: true });
    expect(draftActions(me('propose', 'key-1'), open)).toEqual({ ...none, close: true });
    expect(draftActions(me('propose', 'key-2'), open)).toEqual(none);
    expect(draftActions(me('read', 'key-1'), open)).toEqual(none);
    // A key of unknown id (an old server without /api/keys/current) is nobody's author.
    expect(draftActions({ ...me('propose'), id: null }, { state: 'open', author_key_id: null })).toEqual(
      none,
    );
    for (const state of ['published', 'closed'] as const)
      expect(draftActions(me('admin', 'key-1'), { ...open, state })).toEqual(none);
  });

  it('a conflict is placed at its base line, or in the metadata (line 0)', () => {
    expect(hunkPlace({ line: 4, base: 'a', current: 'b', draft: 'c' })).toBe('Line 4 of the base');
    expect(hunkPlace({ line: 0, base: 'k: 1', current: 'k: 2', draft: 'k: 3' })).toBe('Metadata');
  });
});

describe('links in a rendered file', () => {
  it('the outline is read from the rendered headings, tags removed and entities decoded', () => {
    const html =
      '<h1 id="a">Title &amp; <em>more</em></h1><p>x</p><h2>B &lt;c&gt;</h2><h7>no</h7><h3\nclass="x">D</h3>';
    expect(headingsOf(html)).toEqual([
      { level: 1, text: 'Title & more' },
      { level: 2, text: 'B <c>' },
      { level: 3, text: 'D' },
    ]);
  });
});

describe('search highlights', () => {
  it('offsets are code points: an emoji before a match counts once', () => {
    expect(
      highlightParts({
        text: '😀 find me, find',
        highlights: [
          [2, 6],
          [11, 15],
        ],
      }),
    ).toEqual([
      { text: '😀 ', mark: false },
      { text: 'find', mark: true },
      { text: ' me, ', mark: false },
      { text: 'find', mark: true },
    ]);
    // Overlapping or empty ranges are skipped rather than repeating text.
    expect(
      highlightParts({
        text: 'abcdef',
        highlights: [
          [1, 4],
          [2, 3],
          [5, 5],
        ],
      }),
    ).toEqual([
      { text: 'a', mark: false },
      { text: 'bcd', mark: true },
      { text: 'ef', mark: false },
    ]);
  });
});

describe('save as copy', () => {
  it('names the copy beside the file, numbered after the first', () => {
    expect(copyName('notes/a.md', 1)).toBe('notes/a (copy).md');
    expect(copyName('notes/a.MDX', 3)).toBe('notes/a (copy 3).MDX');
  });
});

/** A dropped folder as the browser gives it: entries whose reader answers in batches. */
function fileEntry(fullPath: string) {
  const name = fullPath.slice(fullPath.lastIndexOf('/') + 1);
  return { isFile: true, isDirectory: false, fullPath, file: (ok: (f: unknown) => void) => ok({ name }) };
}
function folderEntry(fullPath: string, children: unknown[]) {
  return {
    isFile: false,
    isDirectory: true,
    fullPath,
    createReader: () => {
      // Two entries per call, then an empty batch: readEntries must be called until it is empty.
      let at = 0;
      return {
        readEntries: (ok: (batch: unknown[]) => void) => {
          const batch = children.slice(at, at + 2);
          at += 2;
          queueMicrotask(() => ok(batch));
        },
      };
    },
  };
}

describe('dropped folders', () => {
  it('walks folders (every batch of their readers) and keeps the paths below the drop', async () => {
    const tree = folderEntry('/notes', [
      fileEntry('/notes/a.md'),
      fileEntry('/notes/b.md'),
      folderEntry('/notes/2026', [fileEntry('/notes/2026/c.md')]),
      fileEntry('/notes/d.txt'),
    ]);
    const data = {
      items: [
        { kind: 'file', webkitGetAsEntry: () => tree },
        { kind: 'file', webkitGetAsEntry: () => fileEntry('/top.md') },
      ],
      files: [],
    };
    const found = await droppedFiles(data as unknown as DataTransfer);
    expect(found.map((f) => f.path)).toEqual([
      'notes/a.md',
      'notes/b.md',
      'notes/2026/c.md',
      'notes/d.txt',
      'top.md',
    ]);
  });

  it('without entries (a synthetic drop), the plain file list', async () => {
    const data = {
      items: [{ kind: 'file', webkitGetAsEntry: () => null }],
      files: [{ name: 'x.md', webkitRelativePath: '' }],
    };
    expect((await droppedFiles(data as unknown as DataTransfer)).map((f) => f.path)).toEqual(['x.md']);
  });
});

describe('history: who wrote each revision (extensions §14)', () => {
  it('names the signed-in key "you", another by its short id, and says unknown without one', () => {
    const me = { id: 'aaaaaaaa-1111-4111-8111-111111111111' };
    expect(authorOf(me, me.id)).toBe('you');
    expect(authorOf(me, 'bbbbbbbb-2222-4222-8222-222222222222')).toBe('key bbbbbbbb');
    expect(authorOf(me, null)).toBe('unknown');
    expect(changeOf({ change: 'content', message: 'move notes/a.md: rewrite links' })).toBe(
      'content (move notes/a.md: rewrite links)',
    );
    expect(changeOf({ change: 'edit', message: null })).toBe('edit');
  });
});

describe('keys: the create form (extensions §8, §14)', () => {
  it('sends folders and an expiry only when given', () => {
    expect(keyBody({ name: 'a', role: 'read', folders: '', expires: '' })).toEqual({
      name: 'a',
      role: 'read',
    });
    expect(
      keyBody({ name: 'agent', role: 'write', folders: ' memories/ , notes,', expires: '2027-01-31' }),
    ).toEqual({
      name: 'agent',
      role: 'write',
      path_prefixes: ['memories/', 'notes'],
      expires_date: '2027-01-31T23:59:59Z',
    });
  });
});

describe('file details: empty metadata (issue 37)', () => {
  it('shows None for null or an empty object, else the JSON', () => {
    expect(shownJson(null)).toBe('None');
    expect(shownJson(undefined)).toBe('None');
    expect(shownJson({})).toBe('None');
    expect(shownJson({ tags: ['a'] })).toBe('{\n  "tags": [\n    "a"\n  ]\n}');
  });
});

describe('new file names (issue 37)', () => {
  it('adds .md to a bare name, keeps .md/.mdx, and asks for another extension', () => {
    expect(newFileName(' notes ')).toEqual({ name: 'notes.md' });
    expect(newFileName('a/b.MDX')).toEqual({ name: 'a/b.MDX' });
    expect(newFileName('notes.txt')).toEqual({ ask: 'notes.txt.md' });
    expect(newFileName('v1.2/notes')).toEqual({ name: 'v1.2/notes.md' });
    expect(newFileName('.hidden')).toEqual({ name: '.hidden.md' });
  });
});

describe('front matter coloured as YAML (issue 37)', () => {
  it('finds the block by the core’s rule (the same texts have one; it ends at the closing line)', () => {
    for (const text of [
      '---\ntitle: A\n---\n# H\n',
      '---\r\na: 1\r\n...\r\nbody',
      '---  \na: 1\n---\t',
      '---\na: 1\n',
      '--- x\na: 1\n---\n',
      '# H\n---\na: 1\n---\n',
      '---\n---\n',
      '',
    ]) {
      const core = coreFrontMatterLength(text);
      const mine = frontMatterLength(text);
      expect(mine === 0, JSON.stringify(text)).toBe(core === 0);
      if (core > 0) expect(text.slice(mine, core), JSON.stringify(text)).toMatch(/^(\r\n|\n|\r)?$/);
    }
  });

  it('cuts a line into keys, values, comments, markers and punctuation', () => {
    const parts = (line: string, marker = false) =>
      yamlLineTokens(line, marker).map((t) => [t.part, line.slice(t.from, t.to)]);
    expect(parts('---', true)).toEqual([['mark', '---']]);
    expect(parts('title: Setup')).toEqual([
      ['key', 'title'],
      ['punct', ':'],
      ['value', 'Setup'],
    ]);
    expect(parts('  - name: x # note')).toEqual([
      ['punct', '-'],
      ['key', 'name'],
      ['punct', ':'],
      ['value', 'x'],
      ['comment', '# note'],
    ]);
    expect(parts('tags:')).toEqual([
      ['key', 'tags'],
      ['punct', ':'],
    ]);
    expect(parts('  - guide')).toEqual([
      ['punct', '-'],
      ['value', 'guide'],
    ]);
    expect(parts('# a comment')).toEqual([['comment', '# a comment']]);
    expect(parts('url: "http://x#y"')).toEqual([
      ['key', 'url'],
      ['punct', ':'],
      ['value', '"http://x#y"'],
    ]);
  });
});
