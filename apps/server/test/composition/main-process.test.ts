import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RecordsRepository } from '@mdstore/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, TOKENS } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

let dir: string;
let dataDir: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mdstore-main-'));
  dataDir = path.join(dir, 'data');
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Starts `apps/server/src/main.ts` as `npm start` would run its build, collecting its output lines. */
function startMain(env: Record<string, string>, preload: readonly string[] = []) {
  const child = spawn(
    process.execPath,
    [
      '--conditions=mdstore-source',
      ...preload.flatMap((file) => ['--import', file]),
      '--import',
      'tsx',
      'apps/server/src/main.ts',
    ],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, MDSTORE_DATA_DIR: dataDir, MDSTORE_WORKERS: '1', ...env },
    },
  );
  children.push(child);
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => stdout.push(line));
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const exited = once(child, 'close').then(([code]) => code as number | null);
  /** Resolves with the first JSON log line whose message matches, or rejects when the process ends first. */
  const logLine = (pattern: RegExp) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const scan = () => {
        const found = stdout
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((r) => pattern.test(String(r.msg)));
        if (found) {
          clearInterval(timer);
          resolve(found);
        }
      };
      const timer = setInterval(scan, 20);
      void exited.then(() => {
        scan();
        clearInterval(timer);
        reject(new Error(`exited before logging ${pattern}: ${stderr.join('\n')}`));
      });
    });
  return { child, stdout, stderr, exited, logLine };
}

async function listInstances() {
  const runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: dataDir }), { logger: silentLogger });
  try {
    return await runtime.container.resolve<RecordsRepository>(TOKENS.records).listInstances();
  } finally {
    await runtime.close();
  }
}

function request(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    get(url, { rejectUnauthorized: false }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, headers: response.headers });
    }).on('error', reject);
  });
}

describe('the server entry point', () => {
  it('refuses a bad configuration with one line on stderr, before creating anything', async () => {
    const main = startMain({ PORT: 'eighty' });
    expect(await main.exited).toBe(1);
    expect(main.stderr).toEqual([
      'mdstore: invalid configuration: PORT: must be a port number from 0 to 65535 (got "eighty")',
    ]);
    expect(main.stdout).toEqual([]);
    await expect(readdir(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses plain HTTP on a public address, and unreadable TLS files', async () => {
    const [open, tls] = [
      startMain({ HOST: '0.0.0.0' }),
      startMain({
        MDSTORE_TLS_CERT: path.join(dir, 'missing.pem'),
        MDSTORE_TLS_KEY: path.join(dir, 'key.pem'),
      }),
    ];
    expect(await open.exited).toBe(1);
    expect(open.stderr).toHaveLength(1);
    expect(open.stderr[0]).toMatch(/^mdstore: invalid configuration: HOST: refusing to serve plain HTTP/);
    expect(await tls.exited).toBe(1);
    expect(tls.stderr).toEqual([
      `mdstore: invalid configuration: MDSTORE_TLS_CERT: cannot read ${path.join(dir, 'missing.pem')} (ENOENT)`,
    ]);
  });

  it('serves, and on SIGTERM stops listening, unregisters and exits 0', async () => {
    const main = startMain({ PORT: '0' });
    const ready = await main.logLine(/^mdstore listening on /);
    const url = String(ready.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await request(`${url}/healthz`)).status).toBe(200);
    expect((await listInstances()).map((i) => i.id)).toEqual([ready.instanceId]);
    await main.logLine(/^reconciliation finished$/);

    main.child.kill('SIGTERM');
    expect(await main.exited).toBe(0);
    expect(JSON.parse(main.stdout.at(-1)!)).toMatchObject({ msg: 'mdstore stopped' });
    expect(main.stderr).toEqual([]);
    expect(await listInstances()).toEqual([]);
    await expect(request(`${url}/healthz`)).rejects.toThrow();
  });

  it('exits 70 when syncing the SQLite WAL fails, instead of holding the writes it was for', async () => {
    const trigger = path.join(dir, 'disk-fails');
    const failing = fileURLToPath(new URL('./fixtures/fail-fdatasync.mjs', import.meta.url));
    const main = startMain({ PORT: '0', FAIL_FDATASYNC_WHEN: trigger }, [failing]);
    const ready = await main.logLine(/^mdstore listening on /);
    await writeFile(trigger, '');
    // A refused request is audited: its entry's commit is the write whose WAL sync fails.
    const refused = await request(`${String(ready.url)}/api/projects`);
    expect(refused.status).toBe(401);
    expect(await main.exited).toBe(70);
    const lines = main.stderr.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'records store lost durability: exiting so that a restart can reconcile',
      }),
    );
    expect(main.stderr.join('\n')).toMatch(/EIO/);
  });

  it('exits 1 when it cannot listen, leaving no instance registered', async () => {
    const blocker = http.createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      const main = startMain({ PORT: String(port) });
      expect(await main.exited).toBe(1);
      expect(main.stderr).toHaveLength(1);
      expect(JSON.parse(main.stderr[0]!)).toMatchObject({
        level: 'error',
        msg: `start-up failed: cannot listen on 127.0.0.1:${port}: the address is already in use (another mdstore, or another program, listens there)`,
        code: 'EADDRINUSE',
      });
      // The listener is bound before the stores are opened: not even the database file exists.
      await expect(readdir(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await listInstances()).toEqual([]);
    } finally {
      blocker.close();
    }
  });
});

const opensslAvailable = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!opensslAvailable) console.log('Skipping the TLS start-up test: no openssl to make a certificate');

describe.skipIf(!opensslAvailable)('the server entry point with TLS', () => {
  it('serves HTTPS and redirects plain HTTP from the redirect port', async () => {
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
    const main = startMain({
      PORT: '0',
      MDSTORE_TLS_CERT: cert,
      MDSTORE_TLS_KEY: key,
      MDSTORE_HTTP_REDIRECT_PORT: '0',
    });
    const ready = await main.logLine(/^mdstore listening on /);
    expect(String(ready.url)).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await request(`${String(ready.url)}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers['strict-transport-security']).toBeDefined();
    const redirected = await request(`${String(ready.redirectUrl)}/api/projects?x=1`);
    expect(redirected.status).toBe(308);
    expect(redirected.headers.location).toBe(`${String(ready.url)}/api/projects?x=1`);
    main.child.kill('SIGINT');
    expect(await main.exited).toBe(0);
  });
});
