import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useRealServer } from '../../client/test/support/server.js';
import { readTree, removeFolder, runCli, tempFolder } from './support/cli.js';

let env: Record<string, string>;
let client: MdStoreClient;
let projectId: string;
let dir: string;

const scene = useRealServer();
beforeEach(async () => {
  const { account } = scene;
  env = { MDSTORE_URL: scene.server.url, MDSTORE_API_KEY: account.apiKey };
  client = createClient({ baseUrl: scene.server.url, apiKey: account.apiKey });
  projectId = account.defaultProjectId;
  dir = await tempFolder();
});
afterEach(async () => {
  await removeFolder(dir);
});

describe('projects', () => {
  it('create, then list (deleted ones only with --all)', async () => {
    const created = await runCli(['projects', 'create', 'Team notes', '--description', 'Ours', '--json'], {
      env,
    });
    expect(created.code).toBe(0);
    const project = JSON.parse(created.stdout);
    expect(project).toMatchObject({ name: 'Team notes', description: 'Ours' });
    const gone = await client.projects.create({ name: 'Gone' });
    await client.projects.delete(gone.id);
    const list = await runCli(['projects', 'list'], { env });
    expect(list.stdout).toMatch(/ Default \(default\)\n/);
    expect(list.stdout).toMatch(new RegExp(`${project.id}  0 files  0 B +Team notes\n`));
    expect(list.stdout).not.toContain('Gone');
    const all = JSON.parse((await runCli(['projects', 'list', '--all', '--json'], { env })).stdout);
    expect(all.projects.map((p: { name: string }) => p.name)).toEqual(['Default', 'Team notes', 'Gone']);
    const taken = await runCli(['projects', 'create', 'Team notes'], { env });
    expect(taken).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("409 Project with name 'Team notes' already exists"),
    });
  });
});

describe('files', () => {
  it('put, ls, cat, rm, in the default project or one named with --project', async () => {
    await writeFile(path.join(dir, 'hello world.md'), '# Hello\n');
    const put = await runCli(['put', path.join(dir, 'hello world.md'), '--metadata', '{"tags":["a"]}'], {
      env,
    });
    expect(put).toMatchObject({ code: 0, stdout: 'uploaded hello world.md (8 B, revision 1)\n' });
    const replaced = await runCli(['put', '-', 'hello world.md', '--json'], {
      env,
      stdin: '# Hello again\n',
    });
    expect(JSON.parse(replaced.stdout)).toMatchObject({ revision: 2, metadata: { tags: ['a'] } });
    expect((await runCli(['ls'], { env })).stdout).toBe('hello world.md\n');
    expect((await runCli(['ls', '-l'], { env })).stdout).toMatch(
      /^14 B {2}r2 {2}\d{4}-.+Z {2}hello world\.md\n$/,
    );
    expect((await runCli(['cat', 'hello world.md'], { env })).stdout).toBe('# Hello again\n');
    await runCli(['put', '-', 'guides/setup.md'], { env, stdin: '# Setup\n' });
    expect((await runCli(['ls', 'guides/'], { env })).stdout).toBe('guides/setup.md\n');
    expect((await runCli(['ls', 'hello'], { env })).stdout).toBe('hello world.md\n');
    await runCli(['rm', 'guides/setup.md'], { env });
    const other = await client.projects.create({ name: 'Other' });
    await runCli(['put', '-', 'r\u00e9sum\u00e9.md', '--project', 'Other'], { env, stdin: '# R\n' });
    expect((await runCli(['ls', '--project', other.id], { env })).stdout).toBe('r\u00e9sum\u00e9.md\n');
    expect((await runCli(['ls', '--json'], { env: { ...env, MDSTORE_PROJECT: 'Other' } })).stdout).toContain(
      'r\u00e9sum\u00e9.md',
    );
    expect((await runCli(['rm', 'hello world.md'], { env })).stdout).toBe('deleted hello world.md\n');
    expect((await client.files.list(projectId)).files).toEqual([]);
  });

  it('--if-match guards put and rm: a stale ETag is a 412 and nothing changes', async () => {
    const file = await client.files.upload(projectId, 'g.md', '# 1\n');
    await client.files.updateContent(projectId, 'g.md', '# 2\n');
    const put = await runCli(['put', '-', 'g.md', '--if-match', file.etag], { env, stdin: '# 3\n' });
    expect(put.code).toBe(1);
    expect(put.stderr).toContain('412 Precondition failed');
    const rm = await runCli(['rm', 'g.md', '--if-match', file.etag, '--json'], { env });
    expect(rm.code).toBe(1);
    expect(JSON.parse(rm.stdout)).toMatchObject({ error: { status: 412, detail: 'Precondition failed' } });
    expect(await client.files.readText(projectId, 'g.md')).toBe('# 2\n');
  });

  it('an unknown project name is an error, not the default project', async () => {
    const result = await runCli(['ls', '--project', 'Nope'], { env });
    expect(result).toMatchObject({ code: 1, stderr: 'mdstore: no project named "Nope"\n' });
  });
});

describe('push and pull', () => {
  it('push uploads what differs, pull downloads what differs; --delete removes what the other side lacks', async () => {
    await writeFile(path.join(dir, 'a.md'), '# a\n');
    await writeFile(path.join(dir, 'b.md'), '# b\n');
    await client.files.upload(projectId, 'a.md', '# old a\n');
    await client.files.upload(projectId, 'only-remote.md', '# r\n');
    const push = JSON.parse((await runCli(['push', dir, '--json'], { env })).stdout);
    expect(push.items).toEqual([
      { name: 'a.md', action: 'upload' },
      { name: 'b.md', action: 'upload' },
    ]);
    const pushDelete = await runCli(['push', dir, '--delete', '--dry-run'], { env });
    expect(pushDelete.stdout).toContain('would delete on the server: only-remote.md');
    expect((await client.files.list(projectId)).total_count).toBe(3);

    const into = path.join(dir, 'pulled');
    const pull = await runCli(['pull', into], { env });
    expect(pull.stdout).toContain('pull: 3 downloaded');
    expect(await readTree(into)).toEqual({ 'a.md': '# a\n', 'b.md': '# b\n', 'only-remote.md': '# r\n' });
    await writeFile(path.join(into, 'local-only.md'), '# l\n');
    await client.files.updateContent(projectId, 'b.md', '# b2\n');
    const again = JSON.parse((await runCli(['pull', into, '--delete', '--json'], { env })).stdout);
    expect(again.items).toEqual([
      { name: 'b.md', action: 'download' },
      { name: 'local-only.md', action: 'delete-local' },
    ]);
    expect(await readFile(path.join(into, 'b.md'), 'utf8')).toBe('# b2\n');
  });
});

describe('connection and command line', () => {
  it('reads url, key and project from the config file; flags and variables win over it', async () => {
    const project = await client.projects.create({ name: 'Configured' });
    await client.files.upload(project.id, 'c.md', '# c\n');
    const config = path.join(dir, 'mdstore', 'config.json');
    await mkdir(path.dirname(config), { recursive: true });
    await writeFile(
      config,
      JSON.stringify({ url: scene.server.url, api_key: env.MDSTORE_API_KEY, project: 'Configured' }),
    );
    expect((await runCli(['ls'], { env: { XDG_CONFIG_HOME: dir } })).stdout).toBe('c.md\n');
    expect((await runCli(['ls', '--config', config], { env: {} })).stdout).toBe('c.md\n');
    expect((await runCli(['ls', '--project', 'Default'], { env: { MDSTORE_CONFIG: config } })).stdout).toBe(
      '',
    );
    const wrongUrl = await runCli(['ls', '--url', 'http://127.0.0.1:9'], { env: { MDSTORE_CONFIG: config } });
    expect(wrongUrl.code).toBe(1);
    expect(wrongUrl.stderr).toMatch(/^mdstore: fetch failed/);
    await writeFile(config, '{"url": 5}');
    expect((await runCli(['ls'], { env: { MDSTORE_CONFIG: config } })).stderr).toBe(
      `mdstore: url in ${config} must be a string\n`,
    );
  });

  it('without a key it says where to put one', async () => {
    const result = await runCli(['ls'], { env: { MDSTORE_URL: scene.server.url } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no API key: set MDSTORE_API_KEY');
  });

  it('usage errors exit 2; the admin commands are pointed to', async () => {
    expect((await runCli([], { env })).code).toBe(2);
    expect((await runCli(['help'], { env })).stdout).toContain('mdstore sync DIR');
    expect((await runCli(['ls', '--bogus'], { env })).code).toBe(2);
    // The command comes first: an option's value is never taken for a command.
    expect((await runCli(['--project', 'ls', 'ls'], { env })).stderr).toContain('the command comes first');
    expect((await runCli(['cat'], { env })).stderr).toBe('mdstore: usage: mdstore cat NAME [--project P]\n');
    expect((await runCli(['sync', dir, '--jobs', '0'], { env })).code).toBe(2);
    const admin = await runCli(['accounts', 'list'], { env });
    expect(admin).toMatchObject({
      code: 2,
      stderr: 'mdstore: accounts is an admin command of the server: npm run -s mdstore -- accounts list\n',
    });
  });
});
