import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useRealServer } from '../../client/test/support/server.js';
import { run } from '../src/run.js';
import { removeFolder, runCli, tempFolder, writeFiles } from './support/cli.js';

let env: Record<string, string>;
let client: MdStoreClient;
let dir: string;

const scene = useRealServer();
beforeEach(async () => {
  const { account } = scene;
  env = { MDSTORE_URL: scene.server.url, MDSTORE_API_KEY: account.apiKey };
  client = createClient({ baseUrl: scene.server.url, apiKey: account.apiKey });
  dir = await tempFolder();
});
afterEach(async () => {
  await removeFolder(dir);
});

async function newProject(name: string): Promise<string> {
  return (await client.projects.create({ name })).id;
}

async function contentOf(projectId: string, filename: string): Promise<string> {
  return (await client.files.download(projectId, filename)).text();
}

interface Report {
  changeset_id: string | null;
  created: string[];
  updated: string[];
  unchanged: string[];
  deleted: string[];
  skipped: Array<{ name: string; reason: string }>;
}

describe('mdstore import', () => {
  it('an export file into another project: the same files; again: all unchanged', async () => {
    const source = await newProject('Source');
    await client.files.upload(source, 'a.md', '# a\n', { metadata: { tag: 'x' } });
    await client.files.upload(source, 'guides/b.md', '# b\n');
    const archive = path.join(dir, 'source.tgz');
    expect((await runCli(['export', 'Source', archive], { env })).code).toBe(0);
    await newProject('Copy');
    const first = await runCli(['import', 'Copy', archive], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^created: a\.md\ncreated: guides\/b\.md\n2 created, 0 updated, 0 unchanged, 0 deleted, 0 skipped \(changeset [0-9a-f-]+\)\n$/,
    );
    const copy = (await client.projects.list()).projects.find((p) => p.name === 'Copy')!.id;
    expect(await contentOf(copy, 'guides/b.md')).toBe('# b\n');
    const again = await runCli(['import', copy, archive, '--json'], { env });
    const report = JSON.parse(again.stdout) as Report;
    expect(report).toMatchObject({ changeset_id: null, created: [], unchanged: ['a.md', 'guides/b.md'] });
  });

  it('an Obsidian vault folder: .obsidian/ skipped, attachments reported, wiki links and front matter kept', async () => {
    const vault = path.join(dir, 'vault');
    await writeFiles(vault, {
      '.obsidian/app.json': '{}',
      '.obsidian/workspace.json': '{}',
      'Daily/2026-11-27.md': '---\ntags: [daily]\n---\n# Today\n[[Projects/Alpha|Alpha]] ![[diagram.png]]\n',
      'Projects/Alpha.md': '# Alpha\n[[2026-11-27#Today]]\n',
      'attachments/diagram.png': 'PNG',
      'Welcome.md': 'Start at [[Alpha]].\n',
    });
    const projectId = await newProject('Vault');
    const result = await runCli(['import', 'Vault', vault, '--importer', 'obsidian', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.created).toEqual(['Daily/2026-11-27.md', 'Projects/Alpha.md', 'Welcome.md']);
    expect(report.skipped).toEqual([
      { name: '.obsidian/', reason: 'dot folder or dot file' },
      {
        name: 'attachments/diagram.png',
        reason: 'its bytes are not what its content type says (image/png)',
      },
    ]);
    expect(await contentOf(projectId, 'Daily/2026-11-27.md')).toContain(
      '[[Projects/Alpha|Alpha]] ![[diagram.png]]',
    );
    const listed = (await client.files.list(projectId)).files.find(
      (f) => f.filename === 'Daily/2026-11-27.md',
    );
    expect(listed?.frontmatter).toEqual({ tags: ['daily'] });
  });

  it('--dry-run says what would happen and changes nothing; --mode replace deletes what the folder lacks', async () => {
    const projectId = await newProject('Docs');
    await client.files.upload(projectId, 'old.md', 'old');
    const folder = path.join(dir, 'docs');
    await mkdir(folder);
    await writeFile(path.join(folder, 'new.md'), 'new');
    const dry = await runCli(['import', 'Docs', folder, '--mode', 'replace', '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(
      'would be created: new.md\nwould be deleted: old.md\n1 created, 0 updated, 0 unchanged, 1 deleted, 0 skipped (dry run)\n',
    );
    expect((await client.files.list(projectId)).files.map((f) => f.filename)).toEqual(['old.md']);
    const done = await runCli(['import', 'Docs', folder, '--mode', 'replace'], { env });
    expect(done.code, done.stderr).toBe(0);
    expect((await client.files.list(projectId)).files.map((f) => f.filename)).toEqual(['new.md']);
  });

  it('shows the bytes sent on a terminal; wrong options are usage errors', async () => {
    await newProject('Tty');
    const folder = path.join(dir, 'tty');
    await writeFiles(folder, { 'a.md': 'a' });
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    const err: Buffer[] = [];
    stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const code = await run(['import', 'Tty', folder], {
      stdout: new PassThrough(),
      stderr,
      stdin: Readable.from([]),
      env: { HOME: '/nonexistent', ...env },
    });
    expect(code).toBe(0);
    const text = Buffer.concat(err).toString();
    expect(text).toMatch(/\rimport: \d+ B sent\x1b\[K/);
    expect(text.endsWith('\r\x1b[K')).toBe(true);
    expect((await runCli(['import', 'Tty', folder, '--mode', 'all'], { env })).code).toBe(2);
    expect((await runCli(['import', 'Tty', folder, '--importer', 'word'], { env })).code).toBe(2);
    expect((await runCli(['import', 'Tty', path.join(dir, 'missing')], { env })).code).toBe(2);
  });
});
