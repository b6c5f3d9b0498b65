import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { run } from '../../src/run.js';

export const BIN = fileURLToPath(new URL('../../bin/mdstore.js', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one command line in this process, as the `mdstore` command would. */
export async function runCli(
  argv: string[],
  options: { env: Record<string, string | undefined>; stdin?: string; tty?: boolean; signal?: AbortSignal },
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await run(argv, {
    stdout,
    stderr,
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    env: { HOME: '/nonexistent', ...options.env },
    ...(options.signal && { signal: options.signal }),
  });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

/** Runs the real `bin/mdstore.js` in a child process. */
export function spawnCli(
  argv: string[],
  options: { env: Record<string, string | undefined>; cwd?: string; stdin?: string },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH, HOME: '/nonexistent', ...options.env },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.end(options.stdin ?? '');
  });
}

/** A fresh temporary folder; `files` maps relative paths (`/` between folders) to contents. */
export async function tempFolder(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-cli-'));
  await writeFiles(dir, files);
  return dir;
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, ...name.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

/** Every file under `dir` (relative, `/` between folders) with its content; hidden files left out unless asked. */
export async function readTree(
  dir: string,
  options: { hidden?: boolean } = {},
): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  async function walk(folder: string, prefix: string) {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.') && !options.hidden) continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(full, `${prefix}${entry.name}/`);
      else tree[`${prefix}${entry.name}`] = await readFile(full, 'utf8');
    }
  }
  await walk(dir, '');
  return tree;
}

export const removeFolder = (dir: string) => rm(dir, { recursive: true, force: true });
