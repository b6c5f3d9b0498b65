import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { CONSOLE_DIST } from '../../src/http/console/index.js';
import { type ChildServer, REPO_ROOT, spawnServer } from '../ops/support.js';
import { programArgs } from '../support/programs.js';

const run = promisify(execFile);

/** Debian's Chromium; `.ci/run` installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
export const browserSuite = haveChromium || process.env.CI === 'true';

/** The console's build (`npm run build` makes it; a test run alone builds it here, in about 2 s). */
export async function ensureConsoleBuilt(): Promise<void> {
  if (existsSync(path.join(CONSOLE_DIST, 'index.html'))) return;
  await run('npm', ['run', '-s', 'build:console'], { cwd: REPO_ROOT, timeout: 120_000 });
}

export interface ConsoleServer {
  readonly url: string;
  readonly apiKey: string;
  readonly projectId: string;
  /** The server's MDSTORE_DATA_DIR (SQLite and files). */
  readonly dataDir: string;
  readonly child: ChildServer;
  /** A JSON API call with the account's key. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The server as `npm start` runs it (the build, `node apps/server/dist/main.js`, on SQLite and files in
 * a temp folder; from the sources when the build is not current: `programArgs`), and an account made by
 * the admin CLI.
 * `extraEnv` adds settings (e.g. `MDSTORE_WEBHOOK_ALLOW_PRIVATE`).
 */
export async function startConsoleServer(extraEnv: Record<string, string> = {}): Promise<ConsoleServer> {
  await ensureConsoleBuilt();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mdstore-console-'));
  const env = { ...extraEnv, MDSTORE_DATA_DIR: dataDir, PORT: '0' };
  const child = spawnServer(env, [process.execPath, ...programArgs('server')]);
  const ready = await child.logLine(/^mdstore listening on /);
  const url = String(ready.url).replace(/\/$/, '');
  const cli = programArgs('cli');
  const { stdout } = await run(process.execPath, [...cli, 'accounts', 'create', '--name', 'console'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MDSTORE_DATA_DIR: dataDir },
  });
  const account = JSON.parse(stdout) as { api_key: string; default_project_id: string };
  const api = (pathname: string, init: RequestInit = {}) =>
    fetch(`${url}${pathname}`, {
      ...init,
      headers: { Authorization: `Bearer ${account.api_key}`, ...(init.headers as Record<string, string>) },
    });
  return {
    url,
    apiKey: account.api_key,
    projectId: account.default_project_id,
    dataDir,
    child,
    api,
    async stop() {
      child.child.kill('SIGTERM');
      await child.exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

const require = createRequire(import.meta.url);
/** axe-core's source, evaluated in the page (an injected script tag would be refused by the CSP). */
export const AXE_SOURCE_PATH = require.resolve('axe-core/axe.min.js');

export function uploadForm(filename: string, content: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/markdown' }), filename);
  return form;
}
