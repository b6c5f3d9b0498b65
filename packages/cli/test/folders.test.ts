import { existsSync } from 'node:fs';
import path from 'node:path';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../../client/test/support/server.js';
import { syncFolder, transferFolder } from '../src/index.js';
import { readTree, removeFolder, tempFolder } from './support/cli.js';
import { folderServer } from './support/folder-server.js';

const PROJECT = '00000000-0000-4000-8000-000000000001';
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});

/** Folders map to folders, both ways; the scenario runs against any server that accepts `/` in names. */
async function foldersScenario(client: MdStoreClient, projectId: string, server: string) {
  const dir = await tempFolder({
    'top.md': '# top\n',
    'guides/setup.md': '# setup\n',
    'guides/deep/x y.md': '# x\n',
  });
  folders.push(dir);
  const sync = () => syncFolder({ client, server, root: dir, projectId });
  const first = await sync();
  expect(first.errors).toEqual([]);
  const names = (await client.files.list(projectId)).files.map((f) => f.filename);
  expect(names).toEqual(['guides/deep/x y.md', 'guides/setup.md', 'top.md']);

  await client.files.upload(projectId, 'notes/2026/new.md', '# new\n');
  await client.files.delete(projectId, 'guides/deep/x y.md');
  const second = await sync();
  expect(second.items).toEqual([
    { name: 'guides/deep/x y.md', action: 'delete-local' },
    { name: 'notes/2026/new.md', action: 'download' },
  ]);
  expect(await readTree(dir)).toEqual({
    'top.md': '# top\n',
    'guides/setup.md': '# setup\n',
    'notes/2026/new.md': '# new\n',
  });
  // The folder the deletion emptied is gone too.
  expect(existsSync(path.join(dir, 'guides', 'deep'))).toBe(false);
}

describe('folders', () => {
  it('map to remote names with `/`, sent as one %2F-encoded path segment (against a folder-capable stand-in)', async () => {
    const stub = await folderServer(PROJECT);
    try {
      await foldersScenario(createClient({ baseUrl: stub.url }), PROJECT, stub.url);
      expect(stub.paths).toContain(`DELETE /api/projects/${PROJECT}/files/guides%2Fdeep%2Fx%20y.md`);
      expect(stub.paths).toContain(`GET /api/projects/${PROJECT}/files/notes%2F2026%2Fnew.md`);
    } finally {
      await stub.close();
    }
  });

  it('push and pull go file by file against a server without changesets or export (the interface alone)', async () => {
    const stub = await folderServer(PROJECT);
    try {
      const client = createClient({ baseUrl: stub.url });
      const files = { 'a.md': '# a\n', 'b/c.md': '# c\n', 'b/d.md': '# d\n' };
      const source = await tempFolder(files);
      const target = await tempFolder({});
      folders.push(source, target);
      const pushed = await transferFolder({ client, root: source, projectId: PROJECT, direction: 'push' });
      expect(pushed.errors).toEqual([]);
      const pulled = await transferFolder({ client, root: target, projectId: PROJECT, direction: 'pull' });
      expect(pulled.errors).toEqual([]);
      expect(await readTree(target)).toEqual(files);
      // Each batched request was tried once (answered 404), then every file went on its own.
      expect(stub.paths.filter((p) => p.endsWith('/changesets'))).toHaveLength(1);
      expect(stub.paths.filter((p) => p.includes('/export'))).toHaveLength(1);
      expect(stub.paths.filter((p) => p === `POST /api/projects/${PROJECT}/files`)).toHaveLength(3);
    } finally {
      await stub.close();
    }
  });

  describe('against the real server', () => {
    let server: RealServer;
    let client: MdStoreClient;
    let projectId: string;
    beforeAll(async () => {
      server = await startRealServer();
      const account = await server.account();
      client = createClient({ baseUrl: server.url, apiKey: account.apiKey });
      projectId = account.defaultProjectId;
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('the same against the real server (extensions §1)', async () => {
      await foldersScenario(client, projectId, server.url);
    });
  });
});
