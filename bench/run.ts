// The benchmark suite: `npm run bench [-- --quick] [-- --only <scenario>[,<scenario>]] [-- --profile] [-- --source]`.
// See docs/performance.md. Everything runs on loopback; every load loop is bounded in time or count.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Bench, settingsFor } from './lib/context.js';
import { closeHttpAgent } from './lib/load.js';
import { REPO_ROOT } from './lib/processes.js';
import { markdownTable, Results } from './lib/results.js';
import { adversaryScenario } from './scenarios/adversary.js';
import { attachmentScenarios } from './scenarios/attachments.js';
import { auditScenarios } from './scenarios/audit.js';
import { backupScenarios } from './scenarios/backup.js';
import { changeScenarios } from './scenarios/changes.js';
import { changesetScenarios } from './scenarios/changeset.js';
import { exportScenarios } from './scenarios/export.js';
import { findingScenarios } from './scenarios/finding.js';
import { growthScenarios } from './scenarios/growth.js';
import { historyScenarios } from './scenarios/history.js';
import { importScenarios } from './scenarios/import.js';
import { inlineScenario } from './scenarios/inline.js';
import { linkScenarios } from './scenarios/links.js';
import { memoryScenarios } from './scenarios/memory.js';
import { mergeScenario } from './scenarios/merge.js';
import { metadataScenarios } from './scenarios/metadata.js';
import { publishScenarios } from './scenarios/publish.js';
import { searchScenarios } from './scenarios/search.js';
import { searchQualityScenarios } from './scenarios/search-quality.js';
import { stallScenario } from './scenarios/stall.js';
import { transferScenarios } from './scenarios/transfer.js';
import type { Scenario } from './scenarios/types.js';
import { workersScenarios } from './scenarios/workers.js';

const SCENARIOS: readonly Scenario[] = [
  ...metadataScenarios,
  ...transferScenarios,
  ...growthScenarios,
  ...historyScenarios,
  ...memoryScenarios,
  inlineScenario,
  ...searchScenarios,
  ...searchQualityScenarios,
  ...findingScenarios,
  ...exportScenarios,
  ...importScenarios,
  stallScenario,
  ...auditScenarios,
  ...changesetScenarios,
  ...linkScenarios,
  ...changeScenarios,
  adversaryScenario,
  ...workersScenarios,
  mergeScenario,
  ...publishScenarios,
  ...attachmentScenarios,
  ...backupScenarios,
];
const RESULTS_FILE = path.join(REPO_ROOT, 'bench/results/latest.json');

const USAGE = `Usage: npm run bench -- [--quick] [--only <scenario>[,<scenario>...]] [--profile] [--source]

  --quick     short durations and smaller counts: the whole run takes under a minute
  --only      run only the named scenarios (comma-separated)
  --profile   run the sqlite+fs server with --cpu-prof (profiles in bench/results/profiles)
  --source    run the server under test from its sources through tsx; by default the bench builds it
              (npm run build) and runs the build, as npm start does

Scenarios:
${SCENARIOS.map((scenario) => `  ${scenario.name.padEnd(16)} ${scenario.description}`).join('\n')}
`;

function selectScenarios(only: string | undefined): Scenario[] {
  if (only === undefined) return [...SCENARIOS];
  const names = only.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
  if (unknown.length > 0) throw new Error(`unknown scenario: ${unknown.join(', ')}\n\n${USAGE}`);
  return SCENARIOS.filter((scenario) => names.includes(scenario.name));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      profile: { type: 'boolean', default: false },
      source: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const scenarios = selectScenarios(values.only);
  const settings = settingsFor(values.quick, values.profile, !values.source);
  // What `npm start` runs is the build: bring it up to date first (quick when it already is).
  if (settings.compiled) buildServer();
  const results = new Results();
  const bench = new Bench(settings, results);
  // A hard bound on the whole run, whatever happens inside a scenario.
  const watchdog = setTimeout(
    () => {
      process.stderr.write('bench: time limit reached, stopping\n');
      void bench.close().finally(() => process.exit(1));
    },
    (settings.quick ? 3 : 20) * 60_000,
  );
  watchdog.unref();
  const stopOnSignal = () => void bench.close().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  const started = Date.now();
  // The machine may be shared: its load tells how far the numbers can be trusted.
  const load = () =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');
  process.stdout.write(
    `mdstore bench (${settings.quick ? 'quick' : 'default'} mode), load average ${load()}\n`,
  );
  try {
    await bench.prepare(new Set(scenarios.flatMap((scenario) => scenario.needs)));
    process.stdout.write(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    for (const scenario of scenarios) {
      const began = Date.now();
      process.stdout.write(`\n▶ ${scenario.name}: ${scenario.description}\n`);
      try {
        await scenario.run(bench);
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        results.failures.push({ scenario: scenario.name, error: message });
        process.stderr.write(`  ✗ ${scenario.name} failed: ${message}\n`);
      }
      process.stdout.write(`  (${((Date.now() - began) / 1000).toFixed(1)} s)\n`);
    }
  } finally {
    await bench.close();
    closeHttpAgent();
    clearTimeout(watchdog);
  }
  await results.write(RESULTS_FILE);
  process.stdout.write(`\n${markdownTable(results.rows)}\n\n`);
  process.stdout.write(
    `${results.rows.length} rows written to ${path.relative(process.cwd(), RESULTS_FILE)} ` +
      `in ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${load()}\n`,
  );
  if (results.failures.length > 0) {
    process.stderr.write(
      `${results.failures.length} scenario(s) failed: ${results.failures.map((f) => f.scenario).join(', ')}\n`,
    );
    return 1;
  }
  return 0;
}

function buildServer(): void {
  const started = Date.now();
  execFileSync(process.execPath, [TSC, '-b', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'inherit' });
  process.stdout.write(`build up to date in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
const TSC = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
