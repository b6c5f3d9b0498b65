import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createLogger, loadConfig, type ServerProcess, startServer } from '@mdstore/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = ['core', 'sql', 'memory', 'sqlite', 'postgres', 'fs', 's3', 'client', 'cli'];

/**
 * docs/embedding.md's runnable parts: each code block whose info string names a file (```js name.mjs)
 * is a program, written into the installed project as it is; the `json` block is what the page tells a
 * project's package.json to hold.
 */
async function embeddingPage(): Promise<{
  programs: Map<string, string>;
  packageJson: { allowScripts: Record<string, boolean> };
}> {
  const page = await readFile(path.join(REPO, 'docs/embedding.md'), 'utf8');
  const programs = new Map<string, string>();
  let packageJson: { allowScripts: Record<string, boolean> } | undefined;
  for (const [, info = '', code = ''] of page.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const [language, file] = info.trim().split(/\s+/);
    if (file !== undefined) programs.set(file, code);
    if (language === 'json' && code.includes('allowScripts')) packageJson = JSON.parse(code);
  }
  if (!packageJson) throw new Error('docs/embedding.md shows no package.json with allowScripts');
  return { programs, packageJson };
}

/**
 * The install needs the npm registry for the packages' own dependencies (from the npm cache when it
 * holds them). Unreachable outside CI: the file is skipped with the reason printed; in CI it must run.
 */
async function registryUnreachable(): Promise<string | undefined> {
  try {
    await run('npm', ['ping', '--fetch-timeout=10000', '--fetch-retries=0'], { timeout: 20_000 });
    return undefined;
  } catch (error) {
    return `the npm registry cannot be reached (${(error as Error).message.split('\n', 1)[0]})`;
  }
}
const unreachable = process.env.CI === 'true' ? undefined : await registryUnreachable();
if (unreachable) console.log(`the npm packages: skipped, ${unreachable}`);

let embedding: Awaited<ReturnType<typeof embeddingPage>>;
let work: string;
let project: string;
const tarballs = new Map<string, string>();

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund'], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });

/**
 * The packages' sources in a folder of their own, built there: building in the workspace could collide
 * with another test's build (`npm start` builds). Dependencies are the workspace's, linked; `@mdstore/*`
 * point to the copies.
 */
async function isolatedCopy(copy: string): Promise<string> {
  await mkdir(copy, { recursive: true });
  for (const file of ['package.json', 'tsconfig.base.json', 'LICENSE']) {
    await copyFile(path.join(REPO, file), path.join(copy, file));
  }
  const references = PACKAGES.map((p) => ({ path: `packages/${p}` }));
  await writeFile(path.join(copy, 'tsconfig.build.json'), JSON.stringify({ files: [], references }));
  await mkdir(path.join(copy, 'node_modules', '@mdstore'), { recursive: true });
  for (const entry of await readdir(path.join(REPO, 'node_modules'))) {
    if (entry !== '@mdstore')
      await symlink(path.join(REPO, 'node_modules', entry), path.join(copy, 'node_modules', entry));
  }
  for (const p of PACKAGES) {
    const from = path.join(REPO, 'packages', p);
    const to = path.join(copy, 'packages', p);
    await cp(from, to, {
      recursive: true,
      filter: (source) => !/[/\\](node_modules|dist)$/.test(source) && !source.endsWith('.tsbuildinfo'),
    });
    if (existsSync(path.join(from, 'node_modules'))) {
      await symlink(path.join(from, 'node_modules'), path.join(to, 'node_modules'));
    }
    await symlink(to, path.join(copy, 'node_modules', '@mdstore', p));
  }
  return copy;
}

/**
 * The packages as a user gets them: built, packed with `npm pack`, and installed from the tarballs into
 * a project outside the workspace, where nothing resolves to the sources.
 */
beforeAll(async () => {
  if (unreachable) return;
  work = await mkdtemp(path.join(tmpdir(), 'mdstore-packaging-'));
  const copy = await isolatedCopy(path.join(work, 'repo'));
  await run(
    process.execPath,
    [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'],
    {
      cwd: copy,
    },
  );
  const packed = await npm(
    [
      'pack',
      '--json',
      '--ignore-scripts',
      '--pack-destination',
      work,
      ...PACKAGES.flatMap((p) => ['-w', `packages/${p}`]),
    ],
    copy,
  );
  for (const entry of JSON.parse(packed.stdout) as Array<{
    name: string;
    filename: string;
    files: unknown;
  }>) {
    tarballs.set(entry.name, path.join(work, entry.filename));
  }
  embedding = await embeddingPage();
  project = path.join(work, 'app');
  await mkdir(project);
  const lock = JSON.parse(await readFile(path.join(REPO, 'package-lock.json'), 'utf8'));
  const version = (name: string) => lock.packages[`node_modules/${name}`].version as string;
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({
      name: 'app',
      private: true,
      type: 'module',
      dependencies: {
        ...Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`])),
        // The workspace's versions, so the native addon built for the workspace fits (see below).
        'better-sqlite3': version('better-sqlite3'),
        '@types/node': version('@types/node'),
      },
      // What docs/embedding.md tells a project to declare (npm 11's install-script policy).
      allowScripts: embedding.packageJson.allowScripts,
    }),
  );
  // Install scripts are skipped: ours have none, and better-sqlite3's would compile SQLite for minutes;
  // its addon, built for this very Node and version, is taken from the workspace instead.
  await npm(['install', '--ignore-scripts', '--prefer-offline'], project);
  await cp(
    path.join(REPO, 'node_modules/better-sqlite3/build'),
    path.join(project, 'node_modules/better-sqlite3/build'),
    { recursive: true },
  );
  for (const file of ['embed.mjs', 'sdk.mjs', 'consumer.ts']) {
    await copyFile(path.join(REPO, 'examples/packaged', file), path.join(project, file));
  }
  for (const [file, code] of embedding.programs) await writeFile(path.join(project, file), code);
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(unreachable !== undefined)('the npm packages', () => {
  it('each tarball holds the built code with types, the licence and no tests; none is private', async () => {
    expect([...tarballs.keys()].sort()).toEqual(PACKAGES.map((p) => `@mdstore/${p}`).sort());
    for (const name of tarballs.keys()) {
      const installed = path.join(project, 'node_modules', name);
      const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
      expect(manifest.private, name).toBeUndefined();
      expect(manifest.license, name).toBe('MIT');
      expect(await readFile(path.join(installed, 'LICENSE'), 'utf8')).toContain('MIT License');
      const { stdout } = await run('tar', ['-tzf', tarballs.get(name)!]);
      expect(stdout, name).not.toMatch(/\.test\.ts$/m);
      if (name !== '@mdstore/cli') {
        expect(stdout, name).toContain('package/dist/index.js');
        expect(stdout, name).toContain('package/dist/index.d.ts');
      }
    }
  });

  it('an embedding program runs on the installed core, SQLite and fs packages', async () => {
    const { stdout } = await run(process.execPath, ['embed.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH, DATA_DIR: path.join(work, 'data') },
    });
    expect(stdout).toMatch(/^embedding: ok \(file:\/\/mdstore-[0-9a-f-]{36}\/hello\.md\)\n$/);
  });

  it("docs/embedding.md's programs run as they are on the installed packages (the first one twice)", async () => {
    expect([...embedding.programs.keys()].sort()).toEqual(['embed-memory.mjs', 'embed-sqlite.mjs']);
    const env = { PATH: process.env.PATH };
    const first = await run(process.execPath, ['embed-sqlite.mjs'], { cwd: project, env });
    expect(first.stdout).toBe('sqlite: guides/setup.md revision 3, 34 bytes, 1 search result(s)\n');
    // Again on the same data: it finds what the first run made and goes on.
    const second = await run(process.execPath, ['embed-sqlite.mjs'], { cwd: project, env });
    expect(second.stdout).toBe('sqlite: guides/setup.md revision 5, 34 bytes, 1 search result(s)\n');
    const memory = await run(process.execPath, ['embed-memory.mjs'], { cwd: project, env });
    expect(memory.stdout).toMatch(/^memory: hello\.md 8 bytes, sha256 [0-9a-f]{12}…\n$/);
  });

  it("installing with the page's allowScripts prints no install-scripts warning", async () => {
    expect(embedding.packageJson.allowScripts).toEqual({ 'better-sqlite3': true });
    // A dry run: npm resolves everything and applies its install-script policy without running any.
    const { stderr } = await npm(['install', '--dry-run', '--prefer-offline'], project);
    expect(stderr).not.toContain('install-scripts');
    const withoutPolicy = path.join(work, 'no-policy');
    await mkdir(withoutPolicy);
    const manifest = JSON.parse(await readFile(path.join(project, 'package.json'), 'utf8'));
    delete manifest.allowScripts;
    await writeFile(path.join(withoutPolicy, 'package.json'), JSON.stringify(manifest));
    // The check can fail: without the policy npm does warn about better-sqlite3's script.
    const warned = await npm(['install', '--dry-run', '--prefer-offline'], withoutPolicy);
    expect(warned.stderr).toContain('install-scripts');
  });

  it('a TypeScript program type-checks against the installed packages', async () => {
    const tsc = path.join(REPO, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    await run(process.execPath, [tsc, ...args, '--target', 'es2022', '--types', 'node', 'consumer.ts'], {
      cwd: project,
    });
  });

  describe('against a running server', () => {
    let server: ServerProcess;
    let dir: string;
    let env: Record<string, string | undefined>;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'mdstore-packaging-server-'));
      const config = loadConfig({ MDSTORE_DATA_DIR: dir, PORT: '0' });
      server = await startServer({
        config,
        logger: createLogger({ level: 'silent' }),
        shutdownGraceMs: 1000,
      });
      const account = await server.runtime.store.accounts.create({ name: 'packaging' });
      env = {
        PATH: process.env.PATH,
        HOME: dir,
        MDSTORE_URL: server.url,
        MDSTORE_API_KEY: account.apiKey.apiKey,
      };
    });
    afterAll(async () => {
      await server?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('an SDK program runs on the installed client', async () => {
      const { stdout } = await run(process.execPath, ['sdk.mjs'], { cwd: project, env });
      expect(stdout).toBe('sdk: ok (revision 2)\n');
    });

    it('the installed mdstore command runs from its build', async () => {
      const bin = path.join(project, 'node_modules/.bin/mdstore');
      expect((await run(bin, ['--version'], { cwd: project, env })).stdout).toBe('0.1.0\n');
      await writeFile(path.join(project, 'note.md'), '# note\n');
      await run(bin, ['put', 'note.md'], { cwd: project, env });
      expect((await run(bin, ['ls'], { cwd: project, env })).stdout).toBe('note.md\n');
    });
  });
});
