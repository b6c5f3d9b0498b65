import path from 'node:path';
import { type CommandContext, EXIT, UsageError } from '../context.js';
import { describeError } from '../errors.js';
import { terminalProgress } from '../progress.js';
import { type SyncOptions, type SyncReport, syncFolder } from '../sync/engine.js';
import { readState } from '../sync/state.js';
import { type TransferReport, transferFolder } from '../sync/transfer.js';
import { watchFolder } from '../sync/watch.js';
import type { Command, Options, Values } from './types.js';

const FOLDER_OPTIONS: Options = {
  'dry-run': { type: 'boolean', short: 'n' },
  jobs: { type: 'string', short: 'j' },
  batch: { type: 'string' },
};

/** `--batch N`: files per changeset of a push's or a sync's writes (1 to 1 000, the default). */
function batchOf(values: Values): number | undefined {
  const text = values.batch as string | undefined;
  if (text === undefined) return undefined;
  const batch = Number(text);
  if (!Number.isInteger(batch) || batch < 1 || batch > 1000)
    throw new UsageError('--batch must be 1 to 1000');
  return batch;
}

function jobsOf(values: Values): number {
  const text = (values.jobs as string | undefined) ?? '4';
  const jobs = Number(text);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 32) throw new UsageError('--jobs must be 1 to 32');
  return jobs;
}

/** What was done, line by line (and in the summary). */
const DONE: Record<string, string> = {
  upload: 'uploaded',
  download: 'downloaded',
  'delete-remote': 'deleted on the server',
  'delete-local': 'deleted here',
  record: 'in sync',
  forget: 'gone on both sides',
  merge: 'merged (both sides changed)',
  conflict: 'CONFLICT',
  unresolved: 'CONFLICT still unresolved',
};

/** What a dry run would do: each line reads as a sentence ("would upload: a.md"). */
const PLANNED: Record<string, string> = {
  upload: 'would upload',
  download: 'would download',
  'delete-remote': 'would delete on the server',
  'delete-local': 'would delete here',
  record: 'would record as in sync',
  forget: 'would forget (gone on both sides)',
  conflict: 'would CONFLICT',
  unresolved: 'CONFLICT still unresolved',
};

const verbOf = (report: SyncReport | TransferReport, action: string) =>
  (report.dry_run ? PLANNED : DONE)[action] ?? action;

function printItems(ctx: CommandContext, report: SyncReport | TransferReport): void {
  for (const item of report.items) {
    const copy = 'copy' in item && item.copy ? ` (the server's version is in ${item.copy})` : '';
    ctx.out(`${verbOf(report, item.action)}: ${item.name}${copy}`);
  }
  for (const error of report.errors) ctx.warn(`${error.name}: ${error.error}`);
}

function summary(report: SyncReport | TransferReport): string {
  const counts = new Map<string, number>();
  for (const item of report.items) counts.set(item.action, (counts.get(item.action) ?? 0) + 1);
  const parts = [...counts].map(([action, n]) => `${n} ${verbOf(report, action)}`);
  if (report.errors.length > 0) parts.push(`${report.errors.length} failed`);
  return parts.length === 0 ? 'nothing to do' : parts.join(', ');
}

/** A conflict found, still unresolved, or (in a dry run) predicted: exit 3. */
const hasConflicts = (report: SyncReport | TransferReport) =>
  ('conflicts' in report && report.conflicts.length > 0) ||
  report.items.some((item) => item.action === 'conflict' || item.action === 'unresolved');

function exitCode(report: SyncReport | TransferReport): number {
  if (report.errors.length > 0) return EXIT.failure;
  if (hasConflicts(report)) return EXIT.conflicts;
  return EXIT.ok;
}

function transferCommand(direction: 'push' | 'pull'): Command {
  return {
    name: direction,
    usage: `mdstore ${direction} DIR [--delete] [--dry-run] [--jobs N]${direction === 'push' ? ' [--batch N]' : ''} [--project P] [--json]`,
    summary:
      direction === 'push'
        ? 'uploads what differs from DIR to the project (--delete: also deletes what DIR lacks)'
        : 'downloads what differs from the project into DIR (--delete: also deletes what the project lacks)',
    options: { ...FOLDER_OPTIONS, delete: { type: 'boolean' } },
    positionals: [1, 1],
    async run(ctx, [dir], values) {
      const client = await ctx.client();
      const projectId = await ctx.projectId();
      const progress = ctx.json
        ? undefined
        : terminalProgress(ctx.io.stderr as NodeJS.WriteStream, direction);
      const report = await transferFolder({
        client,
        root: path.resolve(dir!),
        projectId,
        direction,
        delete: values.delete === true,
        dryRun: values['dry-run'] === true,
        concurrency: jobsOf(values),
        ...(batchOf(values) !== undefined && { batchFiles: batchOf(values) }),
        ...(progress && { progress }),
      });
      if (ctx.json) ctx.printJson(report);
      else {
        printItems(ctx, report);
        ctx.out(`${direction}${report.dry_run ? ' (dry run)' : ''}: ${summary(report)}`);
      }
      return exitCode(report);
    },
  };
}

export const push = transferCommand('push');
export const pull = transferCommand('pull');

export const sync: Command = {
  name: 'sync',
  usage: 'mdstore sync DIR [--watch] [--dry-run] [--no-merge] [--jobs N] [--batch N] [--project P] [--json]',
  summary:
    'two-way sync of DIR with the project; edits on both sides that do not overlap are merged (--no-merge: never), overlapping ones keep both versions (exit code 3); --watch: keep syncing as either side changes',
  options: { ...FOLDER_OPTIONS, watch: { type: 'boolean', short: 'w' }, 'no-merge': { type: 'boolean' } },
  positionals: [1, 1],
  async run(ctx, [dir], values) {
    const root = path.resolve(dir!);
    const client = await ctx.client();
    const connection = await ctx.connect();
    // A synced folder knows its project; --project (or the default project) only picks it the first time.
    const state = await readState(root);
    const projectId = state && connection.project === undefined ? state.project_id : await ctx.projectId();
    if (values.watch === true) {
      if (values['dry-run'] === true) throw new UsageError('--watch and --dry-run do not go together');
      return watchCommand(ctx, {
        client,
        server: connection.url,
        root,
        projectId,
        concurrency: jobsOf(values),
        merge: values['no-merge'] !== true,
      });
    }
    const progress = ctx.json ? undefined : terminalProgress(ctx.io.stderr as NodeJS.WriteStream, 'sync');
    const report = await syncFolder({
      client,
      server: connection.url,
      root,
      projectId,
      dryRun: values['dry-run'] === true,
      concurrency: jobsOf(values),
      merge: values['no-merge'] !== true,
      ...(batchOf(values) !== undefined && { batchFiles: batchOf(values) }),
      ...(progress && { progress }),
    });
    if (ctx.json) ctx.printJson(report);
    else {
      printItems(ctx, report);
      ctx.out(`sync${report.dry_run ? ' (dry run)' : ''}: ${summary(report)}`);
      const predicted = report.dry_run ? report.items.filter((i) => i.action === 'conflict').length : 0;
      if (predicted > 0) {
        ctx.out(`${predicted} conflict(s) ahead: a sync would keep both versions of each (exit code 3)`);
      }
      if (report.conflicts.length > 0) {
        ctx.out(
          `${report.conflicts.length} conflict(s): merge each copy into its file, delete the copy, and sync again`,
        );
      }
    }
    return exitCode(report);
  },
};

/**
 * `sync --watch`: rounds of sync until SIGINT/SIGTERM (or `io.signal`). Each round that did something is
 * printed (with --json: one report per line); the exit code is the last round's, as `sync` would give.
 */
async function watchCommand(
  ctx: CommandContext,
  options: Omit<SyncOptions, 'dryRun' | 'progress'>,
): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  if (ctx.io.signal) ctx.io.signal.addEventListener('abort', onSignal, { once: true });
  else {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  try {
    let first = true;
    const report = await watchFolder({
      ...options,
      signal: stop.signal,
      onSync(round) {
        const changed = round.items.some((item) => item.action !== 'unresolved') || round.errors.length > 0;
        if (ctx.json) ctx.out(JSON.stringify(round));
        else if (first || changed) {
          printItems(ctx, round);
          ctx.out(`sync: ${summary(round)}${first ? '; watching for changes (Ctrl-C stops)' : ''}`);
        }
        first = false;
      },
      onError(error) {
        ctx.warn(`sync --watch: ${describeError(error)} (trying again)`);
      },
    });
    return report ? exitCode(report) : EXIT.ok;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    ctx.io.signal?.removeEventListener('abort', onSignal);
  }
}
