import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * The memory endpoint (extensions §14) against `@anthropic-ai/sdk`'s own reference backend
 * (`BetaLocalFilesystemMemoryTool`, a dev dependency): one scripted session of commands is run on both,
 * the reference on a temporary directory, and every answer must be the same text, word for word,
 * errors included. The table below names which of the reference's strings each step reaches; a last
 * check insists that every string the reference can return on a plain directory was reached. (Not
 * reachable here: "Unsupported file type" and the symlink escape need a special file or a symlink on
 * disk, which a store has not; "has too many lines" needs a file of a million lines, checked by the
 * core's unit test.) What the store does beyond the reference is tested after the table.
 */
const test = serverTest({ settings: { maxFileBytes: 64 * 1024 } });

type Command = Record<string, unknown> & { command: string };

/** A step: the command, and the template of the reference it answers with. */
interface Step {
  readonly input: Command;
  readonly template: string;
}

const view = (p: string, view_range?: number[]): Command => ({ command: 'view', path: p, view_range });
const create = (p: string, file_text: string): Command => ({ command: 'create', path: p, file_text });
const replace = (p: string, old_str: string, new_str: string): Command => ({
  command: 'str_replace',
  path: p,
  old_str,
  new_str,
});
const insert = (p: string, insert_line: number, insert_text: string): Command => ({
  command: 'insert',
  path: p,
  insert_line,
  insert_text,
});
const remove = (p: string): Command => ({ command: 'delete', path: p });
const rename = (old_path: string, new_path: string): Command => ({ command: 'rename', old_path, new_path });

/** Every string `BetaLocalFilesystemMemoryTool` can return or throw, by name. */
const TEMPLATES = [
  'created',
  'already exists',
  'file view',
  'folder view',
  'not exist (view/str_replace/insert)',
  'edited snippet',
  'not verbatim',
  'multiple occurrences',
  'not a file',
  'inserted',
  'invalid insert_line',
  'cannot delete root',
  'delete missing',
  'deleted',
  'cannot rename root',
  'destination exists',
  'rename missing',
  'renamed',
  'must start with /memories',
  'would escape',
] as const;

const SCRIPT: Step[] = [
  { input: create('/memories/notes.txt', 'hello\nworld\n'), template: 'created' },
  { input: create('/memories/notes.txt', 'again'), template: 'already exists' },
  { input: create('/memories', 'root'), template: 'already exists' },
  { input: view('/memories/notes.txt'), template: 'file view' },
  { input: view('/memories/notes.txt', [2, -1]), template: 'file view' },
  { input: view('/memories/notes.txt', [2, 2]), template: 'file view' },
  { input: view('/memories/notes.txt', [0, 10]), template: 'file view' },
  { input: replace('/memories/notes.txt', 'hello', 'HELLO'), template: 'edited snippet' },
  { input: replace('/memories/notes.txt', 'absent', 'x'), template: 'not verbatim' },
  { input: create('/memories/dup.txt', 'a x\nb x\nc\nd\ne\nf\ng x y x\n'), template: 'created' },
  { input: replace('/memories/dup.txt', 'x', 'z'), template: 'multiple occurrences' },
  { input: replace('/memories/dup.txt', 'e', 'E\nE2'), template: 'edited snippet' },
  { input: replace('/memories/dup.txt', 'y', '$& $1 $$'), template: 'edited snippet' },
  { input: view('/memories/dup.txt'), template: 'file view' },
  { input: insert('/memories/notes.txt', 1, 'inserted\n'), template: 'inserted' },
  { input: insert('/memories/notes.txt', 0, 'first'), template: 'inserted' },
  { input: insert('/memories/notes.txt', 99, 'x'), template: 'invalid insert_line' },
  { input: insert('/memories/notes.txt', -1, 'x'), template: 'invalid insert_line' },
  { input: view('/memories/notes.txt'), template: 'file view' },
  { input: replace('/memories/missing.txt', 'a', 'b'), template: 'not exist (view/str_replace/insert)' },
  { input: insert('/memories/missing.txt', 0, 'a'), template: 'not exist (view/str_replace/insert)' },
  { input: view('/memories/missing.txt'), template: 'not exist (view/str_replace/insert)' },
  { input: remove('/memories/missing.txt'), template: 'delete missing' },
  { input: remove('/memories'), template: 'cannot delete root' },
  { input: remove('/memories/'), template: 'cannot delete root' },
  { input: rename('/memories', '/memories/x'), template: 'cannot rename root' },
  { input: rename('/memories/notes.txt', '/memories/dup.txt'), template: 'destination exists' },
  { input: rename('/memories/missing.txt', '/memories/other.txt'), template: 'rename missing' },
  { input: rename('/memories/notes.txt', '/memories/archive/notes.txt'), template: 'renamed' },
  { input: create('/memories/archive/2024/jan.txt', 'january'), template: 'created' },
  { input: create('/memories/archive/2024/deep/feb.txt', 'february'), template: 'created' },
  { input: create('/memories/.hidden.txt', 'secret'), template: 'created' },
  { input: create('/memories/node_modules/x.txt', 'x'), template: 'created' },
  { input: view('/memories'), template: 'folder view' },
  { input: create('/memories/archive', 'a file where a folder is'), template: 'already exists' },
  { input: view('/memories/archive'), template: 'folder view' },
  { input: view('/memories/archive/notes.txt'), template: 'file view' },
  { input: replace('/memories/archive', 'a', 'b'), template: 'not a file' },
  { input: insert('/memories/archive', 0, 'a'), template: 'not a file' },
  { input: view('/etc/passwd'), template: 'must start with /memories' },
  { input: create('memories/x.txt', 'x'), template: 'must start with /memories' },
  { input: rename('/memories/dup.txt', '/tmp/x'), template: 'must start with /memories' },
  { input: view('/memories/../etc/passwd'), template: 'would escape' },
  { input: create('/memories/a/../../x.txt', 'x'), template: 'would escape' },
  { input: remove('/memories/..'), template: 'would escape' },
  { input: rename('/memories/../x', '/memories/y'), template: 'would escape' },
  { input: view('/memories/archive/2024/../notes.txt'), template: 'file view' },
  { input: rename('/memories/archive', '/memories/old'), template: 'renamed' },
  { input: view('/memories/old'), template: 'folder view' },
  { input: view('/memories/old/2024/deep/feb.txt'), template: 'file view' },
  { input: remove('/memories/old'), template: 'deleted' },
  { input: view('/memories/old'), template: 'not exist (view/str_replace/insert)' },
  { input: remove('/memories/dup.txt'), template: 'deleted' },
  { input: view('/memories'), template: 'folder view' },
];

/** The reference's answer: its string, or the message it throws. */
async function reference(tool: BetaLocalFilesystemMemoryTool, input: Command): Promise<string> {
  try {
    const handler = (tool as unknown as Record<string, (c: Command) => Promise<string>>)[input.command]!;
    return await handler.call(tool, input);
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * A folder's own size is its directory entry's on the reference's disk (4096 on most file systems,
 * other sizes on tmpfs); the store shows `4K` (docs/agents.md). Folder lines are compared without it.
 */
const maskFolderSizes = (text: string): string =>
  text
    .split('\n')
    .map((line, i) => {
      const [size, shown] = line.split('\t');
      if (i === 0 || shown === undefined) return line;
      const folder = shown.endsWith('/') || i === 1;
      return folder ? `<dir>\t${shown}` : `${size}\t${shown}`;
    })
    .join('\n');

async function memory(h: HttpHarness, key: string, projectId: string, input: unknown) {
  const response = await h.json(`/api/projects/${projectId}/memory`, 'POST', key, input);
  const text = await response.text();
  return { status: response.status, body: response.status === 200 ? JSON.parse(text) : text };
}

const fileUrl = (projectId: string, filename: string) =>
  `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;

describe('POST /api/projects/{id}/memory', () => {
  test('answers every command with exactly the reference backend text, step by step', async (h) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-memory-reference-'));
    try {
      const tool = await BetaLocalFilesystemMemoryTool.init(dir);
      const { apiKey, defaultProjectId } = await h.account();
      const reached = new Set<string>();
      for (const step of SCRIPT) {
        const expected = await reference(tool, step.input);
        const got = await memory(h, apiKey, defaultProjectId, step.input);
        const context = JSON.stringify(step.input);
        expect(got.status, context).toBe(200);
        const result = got.body.result as string;
        if (step.template === 'folder view') {
          expect(result.split('\n').at(1)?.split('\t')[0], context).toBe('4K');
          expect(maskFolderSizes(result), context).toBe(maskFolderSizes(expected));
        } else expect(result, context).toBe(expected);
        const isError =
          !/^(File created|Here|The memory file has been edited|The file .* has been edited\.$|Successfully)/.test(
            expected,
          );
        expect(got.body.is_error, context).toBe(isError);
        reached.add(step.template);
      }
      expect([...reached].sort()).toEqual([...TEMPLATES].sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('refuses traversal in every spelling with the tool text, and writes nothing outside memories/', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const spellings = [
      '/memories/%2e%2e/secret.txt',
      '/memories/%2E%2E%2Fsecret.txt',
      '/memories/..%2fsecret.txt',
      '/memories/..\\secret.txt',
      '/memories\\..\\secret.txt',
      '/memories/a%5c..%5csecret.txt',
      '/memories/a\u0000.txt',
      '/memories/a%00.txt',
      '/memories/../../etc/passwd',
      '/memories/./../secret.txt',
    ];
    for (const spelling of spellings) {
      const got = await memory(h, apiKey, defaultProjectId, create(spelling, 'x'));
      expect(got.body, spelling).toEqual({
        result: `Path ${spelling} would escape /memories directory`,
        is_error: true,
      });
    }
    for (const absolute of ['/etc/passwd', '//memories/x.txt', 'C:\\memories\\x.txt', '']) {
      const got = await memory(h, apiKey, defaultProjectId, create(absolute, 'x'));
      expect(got.body, absolute).toEqual({
        result: `Path must start with /memories, got: ${absolute}`,
        is_error: true,
      });
    }
    const files = await h.fetch(`/api/projects/${defaultProjectId}/files`, { key: apiKey });
    expect(((await files.json()) as { files: unknown[] }).files).toEqual([]);
  });

  test('stores /memories/… under memories/, adding .md to other names and listing them without it', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const run = (input: Command) => memory(h, apiKey, defaultProjectId, input);
    await run(create('/memories/plain', 'one'));
    await run(create('/memories/notes.txt', 'two'));
    await run(create('/memories/page.md', 'three'));
    await run(create('/memories/deck.mdx', 'four'));
    const files = await h.fetch(`/api/projects/${defaultProjectId}/files`, { key: apiKey });
    const names = ((await files.json()) as { files: Array<{ filename: string }> }).files.map(
      (f) => f.filename,
    );
    expect(names).toEqual([
      'memories/deck.mdx',
      'memories/notes.txt.md',
      'memories/page.md',
      'memories/plain.md',
    ]);
    expect((await run(view('/memories'))).body.result).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
        '4K\t/memories\n4B\t/memories/deck.mdx\n3B\t/memories/notes.txt\n5B\t/memories/page\n3B\t/memories/plain',
    );
    // Both spellings reach the same file.
    expect((await run(view('/memories/plain.md'))).body.result).toContain('\tone');
    expect((await run(create('/memories/page', 'again'))).body.result).toBe(
      'File /memories/page already exists',
    );
  });

  test('each change is one revision (history, diff, restore), audited, with its change event', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const run = (input: Command) => memory(h, apiKey, defaultProjectId, input);
    await run(create('/memories/log.txt', 'alpha\nbeta\n'));
    await run(replace('/memories/log.txt', 'alpha', 'ALPHA'));
    await run(insert('/memories/log.txt', 0, 'zero'));
    // An error text changes nothing.
    await run(replace('/memories/log.txt', 'absent', 'x'));
    const url = fileUrl(defaultProjectId, 'memories/log.txt.md');
    const revisions = await h.fetch(`${url}/revisions`, { key: apiKey });
    const list = (await revisions.json()) as { revisions: Array<{ revision: number; change: string }> };
    expect(list.revisions.map((r) => r.change)).toEqual(['content', 'content', 'created']);
    const diff = await h.fetch(`${url}/diff?from=1&to=2`, { key: apiKey });
    expect(diff.status).toBe(200);
    expect(await diff.text()).toContain('+ALPHA');
    const restored = await h.json(`${url}/restore`, 'POST', apiKey, { revision: 1 });
    expect(restored.status).toBeLessThan(300);
    expect((await run(view('/memories/log.txt'))).body.result).toBe(
      "Here's the content of /memories/log.txt with line numbers:\n     1\talpha\n     2\tbeta\n     3\t",
    );
    await run(rename('/memories/log.txt', '/memories/kept.txt'));
    await run(remove('/memories/kept.txt'));

    const changes = await h.fetch('/api/changes', { key: apiKey });
    const feed = (await changes.json()) as { changes: Array<{ type: string; filename: string | null }> };
    const mine = feed.changes.filter((c) => c.filename?.startsWith('memories/'));
    expect(mine.map((c) => `${c.type} ${c.filename}`)).toEqual([
      'file.created memories/log.txt.md',
      'file.updated memories/log.txt.md',
      'file.updated memories/log.txt.md',
      'file.updated memories/log.txt.md',
      'file.moved memories/kept.txt.md',
      'file.deleted memories/kept.txt.md',
    ]);

    await h.audit.flush();
    const audit = await h.fetch(`/api/audit?project_id=${defaultProjectId}`, { key: apiKey });
    const entries = ((await audit.json()) as { entries: Array<{ action: string; filename: string | null }> })
      .entries;
    const memoryEntries = entries.filter((e) => e.action === 'POST /api/projects/:project_id/memory');
    // Five changes (create, str_replace, insert, rename, delete); the error text and the view are not.
    expect(memoryEntries.map((e) => e.filename).sort()).toEqual(
      [
        'memories/log.txt.md',
        'memories/log.txt.md',
        'memories/log.txt.md',
        'memories/log.txt.md',
        'memories/kept.txt.md',
      ].sort(),
    );
  });

  test('view needs a read key, every other command a write key (403)', async (h) => {
    const account = await h.account();
    const reader = await h.store.apiKeys.create({ account: account.accountId, role: 'read' });
    const projectId = account.defaultProjectId;
    await memory(h, account.apiKey, projectId, create('/memories/a.txt', 'a'));
    expect((await memory(h, reader.apiKey, projectId, view('/memories/a.txt'))).status).toBe(200);
    for (const input of [
      create('/memories/b.txt', 'b'),
      replace('/memories/a.txt', 'a', 'b'),
      insert('/memories/a.txt', 0, 'b'),
      remove('/memories/a.txt'),
      rename('/memories/a.txt', '/memories/c.txt'),
    ]) {
      const got = await memory(h, reader.apiKey, projectId, input);
      expect(got.status, input.command).toBe(403);
    }
    const other = await h.account();
    expect((await memory(h, other.apiKey, projectId, view('/memories'))).status).toBe(403);
  });

  test('a body that is not a command is 422; sizes past the caps are the tool error text', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    for (const body of [
      {},
      { command: 'explode', path: '/memories' },
      { command: 'create', path: '/memories/x' },
    ]) {
      expect((await memory(h, apiKey, defaultProjectId, body)).status, JSON.stringify(body)).toBe(422);
    }
    const big = 'x'.repeat(64 * 1024 + 1);
    const got = await memory(h, apiKey, defaultProjectId, create('/memories/big.txt', big));
    expect(got.body).toEqual({
      result: `File /memories/big.txt would be too large (${big.length} bytes). Maximum is ${64 * 1024} bytes.`,
      is_error: true,
    });
    expect((await memory(h, apiKey, defaultProjectId, create('/memories/empty.txt', ''))).body).toEqual({
      result: 'File /memories/empty.txt cannot be empty.',
      is_error: true,
    });
  });

  test('a multi-line old_str is found in the whole text (the reference finds none)', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await memory(h, apiKey, defaultProjectId, create('/memories/m.txt', 'a\nb\nc\nb\nc\n'));
    const twice = await memory(h, apiKey, defaultProjectId, replace('/memories/m.txt', 'b\nc', 'X'));
    expect(twice.body.result).toBe(
      'No replacement was performed. Multiple occurrences of old_str `b\nc` in lines: 2, 4. Please ensure it is unique',
    );
    const once = await memory(h, apiKey, defaultProjectId, replace('/memories/m.txt', 'a\nb', 'A'));
    expect(once.body.result).toBe(
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tA\n     2\tc\n     3\tb',
    );
  });
});

describe('memory: bounds and projects that require If-Match', () => {
  test('every command works on a project with require_if_match (the commands send the ETag they read)', async (h) => {
    const { apiKey } = await h.account();
    const created = await h.json('/api/projects', 'POST', apiKey, {
      name: 'Strict',
      settings: { require_if_match: true },
    });
    const { id } = (await created.json()) as { id: string };
    const script: Array<[Command, string]> = [
      [create('/memories/d/a.txt', 'a'), 'File created successfully at: /memories/d/a.txt'],
      [replace('/memories/d/a.txt', 'a', 'b'), 'The memory file has been edited.'],
      [insert('/memories/d/a.txt', 0, 'z'), 'The file /memories/d/a.txt has been edited.'],
      [rename('/memories/d/a.txt', '/memories/d/b.txt'), 'Successfully renamed'],
      [rename('/memories/d', '/memories/e'), 'Successfully renamed /memories/d to /memories/e'],
      [remove('/memories/e/b.txt'), 'Successfully deleted /memories/e/b.txt'],
      [create('/memories/f/c.txt', 'c'), 'File created'],
      [remove('/memories/f'), 'Successfully deleted /memories/f'],
    ];
    for (const [input, start] of script) {
      const got = await memory(h, apiKey, id, input);
      expect(got.status, JSON.stringify(input)).toBe(200);
      expect(got.body.result.startsWith(start), got.body.result).toBe(true);
    }
  });

  test('a folder of more than 200 files is not renamed or deleted (error text, nothing changed)', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const operations = Array.from({ length: 201 }, (_, i) => ({
      op: 'put',
      filename: `memories/big/n${i}.md`,
      content: 'x',
    }));
    expect(
      (await h.json(`/api/projects/${defaultProjectId}/changesets`, 'POST', apiKey, { operations })).status,
    ).toBe(200);
    const text =
      'The directory /memories/big holds 201 files. At most 200 can be renamed or deleted at once.';
    expect((await memory(h, apiKey, defaultProjectId, remove('/memories/big'))).body).toEqual({
      result: text,
      is_error: true,
    });
    expect(
      (await memory(h, apiKey, defaultProjectId, rename('/memories/big', '/memories/small'))).body,
    ).toEqual({
      result: text,
      is_error: true,
    });
    const project = await h.fetch(`/api/projects/${defaultProjectId}`, { key: apiKey });
    expect(((await project.json()) as { file_count: number }).file_count).toBe(201);
  });

  test('a folder listing stops at 1000 entries and says how many it left out', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    for (const batch of [0, 1]) {
      const operations = Array.from({ length: 501 }, (_, i) => ({
        op: 'put',
        filename: `memories/many/f${String(batch * 501 + i).padStart(4, '0')}.md`,
        content: 'x',
      }));
      const put = await h.json(`/api/projects/${defaultProjectId}/changesets`, 'POST', apiKey, {
        operations,
      });
      expect(put.status).toBe(200);
    }
    const listed = (await memory(h, apiKey, defaultProjectId, view('/memories'))).body.result as string;
    const lines = listed.split('\n');
    // The header, the folder itself, 1000 entries (many/ and 999 files), the note.
    expect(lines).toHaveLength(1 + 1 + 1000 + 1);
    expect(lines[2]).toBe('4K\t/memories/many/');
    expect(lines.at(-1)).toBe('(3 more entries not shown)');
  }, 30_000);
});
