import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import http from 'node:http';
import { setPriority } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { KiB, MiB, markdownBytes, multipartBody } from '../lib/content.js';
import type { Bench } from '../lib/context.js';
import { postStatus } from '../lib/load.js';
import type { Flavour } from '../lib/mdstore.js';
import { type BenchAccount, serverEnvironment } from '../lib/mdstore.js';
import { REPO_ROOT, SOURCE_NODE_ARGS, sampleMemory, spawnNode } from '../lib/processes.js';
import type { Scenario } from './types.js';

type FlavourName = Flavour['name'];

const run = promisify(execFile);
const TARGET_MB = 200;
/** Writes during a backup, against the same writes without one: at least this ratio (docs/performance.md). */
const WRITE_RATIO_TARGET = 0.7;
const WRITE_JOBS = 4;
const COMPILED_CLI = 'apps/server/dist/cli/main.js';
const mb = (bytes: number) => bytes / MiB;

/** Bytes under a folder (the store's files, or a backup's). */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** Runs the mdstore CLI (`npm run mdstore -- …`, or its build) to its end; its time and peak RSS. */
async function cli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  compiled: boolean,
  niceness = 0,
): Promise<{ seconds: number; peakMb: number; output: string }> {
  let output = '';
  const useBuild = compiled && existsSync(path.join(REPO_ROOT, COMPILED_CLI));
  const started = performance.now();
  const child = spawnNode({
    script: useBuild ? COMPILED_CLI : 'apps/server/src/cli/main.ts',
    args,
    env,
    nodeArgs: useBuild ? [] : SOURCE_NODE_ARGS,
    onLine: (line) => {
      output += `${line}\n`;
    },
  });
  if (niceness !== 0) setPriority(child.pid, niceness);
  const sampler = sampleMemory(child.pid, 25);
  const code = await new Promise<number | null>((resolve) => {
    if (child.process.exitCode !== null) resolve(child.process.exitCode);
    else child.process.once('exit', (exit) => resolve(exit));
  });
  const seconds = (performance.now() - started) / 1000;
  const { maxRss, peak } = sampler.stop();
  if (code !== 0) throw new Error(`mdstore ${args.join(' ')} exited ${code}:\n${child.stderrTail()}`);
  return { seconds, peakMb: mb(Math.max(maxRss, peak)), output };
}

/** Uploads new 4 KiB files, `WRITE_JOBS` at once, until `stop` resolves; how many were acknowledged. */
async function writeUntil(
  agent: http.Agent,
  url: string,
  account: BenchAccount,
  prefix: string,
  stop: Promise<unknown>,
): Promise<{ writes: number; seconds: number }> {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const content = markdownBytes(4 * KiB);
  let writes = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITE_JOBS }, async (_, job) => {
      for (let n = 0; !stopped; n++) {
        const { body, contentType } = multipartBody(`${prefix}/${job}-${n}.md`, content);
        const headers = { authorization: `Bearer ${account.api_key}`, 'content-type': contentType };
        const status = await postStatus(agent, url, headers, body);
        if (status !== 201) throw new Error(`upload during the backup bench: ${status}`);
        writes++;
      }
    }),
  );
  return { writes, seconds: (performance.now() - started) / 1000 };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Backups (extensions §16) of a store with a long history, on sqlite+fs and postgres+s3 (when PostgreSQL
 * is reachable; its restore goes to a database of its own on the same s3rver): `backup create` of a running
 * server and `restore` into an empty store, each a CLI process of its own (time and peak RSS, target
 * 200 MB whatever the store holds; baseline: `cp -r` of the store's folder, what an offline copy costs),
 * and the server's write throughput while the backup runs against the same writes just before and after
 * it (target ≥ 0.7×). The store is filled through the records port (bench/support/seed-history.ts): 10 000
 * files with 10 revisions each (`--quick`: 1 000 files), every 20th file's content in the blob store.
 */
const backupScenario: Scenario = {
  name: 'backup',
  needs: [],
  description:
    'backup create / restore of 10 000 files and 100 000 revisions (both pairs): time, peak RSS, writes during a backup',
  async run(bench) {
    const sqlite = await backupOf(bench, 'sqlite+fs');
    await backupOf(bench, 'postgres+s3', sqlite);
  },
};

/** The scenario on one pair; postgres+s3 is skipped when PostgreSQL is unreachable. */
async function backupOf(
  bench: Bench,
  flavourName: FlavourName,
  /** The sqlite+fs times: postgres+s3's baseline (a `cp -r` of its folder would copy nothing of Postgres). */
  sqlite?: { backupSec: number; restoreSec: number },
): Promise<{ backupSec: number; restoreSec: number } | undefined> {
  const files = bench.settings.quick ? 1_000 : 10_000;
  const revisionsPerFile = 10;
  const windowSec = bench.settings.quick ? 2 : 6;
  const flavour = await bench.flavour(flavourName);
  if (!flavour) return undefined;
  bench.log(`    ${flavourName}:`);
  const seeded = await bench.startServer(flavour, ['bench-backup'], { label: 'backup' });
  const [account] = seeded.accounts as [BenchAccount];
  await seeded.server.stop();
  const seeding = await run(
    process.execPath,
    [
      ...SOURCE_NODE_ARGS,
      path.join(REPO_ROOT, 'bench/support/seed-history.ts'),
      account.default_project_id,
      String(files),
      String(revisionsPerFile),
      '20',
    ],
    { cwd: REPO_ROOT, env: seeded.env, maxBuffer: 1024 * 1024 },
  );
  const seed = JSON.parse(seeding.stdout.trim().split('\n').at(-1)!) as {
    revisions: number;
    blobs: number;
    seedSeconds: number;
    indexSeconds: number;
  };
  const storeBytes = await folderBytes(seeded.dataDir);
  bench.log(
    `    seeded ${files} files, ${seed.revisions} revisions (${seed.blobs} blobs), ${mb(storeBytes).toFixed(0)} MB, ` +
      `in ${seed.seedSeconds.toFixed(1)} s + ${seed.indexSeconds.toFixed(1)} s of indexing`,
  );

  // The baseline: the store's folder copied whole, as an offline copy would be.
  const copyTo = await bench.tempDir('backup-copy');
  const copyStarted = performance.now();
  await run('cp', ['-r', seeded.dataDir, path.join(copyTo, 'copy')]);
  const copySec = (performance.now() - copyStarted) / 1000;

  const { server } = await bench.startServer(flavour, [], { label: 'backup', dataDir: seeded.dataDir });
  const agent = new http.Agent({ keepAlive: true, maxSockets: WRITE_JOBS });
  const url = `${server.url}/api/projects/${account.default_project_id}/files`;
  const backups = await bench.tempDir('backup-target');
  const to = path.join(backups, 'backup');
  try {
    const before = await writeUntil(agent, url, account, 'before', sleep(windowSec * 1000));
    let backup: Awaited<ReturnType<typeof cli>> | undefined;
    const backingUp = cli(['backup', 'create', '--to', to], seeded.env, bench.settings.compiled).then(
      (done) => {
        backup = done;
      },
    );
    const during = await writeUntil(agent, url, account, 'during', backingUp);
    await backingUp;
    const after = await writeUntil(agent, url, account, 'after', sleep(windowSec * 1000));
    const backupBytes = await folderBytes(to);
    // The same backup at the lowest CPU priority (`nice -n 19 mdstore backup create`): what is left of
    // the slowdown once the backup takes only the CPU the server leaves.
    let niced: Awaited<ReturnType<typeof cli>> | undefined;
    const nicedRun = cli(
      ['backup', 'create', '--to', `${to}-niced`],
      seeded.env,
      bench.settings.compiled,
      19,
    ).then((done) => {
      niced = done;
    });
    const duringNiced = await writeUntil(agent, url, account, 'during-niced', nicedRun);
    await nicedRun;
    const afterNiced = await writeUntil(agent, url, account, 'after-niced', sleep(windowSec * 1000));
    const without = (before.writes + after.writes) / (before.seconds + after.seconds);
    const withBackup = during.writes / during.seconds;
    bench.log(
      `    backup create: ${backup!.seconds.toFixed(1)} s, ${mb(backupBytes).toFixed(0)} MB, peak RSS ` +
        `${backup!.peakMb.toFixed(0)} MB; writes ${withBackup.toFixed(0)}/s during it, ${without.toFixed(0)}/s ` +
        `without (${during.writes} in ${during.seconds.toFixed(1)} s; ${before.writes + after.writes} in ` +
        `${(before.seconds + after.seconds).toFixed(1)} s); cp -r of the store ${copySec.toFixed(1)} s`,
    );
    const withoutNiced = (after.writes + afterNiced.writes) / (after.seconds + afterNiced.seconds);
    const withNiced = duringNiced.writes / duringNiced.seconds;
    bench.log(
      `    backup create under nice -n 19: ${niced!.seconds.toFixed(1)} s, peak RSS ${niced!.peakMb.toFixed(0)} MB; ` +
        `writes ${withNiced.toFixed(0)}/s during it, ${withoutNiced.toFixed(0)}/s without`,
    );
    await server.stop();

    // Into an empty store of its own (a fresh data folder), as an operator moves a store.
    // Postgres: a database of its own, on the same s3rver (the restored projects' buckets are those of
    // the source, so their objects are written again over identical ones).
    const restoreEnv = serverEnvironment({
      dataDir: await bench.tempDir('backup-restore'),
      flavour: flavourName === 'sqlite+fs' ? flavour : ((await bench.flavour(flavourName)) ?? flavour),
      logLevel: bench.settings.logLevel,
    });
    const restored = await cli(['restore', to], restoreEnv, bench.settings.compiled);
    bench.log(`    restore: ${restored.seconds.toFixed(1)} s, peak RSS ${restored.peakMb.toFixed(0)} MB`);

    const tag = `[${flavourName}${bench.settings.compiled ? ', compiled' : ''}]`;
    const what = `${files} files, ${seed.revisions} revisions`;
    bench.results.lower(
      `backup create: ${what} ${tag}`,
      'seconds',
      backup!.seconds,
      sqlite?.backupSec ?? copySec,
      sqlite ? 'the same on sqlite+fs' : 'cp -r of the store folder (offline)',
    );
    bench.results.lower(
      `backup create: ${what} ${tag}`,
      'peak RSS MB',
      backup!.peakMb,
      TARGET_MB,
      `target ${TARGET_MB} MB`,
    );
    bench.results.lower(
      `restore: ${what} ${tag}`,
      'seconds',
      restored.seconds,
      sqlite?.restoreSec ?? copySec,
      sqlite ? 'the same on sqlite+fs' : 'cp -r of the store folder (offline)',
    );
    bench.results.lower(
      `restore: ${what} ${tag}`,
      'peak RSS MB',
      restored.peakMb,
      TARGET_MB,
      `target ${TARGET_MB} MB`,
    );
    bench.results.higher(
      `writes during backup create: 4 KiB uploads, ${WRITE_JOBS} at once ${tag}`,
      'writes per second',
      withBackup,
      without,
      `the same writes without a backup (target ratio ≥ ${WRITE_RATIO_TARGET})`,
    );
    bench.results.higher(
      `writes during backup create under nice -n 19: 4 KiB uploads, ${WRITE_JOBS} at once ${tag}`,
      'writes per second',
      withNiced,
      withoutNiced,
      'the same writes without a backup',
    );
    return { backupSec: backup!.seconds, restoreSec: restored.seconds };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

export const backupScenarios: readonly Scenario[] = [backupScenario];
