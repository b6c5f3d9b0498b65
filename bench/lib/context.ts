import path from 'node:path';
import {
  createDiskBaseline,
  createS3rverBaseline,
  type ObjectStoreBaseline,
} from '../baselines/object-stores.js';
import { multipartBody } from './content.js';
import { httpJson } from './load.js';
import {
  type BenchAccount,
  type Flavour,
  type MdstoreServer,
  makeTempDir,
  postgresReachable,
  postgresS3Flavour,
  removeDir,
  seedAccounts,
  serverEnvironment,
  sqliteFsFlavour,
  startMdstore,
} from './mdstore.js';
import { type Child, REPO_ROOT, spawnNode, waitUntilReady } from './processes.js';
import type { Results } from './results.js';

/** Sizes and durations of one run; `--quick` shrinks everything so the whole run stays under a minute. */
export interface Settings {
  readonly quick: boolean;
  /** Time given to one target in a comparison, split over `rounds` alternating rounds. */
  readonly durationSec: number;
  readonly rounds: number;
  /** Warm-up before the first measurement of a target (JIT, caches, connections). */
  readonly warmupSec: number;
  /** Length of one latency measurement (growth scenarios, one request at a time). */
  readonly latencySec: number;
  readonly projectCount: number;
  /** File counts of the list-growth scenario; the last one is also the list-files scenario's. */
  readonly fileCounts: readonly number[];
  readonly memoryClients: number;
  /** How long a slow reader takes to read 10 MiB. */
  readonly slowReadSec: number;
  readonly spreadAccounts: number;
  readonly profile: boolean;
  /** Run the server under test from its build (`apps/server/dist/main.js`, what `npm start` runs). */
  readonly compiled: boolean;
  readonly logLevel: string;
}

export function settingsFor(quick: boolean, profile: boolean, compiled = true): Settings {
  return quick
    ? {
        quick,
        durationSec: 0.3,
        rounds: 1,
        warmupSec: 0.1,
        latencySec: 0.3,
        projectCount: 200,
        fileCounts: [50, 150, 500],
        memoryClients: 50,
        slowReadSec: 2,
        spreadAccounts: 100,
        profile,
        compiled,
        logLevel: 'info',
      }
    : {
        quick,
        durationSec: 4,
        rounds: 2,
        warmupSec: 1,
        latencySec: 3,
        projectCount: 1_000,
        fileCounts: [100, 1_000, 10_000],
        memoryClients: 50,
        slowReadSec: 15,
        spreadAccounts: 100,
        profile,
        compiled,
        logLevel: 'info',
      };
}

const log = (message: string) => process.stdout.write(`${message}\n`);

/** A child process that prints one JSON line when it is ready. */
async function startJsonChild<T>(
  script: string,
  args: readonly string[] = [],
): Promise<{ child: Child; info: T }> {
  let info: T | undefined;
  const child = spawnNode({
    script,
    args,
    onLine: (line) => {
      if (info === undefined && line.startsWith('{')) info = JSON.parse(line) as T;
    },
  });
  await waitUntilReady(child, async () => info !== undefined, 30_000);
  return { child, info: info! };
}

/** A running mdstore server of one flavour with its seeded accounts and cached fixtures. */
export class Session {
  private readonly fixtures = new Map<string, Promise<string>>();
  private fileCounter = 0;

  constructor(
    readonly flavour: Flavour,
    readonly server: MdstoreServer,
    readonly main: BenchAccount,
    readonly lister: BenchAccount,
    readonly spread: readonly BenchAccount[],
    private readonly settings: Settings,
  ) {}

  get url(): string {
    return this.server.url;
  }

  auth(account: BenchAccount = this.main): Record<string, string> {
    return { authorization: `Bearer ${account.api_key}` };
  }

  async createProject(name: string, account: BenchAccount = this.main): Promise<string> {
    const project = await httpJson<{ id: string }>({
      url: `${this.url}/api/projects`,
      method: 'POST',
      headers: { ...this.auth(account), 'content-type': 'application/json' },
      body: JSON.stringify({ name, description: 'benchmark project' }),
      expect: 201,
    });
    return project.id;
  }

  /** Uploads one file and checks the 201. */
  async upload(projectId: string, filename: string, content: Buffer): Promise<void> {
    const { body, contentType } = multipartBody(filename, content);
    await httpJson({
      url: `${this.url}/api/projects/${projectId}/files`,
      method: 'POST',
      headers: { ...this.auth(), 'content-type': contentType },
      body,
      expect: 201,
    });
  }

  /** A project holding `count` small files (created once per session and count, then reused). */
  projectWithFiles(count: number): Promise<string> {
    return this.fixture(`files-${count}`, async () => {
      const projectId = await this.createProject(`list-${count}-${Date.now()}`);
      const started = Date.now();
      const content = Buffer.from('# A small file\n\nSeeded for the list benchmarks.\n');
      let next = 0;
      const worker = async () => {
        while (next < count) {
          const index = next++;
          await this.upload(projectId, `f-${String(index).padStart(6, '0')}.md`, content);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      log(`    seeded ${count} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return projectId;
    });
  }

  /** The lister account, holding `projectCount` projects in all (its default project included). */
  listerWithProjects(): Promise<string> {
    return this.fixture('projects', async () => {
      const total = this.settings.projectCount;
      let next = 1;
      const worker = async () => {
        while (next < total) {
          const index = next++;
          await this.createProject(`p-${String(index).padStart(5, '0')}`, this.lister);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      return this.lister.default_project_id;
    });
  }

  /** A unique filename for a setup upload in this session. */
  uniqueName(prefix: string): string {
    return `${prefix}-${this.fileCounter++}.md`;
  }

  private fixture(key: string, create: () => Promise<string>): Promise<string> {
    let value = this.fixtures.get(key);
    if (!value) {
      value = create();
      this.fixtures.set(key, value);
    }
    return value;
  }
}

/** Everything shared by the scenarios of one run: settings, results, baselines and mdstore sessions. */
export class Bench {
  private express?: Promise<{ child: Child; url: string }>;
  private transferServer?: Promise<string>;
  private s3rver?: Promise<{ child: Child; endpoint: string }>;
  private s3Baseline?: Promise<ObjectStoreBaseline>;
  private diskBaseline?: Promise<ObjectStoreBaseline>;
  private readonly sessions = new Map<string, Promise<Session | null>>();
  private readonly cleanups: (() => Promise<void>)[] = [];
  private readonly warmed = new Set<string>();

  constructor(
    readonly settings: Settings,
    readonly results: Results,
  ) {}

  log = log;

  /** The bare Express baseline's URL (child process started on first use). */
  async expressUrl(): Promise<string> {
    this.express ??= (async () => {
      const { child, info } = await startJsonChild<{ url: string }>('bench/baselines/express-server.ts');
      this.cleanups.push(() => child.stop());
      return { child, url: info.url };
    })();
    return (await this.express).url;
  }

  /** Loads a JSON payload into the Express baseline (`project`, `projects`, `files`, `metadataUpdate`). */
  async setExpressFixture(name: string, value: unknown): Promise<void> {
    await httpJson({
      url: `${await this.expressUrl()}/__fixtures/${name}`,
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(value),
      expect: 204,
    });
  }

  /**
   * The URL of the transfer baselines' child (`bench/baselines/transfer-server.ts`): the minimal durable
   * upload server (`POST /upload`) and the download ceiling (`GET /download/<name>`).
   */
  transferServerUrl(): Promise<string> {
    this.transferServer ??= (async () => {
      const dir = await this.tempDir('transfer-baseline');
      const { child, info } = await startJsonChild<{ url: string }>('bench/baselines/transfer-server.ts', [
        dir,
      ]);
      this.cleanups.push(() => child.stop());
      return info.url;
    })();
    return this.transferServer;
  }

  /** s3rver in its own child process, shared by the s3rver baseline and the postgres+s3 flavour. */
  async s3rverEndpoint(): Promise<string> {
    this.s3rver ??= (async () => {
      const { child, info } = await startJsonChild<{ endpoint: string }>('bench/support/s3rver-child.ts');
      this.cleanups.push(() => child.stop());
      return { child, endpoint: info.endpoint };
    })();
    return (await this.s3rver).endpoint;
  }

  objectStoreBaselines(): Promise<[ObjectStoreBaseline, ObjectStoreBaseline]> {
    this.s3Baseline ??= (async () => {
      const baseline = await createS3rverBaseline(await this.s3rverEndpoint());
      this.cleanups.push(() => baseline.close());
      return baseline;
    })();
    this.diskBaseline ??= (async () => {
      const dir = await this.tempDir('disk');
      return createDiskBaseline(dir);
    })();
    return Promise.all([this.s3Baseline, this.diskBaseline]);
  }

  /** A fresh temporary folder removed at the end of the run. */
  async tempDir(label: string): Promise<string> {
    const dir = await makeTempDir(label);
    this.cleanups.push(() => removeDir(dir));
    return dir;
  }

  /** The shared server of a flavour; null for postgres+s3 when PostgreSQL is unreachable. */
  session(flavourName: Flavour['name']): Promise<Session | null> {
    let session = this.sessions.get(flavourName);
    if (!session) {
      session = this.startSession(flavourName);
      this.sessions.set(flavourName, session);
    }
    return session;
  }

  /** A flavour's environment for a server of its own (memory scenarios), with accounts seeded. */
  async flavour(name: Flavour['name']): Promise<Flavour | null> {
    if (name === 'sqlite+fs') return sqliteFsFlavour();
    if (!(await postgresReachable())) {
      this.log('  PostgreSQL is not reachable at 127.0.0.1:5432: skipping the postgres+s3 rows');
      return null;
    }
    const flavour = await postgresS3Flavour(await this.s3rverEndpoint());
    this.cleanups.push(() => flavour.dispose());
    return flavour;
  }

  /** Starts a server of a flavour with a fresh data folder; accounts are created before it starts. */
  async startServer(
    flavour: Flavour,
    accountNames: readonly string[],
    options: {
      label: string;
      nodeFlags?: readonly string[];
      dataDir?: string;
      /** Added to the server's environment (e.g. `MDSTORE_WORKERS`). */
      env?: Readonly<Record<string, string>>;
    },
  ): Promise<{ server: MdstoreServer; accounts: BenchAccount[]; env: NodeJS.ProcessEnv; dataDir: string }> {
    const dataDir = options.dataDir ?? (await this.tempDir(options.label));
    const env = {
      ...serverEnvironment({ dataDir, flavour, logLevel: this.settings.logLevel }),
      ...options.env,
    };
    const seeding = Date.now();
    const accounts = accountNames.length > 0 ? await seedAccounts(env, accountNames) : [];
    if (accounts.length > 1)
      this.log(`    seeded ${accounts.length} accounts in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
    const server = await startMdstore({
      env,
      compiled: this.settings.compiled,
      ...(options.nodeFlags && { nodeFlags: options.nodeFlags }),
    });
    this.cleanups.push(() => server.stop());
    return { server, accounts, env, dataDir };
  }

  private async startSession(name: Flavour['name']): Promise<Session | null> {
    const flavour = await this.flavour(name);
    if (!flavour) return null;
    const spreadNames = Array.from({ length: this.settings.spreadAccounts }, (_, i) => `bench-spread-${i}`);
    const nodeFlags =
      this.settings.profile && name === 'sqlite+fs'
        ? ['--cpu-prof', `--cpu-prof-dir=${path.join(REPO_ROOT, 'bench/results/profiles')}`]
        : [];
    const started = Date.now();
    const { server, accounts } = await this.startServer(
      flavour,
      ['bench-main', 'bench-lister', ...spreadNames],
      {
        label: name.replace('+', '-'),
        nodeFlags,
      },
    );
    this.log(`  ${name} server up (pid ${server.pid}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const [main, lister, ...spread] = accounts;
    return new Session(flavour, server, main!, lister!, spread, this.settings);
  }

  /** Starts what the scenarios need, all at once (start-up is not measured, so it may overlap). */
  async prepare(needs: ReadonlySet<string>): Promise<void> {
    const starting: Promise<unknown>[] = [];
    if (needs.has('sqlite+fs')) starting.push(this.session('sqlite+fs'));
    if (needs.has('postgres+s3')) starting.push(this.session('postgres+s3'));
    if (needs.has('express')) starting.push(this.expressUrl());
    if (needs.has('object-stores')) starting.push(this.objectStoreBaselines());
    if (needs.has('transfer-server')) starting.push(this.transferServerUrl());
    // A failure here is reported by each scenario that needs the failed piece.
    for (const outcome of await Promise.allSettled(starting)) {
      if (outcome.status === 'rejected') this.log(`  start-up failed: ${String(outcome.reason)}`);
    }
  }

  /** Runs `work` once per key and run (warm-ups). */
  async once(key: string, work: () => Promise<unknown>): Promise<void> {
    if (this.warmed.has(key)) return;
    this.warmed.add(key);
    await work();
  }

  /** Stops every child and removes every temporary folder, newest first. */
  async close(): Promise<void> {
    for (const cleanup of this.cleanups.reverse()) {
      await cleanup().catch((error: unknown) => this.log(`  cleanup failed: ${String(error)}`));
    }
  }
}
