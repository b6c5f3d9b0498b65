import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../../client/test/support/server.js';
import type { SyncReport } from '../src/index.js';
import { readTree, removeFolder, runCli, tempFolder, writeFiles } from './support/cli.js';

let server: RealServer;
let env: Record<string, string>;
let remote: MdStoreClient;
let projectId: string;
const folders: string[] = [];

beforeAll(async () => {
  server = await startRealServer();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  const account = await server.account();
  env = { MDSTORE_URL: server.url, MDSTORE_API_KEY: account.apiKey };
  remote = createClient({ baseUrl: server.url, apiKey: account.apiKey });
  projectId = account.defaultProjectId;
});
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});

async function folder(files: Record<string, string> = {}) {
  const dir = await tempFolder(files);
  folders.push(dir);
  return dir;
}

async function sync(dir: string, ...flags: string[]) {
  const result = await runCli(['sync', dir, '--json', ...flags], { env });
  return { code: result.code, report: JSON.parse(result.stdout) as SyncReport, stderr: result.stderr };
}

const actions = (report: SyncReport) =>
  Object.fromEntries(report.items.map((item) => [item.name, item.action]));

async function remoteTree(): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  for await (const file of remote.files.iterate(projectId)) {
    tree[file.filename] = await remote.files.readText(projectId, file.filename);
  }
  return tree;
}

const revisions = async () =>
  Object.fromEntries((await remote.files.list(projectId)).files.map((f) => [f.filename, f.revision]));

const FILES = {
  'hello.md': '# Hello\n',
  'meeting notes.md': '# Meeting notes\n',
  'r\u00e9sum\u00e9 \u65e5\u672c.mdx': '# R\u00e9sum\u00e9\n',
};

describe('sync DIR', () => {
  it('a first sync uploads the folder and writes the state; the next one moves nothing', async () => {
    const dir = await folder(FILES);
    const first = await sync(dir);
    expect(first.code).toBe(0);
    expect(actions(first.report)).toEqual({
      'hello.md': 'upload',
      'meeting notes.md': 'upload',
      'r\u00e9sum\u00e9 \u65e5\u672c.mdx': 'upload',
    });
    expect(await remoteTree()).toEqual(FILES);
    const state = JSON.parse(await readFile(path.join(dir, '.mdstore-sync.json'), 'utf8'));
    expect(state).toMatchObject({ format: 'mdstore-sync/1', server: server.url, project_id: projectId });
    const listed = (await remote.files.list(projectId)).files;
    for (const file of listed) {
      expect(state.files[file.filename]).toEqual({ sha256: file.sha256, etag: file.etag, revision: 1 });
    }
    const second = await sync(dir);
    expect(second.code).toBe(0);
    expect(second.report.items).toEqual([]);
    expect(await revisions()).toEqual({
      'hello.md': 1,
      'meeting notes.md': 1,
      'r\u00e9sum\u00e9 \u65e5\u672c.mdx': 1,
    });
  });

  it('a first sync into an empty folder downloads the project', async () => {
    for (const [name, content] of Object.entries(FILES)) await remote.files.upload(projectId, name, content);
    const dir = path.join(await folder(), 'new folder');
    const result = await sync(dir);
    expect(result.code).toBe(0);
    expect(Object.values(actions(result.report))).toEqual(['download', 'download', 'download']);
    expect(await readTree(dir)).toEqual(FILES);
  });

  it('moves only what changed, each way, and deletes only what one side deleted', async () => {
    const dir = await folder({
      ...FILES,
      'keep.md': '# keep\n',
      'gone-here.md': 'x\n',
      'gone-there.md': 'y\n',
    });
    await sync(dir);
    // Local: edit one, delete one. Remote: edit one, delete one. Both: delete one.
    await writeFile(path.join(dir, 'hello.md'), '# Hello, edited here\n');
    await rm(path.join(dir, 'gone-here.md'));
    await remote.files.updateContent(projectId, 'meeting notes.md', '# Meeting notes, edited there\n');
    await remote.files.delete(projectId, 'gone-there.md');
    await writeFiles(dir, { 'new here.md': '# new\n' });
    await remote.files.upload(projectId, 'new there.md', '# new there\n');
    const result = await sync(dir);
    expect(result.code).toBe(0);
    expect(actions(result.report)).toEqual({
      'hello.md': 'upload',
      'gone-here.md': 'delete-remote',
      'meeting notes.md': 'download',
      'gone-there.md': 'delete-local',
      'new here.md': 'upload',
      'new there.md': 'download',
    });
    const expected = {
      'hello.md': '# Hello, edited here\n',
      'meeting notes.md': '# Meeting notes, edited there\n',
      'r\u00e9sum\u00e9 \u65e5\u672c.mdx': FILES['r\u00e9sum\u00e9 \u65e5\u672c.mdx'],
      'keep.md': '# keep\n',
      'new here.md': '# new\n',
      'new there.md': '# new there\n',
    };
    expect(await readTree(dir)).toEqual(expected);
    expect(await remoteTree()).toEqual(expected);
    // Unchanged files were not written again.
    expect(await revisions()).toMatchObject({ 'keep.md': 1, 'hello.md': 2, 'meeting notes.md': 2 });
    expect((await sync(dir)).report.items).toEqual([]);
  });

  it('a file deleted on both sides is forgotten', async () => {
    const dir = await folder({ 'both.md': '# both\n' });
    await sync(dir);
    await rm(path.join(dir, 'both.md'));
    await remote.files.delete(projectId, 'both.md');
    const result = await sync(dir);
    expect(actions(result.report)).toEqual({ 'both.md': 'forget' });
    const state = JSON.parse(await readFile(path.join(dir, '.mdstore-sync.json'), 'utf8'));
    expect(state.files).toEqual({});
  });

  it('a change beats a deletion on the other side: the changed file comes back', async () => {
    const dir = await folder({ 'edited here.md': '# 1\n', 'edited there.md': '# 1\n' });
    await sync(dir);
    await writeFile(path.join(dir, 'edited here.md'), '# 2 here\n');
    await remote.files.delete(projectId, 'edited here.md');
    await remote.files.updateContent(projectId, 'edited there.md', '# 2 there\n');
    await rm(path.join(dir, 'edited there.md'));
    const result = await sync(dir);
    expect(result.code).toBe(0);
    expect(actions(result.report)).toEqual({ 'edited here.md': 'upload', 'edited there.md': 'download' });
    const both = { 'edited here.md': '# 2 here\n', 'edited there.md': '# 2 there\n' };
    expect(await readTree(dir)).toEqual(both);
    expect(await remoteTree()).toEqual(both);
  });

  it('a conflict keeps both versions, exits 3 until resolved, and the resolution is uploaded', async () => {
    const dir = await folder({ 'plan.md': '# Plan\n' });
    await sync(dir);
    await writeFile(path.join(dir, 'plan.md'), '# Plan\n\nmine\n');
    await remote.files.updateContent(projectId, 'plan.md', '# Plan\n\ntheirs\n');
    const conflict = await sync(dir);
    expect(conflict.code).toBe(3);
    const copy = conflict.report.conflicts[0]!.copy;
    expect(copy).toMatch(/^plan\.conflict-\d{8}T\d{6}Z\.md$/);
    expect(conflict.report.items).toEqual([{ name: 'plan.md', action: 'conflict', copy }]);
    expect(await readTree(dir)).toEqual({ 'plan.md': '# Plan\n\nmine\n', [copy]: '# Plan\n\ntheirs\n' });
    expect(await remoteTree()).toEqual({ 'plan.md': '# Plan\n\ntheirs\n' });

    // Not resolved yet: nothing moves, the copy is not uploaded, the exit code still says so.
    const again = await sync(dir);
    expect(again.code).toBe(3);
    expect(again.report.items).toEqual([{ name: 'plan.md', action: 'unresolved', copy }]);
    expect(await remoteTree()).toEqual({ 'plan.md': '# Plan\n\ntheirs\n' });

    // Resolved: merged by hand, copy deleted.
    await writeFile(path.join(dir, 'plan.md'), '# Plan\n\nmine\ntheirs\n');
    await rm(path.join(dir, copy));
    const resolved = await sync(dir);
    expect(resolved.code).toBe(0);
    expect(actions(resolved.report)).toEqual({ 'plan.md': 'upload' });
    expect(await remoteTree()).toEqual({ 'plan.md': '# Plan\n\nmine\ntheirs\n' });
    expect((await sync(dir)).report.items).toEqual([]);
  });

  it('the human output lists the conflict and tells what to do', async () => {
    const dir = await folder({ 'x.md': '# local\n' });
    await remote.files.upload(projectId, 'x.md', '# remote\n');
    const result = await runCli(['sync', dir], { env });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(
      /CONFLICT: x\.md \(the server's version is in x\.conflict-\d{8}T\d{6}Z\.md\)/,
    );
    expect(result.stdout).toContain('merge each copy into its file, delete the copy, and sync again');
  });

  it('a first sync finding the same name on both sides: equal content is recorded, different is a conflict', async () => {
    const dir = await folder({ 'same.md': '# same\n', 'differs.md': '# here\n' });
    await remote.files.upload(projectId, 'same.md', '# same\n');
    await remote.files.upload(projectId, 'differs.md', '# there\n');
    const result = await sync(dir);
    expect(result.code).toBe(3);
    expect(actions(result.report)).toEqual({ 'same.md': 'record', 'differs.md': 'conflict' });
    // Taking the server's version: copy it over the file, delete the copy.
    const copy = result.report.conflicts[0]!.copy;
    await writeFile(path.join(dir, 'differs.md'), await readFile(path.join(dir, copy)));
    await rm(path.join(dir, copy));
    const resolved = await sync(dir);
    expect(resolved.code).toBe(0);
    expect(actions(resolved.report)).toEqual({ 'differs.md': 'record' });
    expect(await revisions()).toEqual({ 'differs.md': 1, 'same.md': 1 });
  });

  it('a metadata-only change on the server is no content change; the new ETag is kept for the next write', async () => {
    const dir = await folder({ 'm.md': '# m\n' });
    await sync(dir);
    await remote.files.updateMetadata(projectId, 'm.md', { reviewed: true });
    const recorded = await sync(dir);
    expect(actions(recorded.report)).toEqual({ 'm.md': 'record' });
    await writeFile(path.join(dir, 'm.md'), '# m2\n');
    const uploaded = await sync(dir);
    expect(uploaded.code).toBe(0);
    expect(actions(uploaded.report)).toEqual({ 'm.md': 'upload' });
    const file = (await remote.files.list(projectId)).files[0]!;
    expect(file).toMatchObject({ revision: 3, metadata: { reviewed: true } });
  });

  it('--dry-run tells the plan and changes nothing anywhere', async () => {
    const dir = await folder({ 'a.md': '# a\n' });
    await remote.files.upload(projectId, 'b.md', '# b\n');
    const result = await sync(dir, '--dry-run');
    expect(result.code).toBe(0);
    expect(result.report.dry_run).toBe(true);
    expect(actions(result.report)).toEqual({ 'a.md': 'upload', 'b.md': 'download' });
    expect(existsSync(path.join(dir, '.mdstore-sync.json'))).toBe(false);
    expect(await readTree(dir)).toEqual({ 'a.md': '# a\n' });
    expect(await remoteTree()).toEqual({ 'b.md': '# b\n' });
  });

  it('--dry-run that predicts a conflict exits 3, changes nothing and words every line as a plan', async () => {
    const dir = await folder({ 'same.md': '# same\n', 'differs.md': '# here\n', 'new.md': '# new\n' });
    await remote.files.upload(projectId, 'same.md', '# same\n');
    await remote.files.upload(projectId, 'differs.md', '# there\n');
    const json = await sync(dir, '--dry-run');
    expect(json.code).toBe(3);
    expect(actions(json.report)).toEqual({
      'same.md': 'record',
      'differs.md': 'conflict',
      'new.md': 'upload',
    });
    const human = await runCli(['sync', dir, '--dry-run'], { env });
    expect(human.code).toBe(3);
    expect(human.stdout.split('\n')).toEqual([
      'would CONFLICT: differs.md',
      'would upload: new.md',
      'would record as in sync: same.md',
      'sync (dry run): 1 would CONFLICT, 1 would upload, 1 would record as in sync',
      '1 conflict(s) ahead: a sync would keep both versions of each (exit code 3)',
      '',
    ]);
    expect(human.stdout).not.toContain('would in sync');
    expect(existsSync(path.join(dir, '.mdstore-sync.json'))).toBe(false);
    expect(await readTree(dir)).toEqual({
      'same.md': '# same\n',
      'differs.md': '# here\n',
      'new.md': '# new\n',
    });
    expect(await remoteTree()).toEqual({ 'differs.md': '# there\n', 'same.md': '# same\n' });
    const done = await runCli(['sync', dir], { env });
    expect(done.code).toBe(3);
    expect(done.stdout).toContain('uploaded: new.md');
    expect(done.stdout).toContain('in sync: same.md');
  });

  it('hidden files, other extensions and conflict copies are left alone on both sides', async () => {
    const dir = await folder({
      'ok.md': '# ok\n',
      '.hidden.md': '# hidden\n',
      '.git/notes.md': '# git\n',
      'image.png': 'png',
      'old.conflict-20260101T000000Z.md': '# copy\n',
    });
    await remote.files.upload(projectId, '.remote-hidden.md', '# remote hidden\n');
    const result = await sync(dir);
    expect(result.code).toBe(0);
    expect(actions(result.report)).toEqual({ 'ok.md': 'upload' });
    expect(result.report.skipped).toEqual(['.remote-hidden.md', 'old.conflict-20260101T000000Z.md']);
    expect(Object.keys(await remoteTree()).sort()).toEqual(['.remote-hidden.md', 'ok.md']);
    // The remote hidden file is never taken for a local deletion.
    expect(actions((await sync(dir)).report)).toEqual({});
  });

  it('a folder synced with one project refuses another', async () => {
    const dir = await folder({ 'a.md': '# a\n' });
    await sync(dir);
    const other = await remote.projects.create({ name: 'Other' });
    const result = await runCli(['sync', dir, '--project', other.id], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`is synced with project ${projectId}`);
  });

  it('a second sync of the same folder while one runs is refused; a lock left by a dead process is taken over', async () => {
    const dir = await folder({ 'a.md': '# a\n' });
    await writeFile(path.join(dir, '.mdstore-sync.lock'), `${process.pid}\n`);
    const busy = await runCli(['sync', dir], { env });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`another sync of ${dir} is running (process ${process.pid}`);
    await writeFile(path.join(dir, '.mdstore-sync.lock'), '2147483646\n');
    const resumed = await sync(dir);
    expect(resumed.code).toBe(0);
    expect(existsSync(path.join(dir, '.mdstore-sync.lock'))).toBe(false);
  });
});
