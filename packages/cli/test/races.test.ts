import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useRealServer } from '../../client/test/support/server.js';
import { type SyncReport, syncFolder } from '../src/index.js';
import { readTree, removeFolder, tempFolder } from './support/cli.js';

let apiKey: string;
let projectId: string;
/** Another writer: the user's colleague on the scene.server. */
let other: MdStoreClient;
let dir: string;

const scene = useRealServer();
beforeEach(async () => {
  const { account } = scene;
  apiKey = account.apiKey;
  projectId = account.defaultProjectId;
  other = createClient({ baseUrl: scene.server.url, apiKey });
  dir = await tempFolder();
});
afterEach(async () => {
  await removeFolder(dir);
});

type Hook = (method: string, url: string) => Promise<void> | void;

/** A client whose requests pass through `before` and `after` hooks (to act in the middle of a sync). */
function hookedClient(hooks: { before?: Hook; after?: Hook }): MdStoreClient {
  const hooked: typeof fetch = async (input, init) => {
    const method = init?.method ?? 'GET';
    const url = decodeURIComponent(String(input));
    await hooks.before?.(method, url);
    const response = await fetch(input, init);
    await hooks.after?.(method, url);
    return response;
  };
  return createClient({ baseUrl: scene.server.url, apiKey, fetch: hooked });
}

const sync = (client: MdStoreClient, batchFiles?: number) =>
  syncFolder({
    client,
    server: scene.server.url,
    root: dir,
    projectId,
    concurrency: 1,
    ...(batchFiles !== undefined && { batchFiles }),
  });
const plain = () => createClient({ baseUrl: scene.server.url, apiKey });
const actions = (report: SyncReport) => Object.fromEntries(report.items.map((i) => [i.name, i.action]));

describe('a side that moves during the sync', () => {
  it('a remote change between the listing and the upload is a conflict, not an overwrite (If-Match)', async () => {
    await writeFile(path.join(dir, 'a.md'), '# base\n');
    await sync(plain());
    await writeFile(path.join(dir, 'a.md'), '# mine\n');
    let once = true;
    const client = hookedClient({
      before: async (method, url) => {
        if (method === 'PUT' && url.endsWith('/a.md/content') && once) {
          once = false;
          await other.files.updateContent(projectId, 'a.md', '# theirs\n');
        }
      },
    });
    const report = await sync(client);
    expect(actions(report)).toEqual({ 'a.md': 'conflict' });
    expect(await other.files.readText(projectId, 'a.md')).toBe('# theirs\n');
    const tree = await readTree(dir);
    expect(tree['a.md']).toBe('# mine\n');
    expect(tree[report.conflicts[0]!.copy]).toBe('# theirs\n');
  });

  it('a remote change between the listing and a remote delete brings the file back instead', async () => {
    await writeFile(path.join(dir, 'a.md'), '# base\n');
    await sync(plain());
    await rm(path.join(dir, 'a.md'));
    const client = hookedClient({
      before: async (method) => {
        if (method === 'DELETE') await other.files.updateContent(projectId, 'a.md', '# theirs\n');
      },
    });
    const report = await sync(client);
    expect(actions(report)).toEqual({ 'a.md': 'download' });
    expect(await readTree(dir)).toEqual({ 'a.md': '# theirs\n' });
    expect(await other.files.readText(projectId, 'a.md')).toBe('# theirs\n');
  });

  it('a file created remotely between the listing and its upload is compared, not overwritten', async () => {
    await writeFile(path.join(dir, 'new.md'), '# mine\n');
    const client = hookedClient({
      before: async (method) => {
        if (method === 'POST') await other.files.upload(projectId, 'new.md', '# theirs\n');
      },
    });
    const report = await sync(client);
    expect(actions(report)).toEqual({ 'new.md': 'conflict' });
    expect(await other.files.readText(projectId, 'new.md')).toBe('# theirs\n');
  });

  it('a remote change between the listing and a changeset of uploads: that file is a conflict, the others land', async () => {
    for (const name of ['a.md', 'b.md', 'c.md']) await writeFile(path.join(dir, name), `# base ${name}\n`);
    await sync(plain());
    for (const name of ['a.md', 'b.md', 'c.md']) await writeFile(path.join(dir, name), `# mine ${name}\n`);
    let changesets = 0;
    const client = hookedClient({
      before: async (method, url) => {
        if (method === 'POST' && url.endsWith('/changesets') && changesets++ === 0) {
          await other.files.updateContent(projectId, 'b.md', '# theirs\n');
        }
      },
    });
    const report = await sync(client);
    expect(actions(report)).toEqual({ 'a.md': 'upload', 'b.md': 'conflict', 'c.md': 'upload' });
    // The refused changeset, then the same without b.md.
    expect(changesets).toBe(2);
    expect(await other.files.readText(projectId, 'a.md')).toBe('# mine a.md\n');
    expect(await other.files.readText(projectId, 'b.md')).toBe('# theirs\n');
    const tree = await readTree(dir);
    expect(tree['b.md']).toBe('# mine b.md\n');
    expect(tree[report.conflicts[0]!.copy]).toBe('# theirs\n');
    expect((await sync(plain())).items).toEqual([
      { name: 'b.md', action: 'unresolved', copy: report.conflicts[0]!.copy },
    ]);
  });

  it('a local edit made while the remote version downloads is kept, and becomes a conflict', async () => {
    await writeFile(path.join(dir, 'a.md'), '# base\n');
    await sync(plain());
    await other.files.updateContent(projectId, 'a.md', '# theirs\n');
    let once = true;
    const client = hookedClient({
      after: async (method, url) => {
        if (method === 'GET' && url.endsWith('/files/a.md') && once) {
          once = false;
          await writeFile(path.join(dir, 'a.md'), '# mine, typed meanwhile\n');
        }
      },
    });
    const report = await sync(client);
    expect(actions(report)).toEqual({ 'a.md': 'conflict' });
    const tree = await readTree(dir);
    expect(tree['a.md']).toBe('# mine, typed meanwhile\n');
    expect(tree[report.conflicts[0]!.copy]).toBe('# theirs\n');
  });
});

describe('an interrupted sync, resumed', () => {
  it('a crash after the server took an upload but before the state was written: nothing is sent twice', async () => {
    const names = ['1.md', '2.md', '3.md', '4.md', '5.md'];
    for (const name of names) await writeFile(path.join(dir, name), `# ${name}\n`);
    let uploads = 0;
    const crashing = hookedClient({
      after: (method) => {
        // The third upload lands on the server, then the connection (or the process) dies.
        if (method === 'POST' && ++uploads === 3) throw new TypeError('fetch failed');
      },
    });
    // One file per changeset: each upload is its own request.
    await expect(sync(crashing, 1)).rejects.toThrow('fetch failed');
    const state = JSON.parse(await readFile(path.join(dir, '.mdstore-sync.json'), 'utf8'));
    expect(Object.keys(state.files).sort()).toEqual(['1.md', '2.md']);
    const resumed = await sync(plain());
    expect(actions(resumed)).toEqual({ '3.md': 'record', '4.md': 'upload', '5.md': 'upload' });
    const files = (await other.files.list(projectId)).files;
    expect(files.map((f) => [f.filename, f.revision])).toEqual(names.map((n) => [n, 1]));
    expect((await sync(plain())).items).toEqual([]);
  });

  it('uploads go as changesets, each recorded once acknowledged: a crash after one landed sends none again', async () => {
    const names = ['1.md', '2.md', '3.md', '4.md', '5.md'];
    for (const name of names) await writeFile(path.join(dir, name), `# ${name}\n`);
    let changesets = 0;
    const crashing = hookedClient({
      after: (method, url) => {
        if (method !== 'POST' || !url.endsWith('/changesets')) return;
        // The second changeset (3.md, 4.md) lands on the server, then the connection dies.
        if (++changesets === 2) throw new TypeError('fetch failed');
      },
    });
    await expect(sync(crashing, 2)).rejects.toThrow('fetch failed');
    const state = JSON.parse(await readFile(path.join(dir, '.mdstore-sync.json'), 'utf8'));
    expect(Object.keys(state.files).sort()).toEqual(['1.md', '2.md']);
    let writes = 0;
    const counting = hookedClient({
      before: (method) => {
        if (method === 'POST' || method === 'PUT') writes++;
      },
    });
    const resumed = await sync(counting, 2);
    expect(actions(resumed)).toEqual({ '3.md': 'record', '4.md': 'record', '5.md': 'upload' });
    // 5.md alone is sent on its own (a single upload), the two recorded need no request.
    expect(writes).toBe(1);
    const files = (await other.files.list(projectId)).files;
    expect(files.map((f) => [f.filename, f.revision])).toEqual(names.map((n) => [n, 1]));
    expect((await sync(plain())).items).toEqual([]);
  });

  it('downloads that landed before their state was written are recorded, not fetched again', async () => {
    for (const name of ['x.md', 'y.md']) await other.files.upload(projectId, name, `# ${name}\n`);
    await sync(plain());
    // As if the process had died right after writing the files: the state knows none of them.
    const stateFile = path.join(dir, '.mdstore-sync.json');
    const state = JSON.parse(await readFile(stateFile, 'utf8'));
    await writeFile(stateFile, JSON.stringify({ ...state, files: {} }));
    let downloads = 0;
    const counting = hookedClient({
      before: (method, url) => {
        if (method === 'GET' && /\/files\/.+/.test(url)) downloads++;
      },
    });
    const resumed = await sync(counting);
    expect(actions(resumed)).toEqual({ 'x.md': 'record', 'y.md': 'record' });
    expect(downloads).toBe(0);
  });
});
