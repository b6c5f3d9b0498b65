import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useRealServer } from '../../client/test/support/server.js';
import { commonFolder } from '../src/sync/batch.js';
import { readTree, removeFolder, runCli, tempFolder } from './support/cli.js';

/**
 * Issue 27: `push` and `pull` of a folder of 1 000 files cost a handful of requests (changesets, one
 * export), not one per file, so the default budget of 1 000 requests an hour is not spent by one pull.
 */

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
  vi.restoreAllMocks();
  await removeFolder(dir);
});

const FILES = 1000;
const nameOf = (i: number) => `notes/${String(i).padStart(4, '0')}.md`;
const textOf = (i: number) => `# Note ${i}\n\n${'x'.repeat(200)}\n`;

/** Requests the CLI sends while `work` runs, by method and path. */
async function counted(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    seen.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return real(input, init);
  });
  await work();
  vi.restoreAllMocks();
  return seen;
}

describe('batched folders', () => {
  it(`push of ${FILES} files: one changeset, not ${FILES} uploads`, async () => {
    const folder = path.join(dir, 'push');
    await Promise.all(
      Array.from({ length: FILES }, async (_, i) => {
        const file = path.join(folder, nameOf(i));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, textOf(i));
      }),
    );
    let result: Awaited<ReturnType<typeof runCli>> | undefined;
    const requests = await counted(async () => {
      result = await runCli(['push', folder, '--json'], { env });
    });
    expect(result!.code, result!.stderr).toBe(0);
    expect(JSON.parse(result!.stdout).items).toHaveLength(FILES);
    expect(requests.filter((r) => r.endsWith('/changesets'))).toHaveLength(1);
    expect(requests.length).toBeLessThanOrEqual(5);
    expect((await client.files.list(projectId, { limit: 1 })).total_count).toBe(FILES);
    expect(await client.files.readText(projectId, nameOf(7))).toBe(textOf(7));
  });

  it(`pull of ${FILES} files: one export, not ${FILES} downloads`, async () => {
    const operations = Array.from({ length: FILES }, (_, i) => ({
      op: 'put' as const,
      filename: nameOf(i),
      content: textOf(i),
    }));
    await client.changesets.apply(projectId, operations);
    const into = path.join(dir, 'pull');
    let result: Awaited<ReturnType<typeof runCli>> | undefined;
    const started = performance.now();
    const requests = await counted(async () => {
      result = await runCli(['pull', into, '--json'], { env });
    });
    const seconds = (performance.now() - started) / 1000;
    expect(result!.code, result!.stderr).toBe(0);
    expect(JSON.parse(result!.stdout).items).toHaveLength(FILES);
    expect(requests.filter((r) => r.endsWith('/export'))).toHaveLength(1);
    expect(requests.length).toBeLessThanOrEqual(5);
    const tree = await readTree(into);
    expect(Object.keys(tree)).toHaveLength(FILES);
    expect(tree[nameOf(999)]).toBe(textOf(999));
    console.info(`pull of ${FILES} files: ${requests.length} requests, ${seconds.toFixed(2)} s`);
  });

  it('a push whose changeset the server refuses for one file reports that file and writes the others', async () => {
    const folder = path.join(dir, 'race');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'a.md'), 'a');
    await writeFile(path.join(folder, 'b.md'), 'b');
    await writeFile(path.join(folder, 'c.md'), 'c');
    // The server refuses empty content (400): the file is reported, the other two are written.
    await writeFile(path.join(folder, 'b.md'), '');
    const result = await runCli(['push', folder, '--json'], { env });
    const report = JSON.parse(result.stdout) as {
      items: Array<{ name: string }>;
      errors: Array<{ name: string }>;
    };
    expect(report.items.map((i) => i.name)).toEqual(['a.md', 'c.md']);
    expect(report.errors.map((e) => e.name)).toEqual(['b.md']);
    expect((await client.files.list(projectId)).files.map((f) => f.filename)).toEqual(['a.md', 'c.md']);
  });

  it('sync of a project into an empty folder reads the files from one export', async () => {
    const count = 300;
    await client.changesets.apply(
      projectId,
      Array.from({ length: count }, (_, i) => ({
        op: 'put' as const,
        filename: nameOf(i),
        content: textOf(i),
      })),
    );
    const into = path.join(dir, 'sync');
    let result: Awaited<ReturnType<typeof runCli>> | undefined;
    const requests = await counted(async () => {
      result = await runCli(['sync', into, '--json'], { env });
    });
    expect(result!.code, result!.stderr).toBe(0);
    expect(JSON.parse(result!.stdout).items).toHaveLength(count);
    expect(requests.filter((r) => r.endsWith('/export'))).toHaveLength(1);
    expect(requests.filter((r) => r.includes('/files/'))).toEqual([]);
    expect((await readTree(into))[nameOf(123)]).toBe(textOf(123));
    // The state records each file as listed: a second sync has nothing to do.
    const again = JSON.parse((await runCli(['sync', into, '--json'], { env })).stdout) as {
      items: unknown[];
    };
    expect(again.items).toEqual([]);
  });

  it('sync of a folder into an empty project sends its files as changesets, recorded in the state', async () => {
    const count = 300;
    const folder = path.join(dir, 'up');
    await mkdir(path.join(folder, 'notes'), { recursive: true });
    await Promise.all(
      Array.from({ length: count }, (_, i) => writeFile(path.join(folder, nameOf(i)), textOf(i))),
    );
    let result: Awaited<ReturnType<typeof runCli>> | undefined;
    const requests = await counted(async () => {
      result = await runCli(['sync', folder, '--json', '--batch', '100'], { env });
    });
    expect(result!.code, result!.stderr).toBe(0);
    const report = JSON.parse(result!.stdout) as { items: Array<{ action: string }> };
    expect(report.items).toHaveLength(count);
    expect(report.items.every((item) => item.action === 'upload')).toBe(true);
    expect(requests.filter((r) => r.endsWith('/changesets'))).toHaveLength(3);
    expect(requests.filter((r) => r.includes('/files/'))).toEqual([]);
    expect(await client.files.readText(projectId, nameOf(250))).toBe(textOf(250));
    const state = JSON.parse(await readFile(path.join(folder, '.mdstore-sync.json'), 'utf8'));
    expect(Object.keys(state.files)).toHaveLength(count);
    const again = JSON.parse((await runCli(['sync', folder, '--json'], { env })).stdout) as {
      items: unknown[];
    };
    expect(again.items).toEqual([]);
  });

  it('commonFolder', () => {
    expect(commonFolder(['a/b/c.md', 'a/b/d.md'])).toBe('a/b/');
    expect(commonFolder(['a/b/c.md', 'a/x.md'])).toBe('a/');
    expect(commonFolder(['a/b.md', 'c.md'])).toBe('');
    expect(commonFolder(['ab/c.md', 'a/c.md'])).toBe('');
  });
});
