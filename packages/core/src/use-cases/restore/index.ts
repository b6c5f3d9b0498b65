import { EditConflictError, mdStoreError } from '../../errors.js';
import type { FileRecord, ProjectRecord, RevisionRecord, TrashRecord } from '../../model/records.js';
import { parseRestoreBody, RESTORE_LIMITS } from '../../validation/restore.js';
import { assertRole, assertWholeProjectReach, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { MAX_CHANGESET_ATTEMPTS } from '../changesets/apply.js';
import { commitChangeset } from '../changesets/commit.js';
import { type ContentSource, type PlannedFile, StalePlan } from '../changesets/plan.js';
import type { MdStoreContext } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { openContent } from '../files/download.js';
import { gather } from '../files/parts.js';
import { canonical } from '../import/applier.js';
import { RevisionBudget, type StateAsOf, stateAsOf, trashDeletedAfter } from './state.js';

/**
 * A project as it was (extensions §16): `POST /api/projects/{id}/restore {"as_of", "dry_run"}`. The
 * state of every file at `as_of` is read from the kept revisions of the current files and of the trash
 * (files deleted since), then the difference is applied as ONE changeset through the changeset's own
 * commit (`commitChangeset`): one transaction, whole or nothing after a crash too, one revision and the
 * usual change event per touched file, all carrying the changeset id. Files whose history no longer
 * reaches `as_of` are reported `unrecoverable` and left as they are.
 */

export type UnrecoverableReason = 'history_pruned' | 'name_taken';

export interface RestoreResult {
  readonly asOf: number;
  readonly dryRun: boolean;
  /** The changeset written; null for a dry run, or when nothing differs. */
  readonly changesetId: string | null;
  /** Files that did not exist now and come back from the trash (as new files, with that content). */
  readonly created: readonly { readonly filename: string; readonly trashId: string }[];
  /** Files that exist now and go back to their content, metadata or name of then. */
  readonly changed: readonly {
    readonly filename: string;
    /** The name the file has now, when it goes back to another. */
    readonly from: string | null;
    readonly content: boolean;
    readonly metadata: boolean;
    /** The revision whose content and metadata it gets back. */
    readonly revision: number;
  }[];
  /** Files that did not exist at `as_of`. */
  readonly deleted: readonly { readonly filename: string }[];
  /** Files that existed then (or hold a name needed) and are left as they are. */
  readonly unrecoverable: readonly { readonly filename: string; readonly reason: UnrecoverableReason }[];
  /** Exact sizes of the four lists (each list holds at most `RESTORE_LIMITS.maxListed` entries). */
  readonly counts: {
    readonly created: number;
    readonly changed: number;
    readonly deleted: number;
    readonly unrecoverable: number;
    readonly unchanged: number;
  };
  /** Whether a list was cut at `RESTORE_LIMITS.maxListed`. */
  readonly truncated: boolean;
}

export interface RestoreInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly body: BodyOf<unknown>;
  readonly signal?: AbortSignal;
}

export async function restoreProjectAsOf(ctx: MdStoreContext, input: RestoreInput): Promise<RestoreResult> {
  assertRole(input.principal, 'admin');
  let project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  assertWholeProjectReach(input.principal);
  const body = deferred<unknown>(input.body);
  body.check();
  const request = parseRestoreBody(await body.read(), { now: ctx.clock.now(), createdAt: project.createdAt });
  for (let attempt = 1; attempt <= MAX_CHANGESET_ATTEMPTS; attempt++) {
    if (attempt > 1) project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
    const plan = await planRestore(ctx, project, request.asOf);
    const changes = plan.created.length + plan.changed.length + plan.deleted.length;
    if (request.dryRun || changes === 0) return report(plan, request, null);
    if (changes > RESTORE_LIMITS.maxChanges) {
      throw mdStoreError('RESTORE_TOO_LARGE', { what: 'changes', max: RESTORE_LIMITS.maxChanges });
    }
    const changeset = {
      id: ctx.ids.uuid(),
      message: `Restore as of ${new Date(request.asOf).toISOString()}`,
    };
    try {
      await commitChangeset(ctx, {
        principal: input.principal,
        plan: { project, files: plan.files, touched: [], seen: plan.seen },
        changeset,
        keepRecords: false,
        ...(input.signal && { signal: input.signal }),
      });
      return report(plan, request, changeset.id);
    } catch (error) {
      if (!(error instanceof StalePlan)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 64)));
    }
  }
  throw new EditConflictError([
    {
      loc: ['body', 'as_of'],
      msg: `The files changed ${MAX_CHANGESET_ATTEMPTS} times while the restore was being applied; send it again`,
      type: 'concurrent_writes',
    },
  ]);
}

/** The plan of a restore: the changeset's files, what it read, and what the answer reports. */
interface RestorePlan {
  readonly files: PlannedFile[];
  readonly seen: Map<string, FileRecord | null>;
  readonly created: RestoreResult['created'][number][];
  readonly changed: RestoreResult['changed'][number][];
  readonly deleted: RestoreResult['deleted'][number][];
  readonly unrecoverable: RestoreResult['unrecoverable'][number][];
  readonly unchanged: number;
}

/** One file that existed at `as_of`: where it comes from, what it was then. */
interface Target {
  readonly filename: string;
  readonly revision: RevisionRecord;
  /** The current file it is (null: it is in the trash). */
  readonly current: FileRecord | null;
  readonly trash: TrashRecord | null;
}

/** Reads the state of the project at `asOf` and works out the changeset that brings it back. */
export async function planRestore(
  ctx: MdStoreContext,
  project: ProjectRecord,
  asOf: number,
): Promise<RestorePlan> {
  const now = ctx.clock.now();
  const trashCount = await ctx.records.countTrash({ projectId: project.id, now });
  if (project.fileCount + trashCount > RESTORE_LIMITS.maxFiles) {
    throw mdStoreError('RESTORE_TOO_LARGE', { what: 'files', max: RESTORE_LIMITS.maxFiles });
  }
  const budget = new RevisionBudget();
  const current = await ctx.records.listFiles({ projectId: project.id });
  const targets: Target[] = [];
  const deleted: FileRecord[] = [];
  /** Files left as they are, by the name they keep. */
  const kept = new Map<string, { file: FileRecord | null; reason: UnrecoverableReason; name: string }>();
  for (const file of current) {
    const state: StateAsOf = await stateAsOf(ctx, file, asOf, budget);
    if (state.kind === 'absent') deleted.push(file);
    else if (state.kind === 'unrecoverable') {
      kept.set(file.filename, { file, reason: 'history_pruned', name: file.filename });
    } else targets.push({ filename: state.filename, revision: state.revision, current: file, trash: null });
  }
  const fromTrash: { item: TrashRecord; state: StateAsOf }[] = [];
  for await (const item of trashDeletedAfter(ctx, project, asOf, now)) {
    fromTrash.push({ item, state: await stateAsOf(ctx, item.file, asOf, budget) });
  }
  const unrecoverable: RestoreResult['unrecoverable'][number][] = [];
  for (const { item, state } of fromTrash) {
    if (state.kind === 'present') {
      targets.push({ filename: state.filename, revision: state.revision, current: null, trash: item });
    } else if (state.kind === 'unrecoverable') {
      unrecoverable.push({ filename: item.file.filename, reason: 'history_pruned' });
    }
  }
  // Two files cannot hold one name: a name kept by a file left alone, or wanted twice (history that
  // does not tell, e.g. a file restored from the trash in between), is not taken; the file that wanted
  // it is left as it is too (which keeps its own name: so again, until nothing clashes).
  let open = targets;
  for (;;) {
    const claims = new Map<string, number>();
    for (const target of open) claims.set(target.filename, (claims.get(target.filename) ?? 0) + 1);
    const clashing = open.filter((t) => kept.has(t.filename) || claims.get(t.filename)! > 1);
    if (clashing.length === 0) break;
    open = open.filter((t) => !clashing.includes(t));
    for (const target of clashing) {
      if (target.current) {
        kept.set(target.current.filename, {
          file: target.current,
          reason: 'name_taken',
          name: target.current.filename,
        });
      } else unrecoverable.push({ filename: target.filename, reason: 'name_taken' });
    }
  }
  for (const entry of kept.values()) unrecoverable.push({ filename: entry.name, reason: entry.reason });
  const plan: RestorePlan = {
    files: [],
    seen: new Map(),
    created: [],
    changed: [],
    deleted: [],
    unrecoverable,
    unchanged: 0,
  };
  for (const file of deleted) {
    plan.seen.set(file.filename, file);
    plan.files.push({
      origin: file,
      fileId: file.id,
      filename: file.filename,
      text: null,
      metadataJson: file.metadataJson,
      kind: 'content',
      deleted: true,
    });
    plan.deleted.push({ filename: file.filename });
  }
  let unchanged = 0;
  for (const target of open) {
    const { revision, filename } = target;
    if (target.current === null) {
      plan.seen.set(filename, null);
      plan.files.push({
        origin: null,
        fileId: ctx.ids.uuid(),
        filename,
        text: null,
        source: contentOf(ctx, project, revision),
        metadataJson: revision.metadataJson,
        kind: 'created',
        deleted: false,
      });
      plan.created.push({ filename, trashId: target.trash!.id });
      continue;
    }
    const file = target.current;
    const content = revision.sha256 !== file.sha256 || revision.sizeBytes !== file.sizeBytes;
    const metadata = !sameMetadata(revision.metadataJson, file.metadataJson);
    const renamed = filename !== file.filename;
    if (!content && !metadata && !renamed) {
      unchanged++;
      continue;
    }
    plan.seen.set(file.filename, file);
    // The name it goes back to must still be free (or be freed by this changeset) at the commit.
    if (renamed && !plan.seen.has(filename)) plan.seen.set(filename, null);
    plan.files.push({
      origin: file,
      fileId: file.id,
      filename,
      text: null,
      ...(content && { source: contentOf(ctx, project, revision) }),
      metadataJson: metadata ? revision.metadataJson : file.metadataJson,
      kind: content || metadata ? 'restore' : 'move',
      deleted: false,
    });
    plan.changed.push({
      filename,
      from: renamed ? file.filename : null,
      content,
      metadata,
      revision: revision.revision,
    });
  }
  // A renamed file's name of then may be held now by a file that also moves or goes: what the plan
  // "read" of that name is that file (the commit checks it is unchanged).
  const byName = new Map(current.map((file) => [file.filename, file]));
  for (const [name, seen] of plan.seen) {
    if (seen === null && byName.has(name)) plan.seen.set(name, byName.get(name)!);
  }
  return { ...plan, unchanged };
}

/** The content of a revision, read when the commit reaches it (one at a time). */
function contentOf(ctx: MdStoreContext, project: ProjectRecord, revision: RevisionRecord): ContentSource {
  return {
    sizeBytes: revision.sizeBytes,
    sha256: revision.sha256,
    load: async () => {
      const content = await openContent(ctx, project, revision, null, undefined);
      // Pruned or purged since the plan read it: plan again.
      if (content === null) throw new StalePlan();
      return gather(content, revision.sizeBytes);
    },
  };
}

/** Whether two stored metadata texts hold the same object, key order aside. */
function sameMetadata(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return a === b || canonical(JSON.parse(a)) === canonical(JSON.parse(b));
}

function report(
  plan: RestorePlan,
  request: { asOf: number; dryRun: boolean },
  changesetId: string | null,
): RestoreResult {
  const byName = <T extends { filename: string }>(list: T[]) =>
    [...list].sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
  const lists = [plan.created, plan.changed, plan.deleted, plan.unrecoverable];
  const max = RESTORE_LIMITS.maxListed;
  return {
    asOf: request.asOf,
    dryRun: request.dryRun,
    changesetId,
    created: byName(plan.created).slice(0, max),
    changed: byName(plan.changed).slice(0, max),
    deleted: byName(plan.deleted).slice(0, max),
    unrecoverable: byName(plan.unrecoverable).slice(0, max),
    counts: {
      created: plan.created.length,
      changed: plan.changed.length,
      deleted: plan.deleted.length,
      unrecoverable: plan.unrecoverable.length,
      unchanged: plan.unchanged,
    },
    truncated: lists.some((list) => list.length > max),
  };
}
