import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { httpRequest } from './load.js';
import { type Child, freePort, REPO_ROOT, SOURCE_NODE_ARGS, spawnNode, waitUntilReady } from './processes.js';

const run = promisify(execFile);

/** An account as `accounts create` prints it. */
export interface BenchAccount {
  readonly account_id: string;
  readonly name: string;
  readonly api_key: string;
  readonly default_project_id: string;
}

/** Which adapters the server under test uses; `env` is added to the server's environment. */
export interface Flavour {
  readonly name: 'sqlite+fs' | 'postgres+s3';
  readonly env: Readonly<Record<string, string>>;
  /** Releases what the flavour created (database, s3rver). */
  dispose(): Promise<void>;
}

export interface MdstoreServer {
  readonly url: string;
  readonly pid: number;
  readonly child: Child;
  stop(): Promise<void>;
}

/**
 * The environment of the server under test: the caller's environment without any MDSTORE_* setting, a
 * fresh data folder, rate limits high enough never to trigger, and warn-level logs.
 */
export function serverEnvironment(options: {
  dataDir: string;
  port?: number;
  flavour: Flavour;
  logLevel: string;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('MDSTORE_') && !name.startsWith('AWS_') && name !== 'HOST' && name !== 'PORT') {
      env[name] = value;
    }
  }
  return {
    ...env,
    HOST: '127.0.0.1',
    PORT: String(options.port ?? 8080),
    MDSTORE_DATA_DIR: options.dataDir,
    MDSTORE_RATE_LIMIT_STANDARD: '1000000000',
    MDSTORE_RATE_LIMIT_PREMIUM: '1000000000',
    MDSTORE_LOG_LEVEL: options.logLevel,
    // One serving process unless a scenario asks for more (MDSTORE_WORKERS defaults to the cores).
    MDSTORE_WORKERS: '1',
    ...options.flavour.env,
  };
}

/** Creates accounts through the CLI's own command code, before the server starts. */
export async function seedAccounts(
  env: NodeJS.ProcessEnv,
  names: readonly string[],
): Promise<BenchAccount[]> {
  const { stdout } = await run(
    process.execPath,
    [...SOURCE_NODE_ARGS, path.join(REPO_ROOT, 'bench/support/seed-accounts.ts'), ...names],
    { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as BenchAccount[];
}

export interface StartOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Extra node flags for the server child, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
  /** Run `apps/server/dist/main.js` (built by `npm run build`) instead of the sources through tsx. */
  readonly compiled?: boolean;
}

const COMPILED_ENTRY = 'apps/server/dist/main.js';

/**
 * Starts the server as a child process: `apps/server/src/main.ts` (the `npm start` entry) from source
 * through tsx, or with `compiled` its build, exactly what `npm start` runs.
 */
export async function startMdstore(options: StartOptions): Promise<MdstoreServer> {
  const port = await freePort();
  const env = { ...options.env, PORT: String(port) };
  if (options.compiled && !existsSync(path.join(REPO_ROOT, COMPILED_ENTRY)))
    throw new Error(`${COMPILED_ENTRY} is missing: run npm run build (or the bench with --source)`);
  const child = spawnNode({
    script: options.compiled ? COMPILED_ENTRY : 'apps/server/src/main.ts',
    env,
    nodeArgs: [...(options.compiled ? [] : SOURCE_NODE_ARGS), ...(options.nodeFlags ?? [])],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    // 401 without a key means the server is listening and has finished starting (a 503 says "starting").
    await waitUntilReady(
      child,
      async () => (await httpRequest({ url: `${url}/api/projects` })).status === 401,
    );
  } catch (error) {
    await child.stop(2_000);
    throw error;
  }
  return { url, pid: child.pid, child, stop: () => child.stop() };
}

export async function makeTempDir(label: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `mdstore-bench-${label}-`));
}

export const sqliteFsFlavour = (): Flavour => ({ name: 'sqlite+fs', env: {}, dispose: async () => {} });

/** Whether something accepts TCP connections at 127.0.0.1:5432 (within one second). */
export function postgresReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: 5432 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * PostgreSQL (a fresh database, dropped afterwards) and s3rver (a child process on a free port, its data
 * removed afterwards) configured as the server's stores.
 */
export async function postgresS3Flavour(s3Endpoint: string): Promise<Flavour> {
  const { default: pg } = await import('pg');
  const database = `mdstore_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  return {
    name: 'postgres+s3',
    env: {
      MDSTORE_DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
      MDSTORE_BLOB_STORE: 's3',
      MDSTORE_S3_ENDPOINT: s3Endpoint,
      MDSTORE_S3_FORCE_PATH_STYLE: 'true',
      MDSTORE_S3_CHECKSUM: 'WHEN_REQUIRED',
      MDSTORE_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async dispose() {
      const cleaner = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
      await cleaner.connect();
      try {
        await cleaner.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await cleaner.end();
      }
    },
  };
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}
