import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createClient } from '@mdstore/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTarGz, readZip } from '../../../apps/server/test/support/archives.js';
import { useRealServer } from '../../client/test/support/server.js';
import { run } from '../src/run.js';
import { removeFolder, runCli, tempFolder } from './support/cli.js';

let env: Record<string, string>;
let projectId: string;
let dir: string;

const scene = useRealServer();
beforeEach(async () => {
  const { account } = scene;
  env = { MDSTORE_URL: scene.server.url, MDSTORE_API_KEY: account.apiKey };
  projectId = account.defaultProjectId;
  const client = createClient({ baseUrl: scene.server.url, apiKey: account.apiKey });
  await client.files.upload(projectId, 'a.md', '# a\n');
  await client.files.upload(projectId, 'guides/r\u00e9sum\u00e9.md', '# R\u00e9sum\u00e9\n');
  dir = await tempFolder();
});
afterEach(async () => {
  await removeFolder(dir);
});

describe('mdstore export', () => {
  it('writes a zip named by the project, its files and mdstore.json; the format follows the extension', async () => {
    const target = path.join(dir, 'notes.zip');
    const result = await runCli(['export', 'Default', target], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^exported Default to .*notes\.zip \(zip, \d+ B\)\n$/);
    expect(result.stderr).toBe('');
    const entries = await readZip(await readFile(target));
    expect(entries.map((e) => e.name)).toEqual(['a.md', 'guides/r\u00e9sum\u00e9.md', 'mdstore.json']);
    expect(entries[1]?.bytes.toString()).toBe('# R\u00e9sum\u00e9\n');

    const tgz = path.join(dir, 'guides.tgz');
    const json = await runCli(['export', projectId, tgz, '--prefix', 'guides/', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const summary = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ project_id: projectId, file: tgz, format: 'tar.gz' });
    const archive = await readFile(tgz);
    expect(summary.size_bytes).toBe(archive.length);
    expect((await readTarGz(archive)).map((e) => e.name)).toEqual([
      'guides/r\u00e9sum\u00e9.md',
      'mdstore.json',
    ]);
    expect(await readdir(dir)).toEqual(['guides.tgz', 'notes.zip']);
  });

  it('--format overrides the extension; - writes the archive to stdout', async () => {
    const target = path.join(dir, 'backup.bin');
    expect((await runCli(['export', 'Default', target, '--format', 'tar.gz'], { env })).code).toBe(0);
    expect((await readTarGz(await readFile(target))).map((e) => e.name)).toContain('mdstore.json');
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await run(['export', 'Default', '-'], {
      stdout,
      stderr: new PassThrough(),
      stdin: Readable.from([]),
      env: { HOME: '/nonexistent', ...env },
    });
    expect(code).toBe(0);
    expect((await readZip(Buffer.concat(chunks))).map((e) => e.name)).toEqual([
      'a.md',
      'guides/r\u00e9sum\u00e9.md',
      'mdstore.json',
    ]);
  });

  it('shows the bytes received on a terminal, and clears the line at the end', async () => {
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    const err: Buffer[] = [];
    stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const code = await run(['export', 'Default', path.join(dir, 'tty.zip')], {
      stdout: new PassThrough(),
      stderr,
      stdin: Readable.from([]),
      env: { HOME: '/nonexistent', ...env },
    });
    expect(code).toBe(0);
    const text = Buffer.concat(err).toString();
    expect(text).toMatch(/^\rexport: \d+ B\x1b\[K/);
    expect(text.endsWith('\r\x1b[K')).toBe(true);
    const piped = await runCli(['export', 'Default', path.join(dir, 'piped.zip')], { env });
    expect(piped.stderr).toBe('');
  });

  it('an unknown project or format fails and leaves no file behind', async () => {
    const target = path.join(dir, 'none.zip');
    const unknown = await runCli(['export', 'No such project', target], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no project named "No such project"');
    const format = await runCli(['export', 'Default', target, '--format', 'rar'], { env });
    expect(format.code).toBe(2);
    const missing = await runCli(['export', '00000000-0000-4000-8000-000000000000', target], { env });
    expect(missing.code).toBe(1);
    expect(existsSync(target)).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });
});
