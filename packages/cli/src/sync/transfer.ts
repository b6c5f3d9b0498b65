import { mkdir } from 'node:fs/promises';
import type { MdStoreClient } from '@mdstore/client';
import { describeError } from '../errors.js';
import { pullFromExport, pushInChangesets, type StepOutcome } from './batch.js';
import type { Progress } from './engine.js';
import { deleteLocal, LocalChangedError, readLocal, scanLocal, writeLocal } from './local.js';
import { runPool } from './pool.js';
import { isFileFailure, listRemote } from './remote.js';

export type TransferAction = 'upload' | 'download' | 'delete-remote' | 'delete-local';

export interface TransferReport {
  readonly project_id: string;
  readonly dry_run: boolean;
  readonly items: Array<{ readonly name: string; readonly action: TransferAction }>;
  readonly errors: Array<{ readonly name: string; readonly error: string; readonly status?: number }>;
  readonly skipped: string[];
}

export interface TransferOptions {
  readonly client: MdStoreClient;
  readonly root: string;
  readonly projectId: string;
  /** `push`: the folder wins; `pull`: the project wins. */
  readonly direction: 'push' | 'pull';
  /** Also delete what the winning side does not have. */
  readonly delete?: boolean;
  readonly dryRun?: boolean;
  readonly concurrency?: number;
  /** Files per changeset of a push (1 to 1 000, the default). */
  readonly batchFiles?: number;
  readonly progress?: Progress;
}

interface Step {
  readonly name: string;
  readonly action: TransferAction;
  /** The remote ETag the step expects (a remote write is conditioned on it), or the local SHA-256. */
  readonly etag?: string;
  readonly sha256?: string;
}

/**
 * One-way copy: `push` makes the project hold the folder's files, `pull` the folder the project's, moving
 * only files whose content differs (by SHA-256), deleting only with `delete`. No sync state is read or
 * written; a later `sync` sees the copied files as equal on both sides and just records them. Remote
 * writes carry `If-Match` with the ETag listed, so a file changed on the server meanwhile is reported,
 * not overwritten; a local file changed meanwhile is likewise left alone.
 */
export async function transferFolder(options: TransferOptions): Promise<TransferReport> {
  const { client, root, projectId } = options;
  const [remote, local] = await Promise.all([listRemote(client, projectId), scanLocal(root)]);
  const steps: Step[] = [];
  if (options.direction === 'push') {
    for (const [name, file] of local.files) {
      const there = remote.files.get(name);
      if (there === undefined) steps.push({ name, action: 'upload' });
      else if (there.sha256 !== file.sha256) steps.push({ name, action: 'upload', etag: there.etag });
    }
    if (options.delete) {
      for (const [name, there] of remote.files) {
        if (!local.files.has(name)) steps.push({ name, action: 'delete-remote', etag: there.etag });
      }
    }
  } else {
    for (const [name, there] of remote.files) {
      const here = local.files.get(name);
      if (here === undefined) steps.push({ name, action: 'download' });
      else if (here.sha256 !== there.sha256) steps.push({ name, action: 'download', sha256: here.sha256 });
    }
    if (options.delete) {
      for (const [name, here] of local.files) {
        if (!remote.files.has(name)) steps.push({ name, action: 'delete-local', sha256: here.sha256 });
      }
    }
  }
  steps.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const report: TransferReport = {
    project_id: projectId,
    dry_run: options.dryRun ?? false,
    items: [],
    errors: [],
    skipped: [...new Set([...local.skipped, ...remote.skipped])].sort(),
  };
  if (options.dryRun) {
    report.items.push(...steps.map(({ name, action }) => ({ name, action })));
    return report;
  }
  if (options.direction === 'pull') await mkdir(root, { recursive: true });
  options.progress?.start(steps.length);
  const done = ({ step, error }: StepOutcome) => {
    options.progress?.tick(step.name);
    if (error === undefined) {
      report.items.push({ name: step.name, action: step.action });
      return;
    }
    if (!isFileFailure(error)) throw error;
    const status = (error as { status?: number }).status;
    report.errors.push({ name: step.name, error: describeError(error), ...(status && { status }) });
  };
  try {
    if (options.direction === 'push') {
      // Batched: changesets of many writes each (see batch.ts).
      await pushInChangesets(client, root, projectId, steps, {
        single: (step) => carryOut(options, step),
        done,
        ...(options.batchFiles !== undefined && { maxOperations: options.batchFiles }),
      });
    } else {
      const downloads = steps.filter((step) => step.action === 'download');
      const local = steps.filter((step) => step.action !== 'download');
      // Batched: one export for the downloads, when there are several.
      if (downloads.length > 1)
        local.push(...(await pullFromExport(client, root, projectId, downloads, done)));
      else local.push(...downloads);
      await runPool(local, options.concurrency ?? 4, async (step) => {
        try {
          await carryOut(options, step);
          done({ step });
        } catch (error) {
          done({ step, error });
        }
      });
    }
  } finally {
    options.progress?.stop();
  }
  report.items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return report;
}

async function carryOut(options: TransferOptions, step: Step): Promise<void> {
  const { client, root, projectId } = options;
  switch (step.action) {
    case 'upload': {
      const now = await readLocal(root, step.name);
      if (now === undefined) throw new LocalChangedError(step.name);
      if (step.etag === undefined)
        await client.files.upload(projectId, step.name, now.bytes, { sha256: now.sha256 });
      else
        await client.files.updateContent(projectId, step.name, now.bytes, {
          ifMatch: step.etag,
          sha256: now.sha256,
        });
      return;
    }
    case 'delete-remote':
      await client.files.delete(projectId, step.name, { ifMatch: step.etag! });
      return;
    case 'download': {
      const bytes = await (await client.files.download(projectId, step.name)).bytes();
      await writeLocal(
        root,
        step.name,
        bytes,
        step.sha256 === undefined ? 'absent' : { sha256: step.sha256 },
      );
      return;
    }
    case 'delete-local':
      await deleteLocal(root, step.name, { sha256: step.sha256! });
      return;
  }
}
