import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ChangesetOperation, MdStoreClient } from '@mdstore/client';
import { describeError } from '../errors.js';
import {
  type AppliedFile,
  applyChangesets,
  CHANGESET_MAX_CONTENT_BYTES,
  CHANGESET_MAX_OPERATIONS,
  lacksExtension,
  readExported,
} from './batch.js';
import {
  deleteLocal,
  LocalChangedError,
  localExists,
  readLocal,
  scanLocal,
  sha256Hex,
  writeLocal,
  writeNewLocal,
} from './local.js';
import { lockFolder } from './lock.js';
import { mergeBothSides } from './merge.js';
import { conflictCopyName, isConflictCopyOf, localPath } from './names.js';
import { type Decision, decide, type LocalSide, type RemoteSide } from './plan.js';
import { runPool } from './pool.js';
import { headRemote, isFileFailure, isRace, listRemote } from './remote.js';
import {
  type BaseEntry,
  baseOf,
  readState,
  type StateEntry,
  StateFileError,
  StateSaver,
  type SyncState,
} from './state.js';

/** `merge`: both sides changed without overlap; both now hold the three-way merge (issue 38). */
export type SyncAction = Exclude<Decision['kind'], 'none'> | 'unresolved' | 'merge';

export interface SyncItem {
  readonly name: string;
  readonly action: SyncAction;
  /** For a conflict: the conflict copy that holds the remote version. */
  readonly copy?: string;
}

export interface SyncReport {
  readonly project_id: string;
  readonly dry_run: boolean;
  /** What was done (or, in a dry run, would be done), file by file. */
  readonly items: SyncItem[];
  /** Conflicts waiting for the user: this sync's and earlier ones still unresolved. */
  readonly conflicts: Array<{ readonly name: string; readonly copy: string }>;
  readonly errors: Array<{ readonly name: string; readonly error: string; readonly status?: number }>;
  /** Files passed over on either side (hidden, conflict copies, names that cannot be synced). */
  readonly skipped: string[];
}

export interface Progress {
  start(total: number): void;
  tick(name: string): void;
  stop(): void;
}

export interface SyncOptions {
  readonly client: MdStoreClient;
  /** The server's URL, kept in the state for the user's information. */
  readonly server: string;
  readonly root: string;
  /** The project to sync with; required on a folder's first sync, else it must match the state's. */
  readonly projectId?: string;
  readonly dryRun?: boolean;
  /** Files transferred at once. Default 4. */
  readonly concurrency?: number;
  /** Files per changeset of uploads and remote deletes (1 to 1 000, the default). */
  readonly batchFiles?: number;
  readonly progress?: Progress;
  readonly now?: () => Date;
  /**
   * Two-sided edits that do not overlap are merged (default true; `--no-merge`: false, every two-sided
   * edit keeps a conflict copy as before). See `merge.ts`.
   */
  readonly merge?: boolean;
}

interface Task {
  readonly name: string;
  /** The base the decision was made from (for a resolved conflict: the conflict's remote version). */
  readonly base: BaseEntry | undefined;
  local: LocalSide | undefined;
  remote: RemoteSide | undefined;
  decision: Decision;
}

/** Attempts per file when the other side keeps changing under the sync. */
const ROUNDS = 3;

/**
 * Two-way sync of a folder with a project (see `plan.ts` for the decision table). Transfers only what
 * changed, deletes only what one side deleted since the last sync, keeps both versions of a conflict,
 * writes the state after each file, and conditions every remote write on the ETag it planned from.
 */
export async function syncFolder(options: SyncOptions): Promise<SyncReport> {
  const { root, client } = options;
  const dryRun = options.dryRun ?? false;
  if (!dryRun) await mkdir(root, { recursive: true });
  const release = dryRun ? async () => {} : await lockFolder(root);
  try {
    const previous = await readState(root);
    if (previous && options.projectId !== undefined && previous.project_id !== options.projectId) {
      throw new StateFileError(
        `${root} is synced with project ${previous.project_id}, not ${options.projectId} (see its .mdstore-sync.json)`,
      );
    }
    const projectId = previous?.project_id ?? options.projectId;
    if (projectId === undefined) throw new TypeError('a first sync needs the project');
    const files: Record<string, StateEntry> = { ...previous?.files };
    const state = (): SyncState => ({
      format: 'mdstore-sync/1',
      server: options.server,
      project_id: projectId,
      files,
    });
    const saver = new StateSaver(root, state);

    const [remote, local] = await Promise.all([listRemote(client, projectId), scanLocal(root)]);
    const report: SyncReport = {
      project_id: projectId,
      dry_run: dryRun,
      items: [],
      conflicts: [],
      errors: [],
      skipped: [...new Set([...local.skipped, ...remote.skipped])].sort(),
    };
    const names = [...new Set([...Object.keys(files), ...local.files.keys(), ...remote.files.keys()])].sort();
    const tasks: Task[] = [];
    for (const name of names) {
      const entry = files[name];
      if (entry?.conflict && (await localExists(root, entry.conflict.copy))) {
        report.items.push({ name, action: 'unresolved', copy: entry.conflict.copy });
        report.conflicts.push({ name, copy: entry.conflict.copy });
        continue;
      }
      // A conflict whose copy the user removed is resolved: the local file, as it is now, is the answer
      // to the remote version the copy held.
      const base = entry?.conflict
        ? { sha256: entry.conflict.sha256, etag: entry.conflict.etag }
        : baseOf(entry);
      const task: Task = {
        name,
        base,
        local: local.files.get(name),
        remote: remote.files.get(name),
        decision: { kind: 'none' },
      };
      task.decision = decide(base, task.local, task.remote);
      if (task.decision.kind !== 'none') tasks.push(task);
      else if (entry?.conflict) tasks.push({ ...task, decision: { kind: 'record' } });
    }
    if (!dryRun && previous === undefined) await saver.save();
    if (dryRun) {
      for (const task of tasks)
        report.items.push({ name: task.name, action: task.decision.kind as SyncAction });
      return report;
    }

    const run = new SyncRun(options, projectId, files, saver, report);
    options.progress?.start(tasks.length);
    try {
      // Batched first (issue 27): the downloads' contents from one export, the uploads and remote deletes
      // as changesets; what is left is settled file by file (a download the export holds needs no
      // request of its own).
      const left = await run.batched(tasks);
      await saver.save();
      await runPool(left, options.concurrency ?? 4, (task) => run.settle(task));
    } finally {
      options.progress?.stop();
    }
    await saver.save();
    report.items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    report.conflicts.sort((a, b) => (a.name < b.name ? -1 : 1));
    return report;
  } finally {
    await release();
  }
}

class SyncRun {
  constructor(
    private readonly options: SyncOptions,
    private readonly projectId: string,
    private readonly files: Record<string, StateEntry>,
    private readonly saver: StateSaver,
    private readonly report: SyncReport,
  ) {}

  /** Contents read from one export for the downloads, by name (bounded: see `PREFETCH_MAX_BYTES`). */
  private readonly prefetched = new Map<string, Buffer>();
  /** False once the server answered that it has no changesets: writes then go file by file. */
  private changesets = true;

  /**
   * The batched part of a sync (issue 27): the downloads' contents read from one export, for `execute` to
   * write without a request each; the uploads and remote deletes sent as changesets. Returns the tasks
   * left to settle file by file.
   */
  async batched(tasks: readonly Task[]): Promise<Task[]> {
    await this.prefetch(tasks);
    const writes = tasks.filter(
      (task) => task.decision.kind === 'upload' || task.decision.kind === 'delete-remote',
    );
    if (writes.length < 2) return [...tasks];
    const sent = new Set(writes);
    const left = await this.sendInChangesets(writes);
    return [...tasks.filter((task) => !sent.has(task)), ...left];
  }

  /**
   * Uploads and remote deletes as changesets of at most `batchFiles` files and
   * `CHANGESET_MAX_CONTENT_BYTES`, each operation conditioned as its single request would be (`if_match`:
   * the ETag planned from, or null for a new file). Local contents are read batch by batch (one batch's
   * held at once). The state records a changeset's files only after the server acknowledged it, and is
   * saved before the next changeset goes: a sync killed midway leaves at most one changeset landed and
   * unrecorded, which the next sync finds equal on both sides and records without sending it again. A
   * file the server refuses (412, 409, 404: the other side moved) is looked at again and left to the
   * per-file path, as is a local file changed since the scan or not UTF-8 text.
   */
  private async sendInChangesets(writes: readonly Task[]): Promise<Task[]> {
    const { root, client } = this.options;
    const maxOperations = this.options.batchFiles ?? CHANGESET_MAX_OPERATIONS;
    const left: Task[] = [];
    let batch: Array<{ key: Task; op: ChangesetOperation }> = [];
    let bytes = 0;
    const flush = async () => {
      const sending = batch;
      batch = [];
      bytes = 0;
      if (sending.length === 0) return;
      const refused: Array<{ task: Task; error: unknown }> = [];
      const settled = new Set<Task>();
      try {
        await applyChangesets(client, this.projectId, sending, {
          message: 'mdstore sync',
          maxOperations,
          applied: (task, file) => {
            settled.add(task);
            this.applied(task, file);
          },
          refused: (task, error) => {
            settled.add(task);
            refused.push({ task, error });
          },
          acknowledged: () => this.saver.save(),
        });
      } catch (error) {
        if (!lacksExtension(error)) throw error;
        // A server without changesets: this batch and every later write go file by file.
        this.changesets = false;
        left.push(...sending.map(({ key }) => key).filter((task) => !settled.has(task)));
      }
      for (const { task, error } of refused) {
        if (isRace(error)) {
          await this.refresh(task);
          left.push(task);
          continue;
        }
        if (!isFileFailure(error)) throw error;
        const status = (error as { status?: number }).status;
        this.report.errors.push({ name: task.name, error: describeError(error), ...(status && { status }) });
        this.options.progress?.tick(task.name);
      }
    };
    for (const task of writes) {
      if (!this.changesets) {
        left.push(task);
        continue;
      }
      const { decision } = task;
      let op: ChangesetOperation;
      let size = 0;
      if (decision.kind === 'delete-remote') {
        op = { op: 'delete', filename: task.name, if_match: decision.ifMatch };
      } else if (decision.kind === 'upload') {
        const now = await readLocal(root, task.name);
        const content = now && now.sha256 === task.local?.sha256 ? utf8(now.bytes) : undefined;
        if (content === undefined) {
          left.push(task);
          continue;
        }
        op = { op: 'put', filename: task.name, content, if_match: decision.ifMatch ?? null };
        size = now!.bytes.length;
      } else {
        left.push(task);
        continue;
      }
      if (batch.length >= maxOperations || (batch.length > 0 && bytes + size > CHANGESET_MAX_CONTENT_BYTES)) {
        await flush();
      }
      batch.push({ key: task, op });
      bytes += size;
    }
    await flush();
    return left;
  }

  /** A changeset the server took: the file as it answered it is the new base. */
  private applied(task: Task, file: AppliedFile): void {
    if ('deleted' in file && file.deleted === true) this.remember(task.name, undefined);
    else {
      const view = file as { sha256: string; etag: string; revision: number };
      this.remember(task.name, entryOf(view.sha256, view.etag, view.revision));
    }
    this.report.items.push({ name: task.name, action: task.decision.kind as SyncAction });
    this.options.progress?.tick(task.name);
  }

  /** The downloads' contents read from one export (see `PREFETCH_MAX_BYTES`). */
  private async prefetch(tasks: readonly Task[]): Promise<void> {
    const { client } = this.options;
    const downloads = tasks.filter((task) => task.decision.kind === 'download');
    if (downloads.length > 1) {
      let kept = 0;
      try {
        await readExported(
          client,
          this.projectId,
          downloads.map((task) => task.name),
          (name, bytes) => {
            kept += bytes.length;
            if (kept <= PREFETCH_MAX_BYTES) this.prefetched.set(name, bytes);
          },
        );
      } catch (error) {
        // A server without export: each download reads its file, as before the extension.
        if (!lacksExtension(error)) throw error;
      }
    }
  }

  /** Carries out one file's decision; when a side moved meanwhile, looks again and decides anew. */
  async settle(task: Task): Promise<void> {
    try {
      for (let round = 1; ; round++) {
        try {
          const item = await this.execute(task);
          if (item) this.report.items.push(item);
          await this.saver.save();
          break;
        } catch (error) {
          if (!isRace(error) || round === ROUNDS) throw error;
          await this.refresh(task);
          if (task.decision.kind === 'none') {
            await this.saver.save();
            break;
          }
        }
      }
    } catch (error) {
      if (!isFileFailure(error)) throw error;
      const status = (error as { status?: number }).status;
      this.report.errors.push({ name: task.name, error: describeError(error), ...(status && { status }) });
    } finally {
      this.options.progress?.tick(task.name);
    }
  }

  private async refresh(task: Task): Promise<void> {
    const { root, client } = this.options;
    const [local, remote] = await Promise.all([
      readLocal(root, task.name),
      headRemote(client, this.projectId, task.name),
    ]);
    task.local = local && { sha256: local.sha256 };
    task.remote = remote;
    task.decision = decide(task.base, task.local, task.remote);
  }

  private remember(name: string, entry: StateEntry | undefined): void {
    if (entry === undefined) delete this.files[name];
    else this.files[name] = entry;
  }

  private async execute(task: Task): Promise<SyncItem | undefined> {
    const { root, client } = this.options;
    const { name, decision } = task;
    const projectId = this.projectId;
    switch (decision.kind) {
      case 'none':
        return undefined;
      case 'record': {
        const remote = task.remote!;
        this.remember(name, entryOf(remote.sha256, remote.etag, remote.revision));
        return { name, action: 'record' };
      }
      case 'upload': {
        const now = await readLocal(root, name);
        if (now === undefined || now.sha256 !== task.local?.sha256) throw new LocalChangedError(name);
        const written =
          decision.ifMatch === undefined
            ? await client.files.upload(projectId, name, now.bytes, { sha256: now.sha256 })
            : await client.files.updateContent(projectId, name, now.bytes, {
                ifMatch: decision.ifMatch,
                sha256: now.sha256,
              });
        this.remember(name, entryOf(written.sha256, written.etag, written.revision));
        return { name, action: 'upload' };
      }
      case 'download': {
        const early = this.prefetched.get(name);
        this.prefetched.delete(name);
        if (early !== undefined && task.remote && sha256Hex(early) === task.remote.sha256) {
          // The version listed (same digest), read from the export: no request of its own.
          await writeLocal(root, name, early, decision.expect);
          this.remember(name, entryOf(task.remote.sha256, task.remote.etag, task.remote.revision));
          return { name, action: 'download' };
        }
        const download = await client.files.download(projectId, name);
        const bytes = await download.bytes();
        await writeLocal(root, name, bytes, decision.expect);
        const sha256 = sha256Hex(bytes);
        const revision = download.etag === task.remote?.etag ? task.remote?.revision : undefined;
        this.remember(name, entryOf(sha256, download.etag!, revision));
        return { name, action: 'download' };
      }
      case 'delete-remote':
        await client.files.delete(projectId, name, { ifMatch: decision.ifMatch });
        this.remember(name, undefined);
        return { name, action: 'delete-remote' };
      case 'delete-local':
        await deleteLocal(root, name, decision.expect);
        this.remember(name, undefined);
        return { name, action: 'delete-local' };
      case 'forget':
        this.remember(name, undefined);
        return { name, action: 'forget' };
      case 'conflict':
        return this.keepBoth(task);
    }
  }

  /** Both sides changed: the local file stays, the remote version is saved beside it as a conflict copy. */
  private async keepBoth(task: Task): Promise<SyncItem> {
    const { root, client } = this.options;
    const { name } = task;
    const download = await client.files.download(this.projectId, name);
    const bytes = await download.bytes();
    const sha256 = sha256Hex(bytes);
    const local = await readLocal(root, name);
    if (local?.sha256 === sha256) {
      this.remember(name, entryOf(sha256, download.etag!, undefined));
      return { name, action: 'record' };
    }
    if (this.options.merge !== false && local !== undefined && task.base !== undefined) {
      const remote = { bytes, etag: download.etag! };
      const merged = await mergeBothSides(client, this.projectId, root, name, task.base, local, remote);
      if (merged !== undefined) {
        this.remember(name, entryOf(merged.sha256, merged.etag, merged.revision));
        return { name, action: 'merge' };
      }
    }
    const copy = (await this.existingCopy(name, sha256)) ?? (await this.newCopy(name, bytes));
    const entry = this.files[name];
    this.remember(name, { ...baseOfEntry(entry), conflict: { copy, sha256, etag: download.etag! } });
    this.report.conflicts.push({ name, copy });
    return { name, action: 'conflict', copy };
  }

  /** A copy an interrupted sync already wrote for this very remote version is used again. */
  private async existingCopy(name: string, sha256: string): Promise<string | undefined> {
    const folder = path.dirname(localPath(this.options.root, name));
    const prefix = name.includes('/') ? `${name.slice(0, name.lastIndexOf('/') + 1)}` : '';
    const entries = await readdir(folder).catch(() => [] as string[]);
    for (const entry of entries.sort()) {
      const candidate = `${prefix}${entry}`;
      if (!isConflictCopyOf(candidate, name)) continue;
      const content = await readLocal(this.options.root, candidate);
      if (content?.sha256 === sha256) return candidate;
    }
    return undefined;
  }

  private async newCopy(name: string, bytes: Uint8Array): Promise<string> {
    const now = (this.options.now ?? (() => new Date()))();
    for (let attempt = 0; ; attempt++) {
      const copy = conflictCopyName(name, now, attempt);
      try {
        await writeNewLocal(this.options.root, copy, bytes);
        return copy;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 100) throw error;
      }
    }
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text, or undefined when they are not UTF-8 (such a file goes up on its own). */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Contents a sync keeps from its export at most; downloads past it are read one by one. */
const PREFETCH_MAX_BYTES = 64 * 1024 * 1024;

function entryOf(sha256: string, etag: string, revision: number | undefined): StateEntry {
  return { sha256, etag, ...(revision !== undefined && { revision }) };
}

function baseOfEntry(entry: StateEntry | undefined): StateEntry {
  const base = baseOf(entry);
  return base ? { ...base } : {};
}
