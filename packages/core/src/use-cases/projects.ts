import { evaluatePreconditions } from '../conditional/index.js';
import { PROJECT_DELETION_LIMITS } from '../defaults/projects.js';
import {
  DefaultProjectProtectedError,
  isRecordConflict,
  OperationNotAllowedError,
  PreconditionFailedError,
  ProjectNameTakenError,
} from '../errors.js';
import { decodeProjectPosition, encodeProjectPosition, projectListBinding } from '../listing/cursors.js';
import { LIST_LIMITS } from '../listing/limits.js';
import { type ListParams, parseListParams } from '../listing/query.js';
import type { BlobIntentRecord, ProjectRecord } from '../model/records.js';
import type { RecordsTransaction } from '../ports/records.js';
import type { ProjectCreateInput, ProjectUpdateInput } from '../validation/bodies.js';
import { parseCreateProjectBody, parseProjectId, parseUpdateProjectBody } from '../validation/schemas.js';
import {
  assertOwnedActive,
  assertRole,
  assertWholeProjectReach,
  inKeyScope,
  loadOwnedProject,
} from './access.js';
import { newProjectRecord } from './accounts.js';
import type { Principal } from './authentication.js';
import { removeDoomed, withStagedResource } from './blob-intents.js';
import { emitProjectEvent } from './changes/emit.js';
import { type MdStoreContext, notBefore } from './context.js';
import { type BodyOf, deferred } from './deferred-body.js';
import { conditionsOf, type ParsedConditions, type RequestConditions } from './files/conditions.js';
import { applyPlan, planPrune, retentionOf } from './files/revisions.js';
import { type ProjectView, toProjectView } from './views.js';

/**
 * Preconditions on a project (Get, Update, Delete Project): against its ETag and `updated_date`. A
 * project has no `require_if_match`: that setting is about files.
 */
function checkProjectConditions(
  project: ProjectView,
  conditions: ParsedConditions | undefined,
  method: 'read' | 'write',
): 'proceed' | 'not-modified' {
  if (!conditions) return 'proceed';
  const state = { etag: project.etag, lastModified: project.updatedAt };
  const outcome = evaluatePreconditions(conditions, state, method);
  if (outcome === 'failed') throw new PreconditionFailedError(project.etag);
  return outcome;
}

const nameTaken = (error: unknown, name: string) =>
  isRecordConflict(error, 'project_name') ? new ProjectNameTakenError(name) : error;

async function assertNameFree(tx: RecordsTransaction, accountId: string, name: string, exceptId?: string) {
  const holder = await tx.findActiveProjectByName({ accountId, name });
  if (holder && holder.id !== exceptId) throw new ProjectNameTakenError(name);
}

/** Whether a create or update body sets any setting: those need an `admin` key (extensions §8). */
const touchesSettings = (settings: object | undefined): boolean =>
  settings !== undefined && Object.keys(settings).length > 0;

/** Creates the project's bucket, then the record; a name already in use among active projects is 409. */
export async function createProject(
  ctx: MdStoreContext,
  input: { principal: Principal; body: BodyOf<ProjectCreateInput> },
): Promise<ProjectView> {
  // A key confined to some projects cannot make another (extensions §8), whatever its role; nor can one
  // confined to folders (§14).
  if (input.principal.projectIds !== null) throw new OperationNotAllowedError();
  assertWholeProjectReach(input.principal);
  const body = deferred<unknown>(input.body);
  body.check();
  const { name, description, settings } = parseCreateProjectBody(await body.read());
  if (touchesSettings(settings)) assertRole(input.principal, 'admin');
  const { accountId } = input.principal;
  if (await ctx.records.findActiveProjectByName({ accountId, name })) throw new ProjectNameTakenError(name);
  const project = newProjectRecord(ctx, {
    accountId,
    name,
    description,
    isDefault: false,
    at: ctx.clock.now(),
    settings,
  });
  try {
    await withStagedResource(
      ctx,
      { bucket: project.bucketName, key: null },
      (signal) => ctx.blobs.createBucket({ bucket: project.bucketName, signal }),
      async (tx) => {
        await assertNameFree(tx, accountId, name);
        await tx.insertProject({ project });
        await emitProjectEvent(ctx, tx, { project, type: 'project.created' });
      },
    );
  } catch (error) {
    throw nameTaken(error, name);
  }
  return toProjectView(project);
}

/** Every project of the account the key reaches, deleted ones included, oldest first. */
export async function listProjects(
  ctx: MdStoreContext,
  input: { principal: Principal },
): Promise<ProjectView[]> {
  return (await reachableProjects(ctx, input.principal)).map(toProjectView);
}

/**
 * The account's projects in List Projects order, only those of the key's scope for a scoped key: read
 * one by one (a scope is at most `KEY_LIMITS.maxProjects` ids), never the whole account's list.
 */
async function reachableProjects(ctx: MdStoreContext, principal: Principal): Promise<ProjectRecord[]> {
  const { accountId, projectIds } = principal;
  if (projectIds === null) return ctx.records.listProjects({ accountId });
  const found = await Promise.all(projectIds.map((projectId) => ctx.records.findProjectById({ projectId })));
  return found
    .filter((project): project is ProjectRecord => project?.accountId === accountId)
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export interface ProjectPage {
  readonly projects: ProjectView[];
  readonly totalCount: number;
  /** Paged (`limit`/`cursor`): the next page's cursor, or null on the last page; absent otherwise. */
  readonly nextCursor?: string | null;
}

/** List Projects with the `limit` and `cursor` of extensions §3 (in List Projects order). */
export async function listProjectPage(
  ctx: MdStoreContext,
  input: { principal: Principal; params?: ListParams },
): Promise<ProjectPage> {
  const request = parseListParams(input.params);
  const accountId = input.principal.accountId;
  if (!request.paged) {
    const projects = await listProjects(ctx, input);
    return { projects, totalCount: projects.length };
  }
  const binding = projectListBinding(accountId);
  const after =
    request.cursor === undefined
      ? undefined
      : await decodeProjectPosition(request.cursor, binding, ctx.cursorKey);
  const limit = request.limit ?? LIST_LIMITS.defaultLimit;
  if (input.principal.projectIds !== null) {
    const reachable = await reachableProjects(ctx, input.principal);
    const rest = after
      ? reachable.filter(
          (p) => p.createdAt > after.createdAt || (p.createdAt === after.createdAt && p.id > after.id),
        )
      : reachable;
    return pageOf(ctx, binding, rest.slice(0, limit + 1), limit, reachable.length);
  }
  const rows = await ctx.records.listProjectPage({ accountId, limit: limit + 1, ...(after && { after }) });
  return pageOf(ctx, binding, rows, limit, await ctx.records.countProjects({ accountId }));
}

/** A page of `limit` projects from `rows` (one more when there is a next page). */
async function pageOf(
  ctx: MdStoreContext,
  binding: ReturnType<typeof projectListBinding>,
  rows: readonly ProjectRecord[],
  limit: number,
  totalCount: number,
): Promise<ProjectPage> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? await encodeProjectPosition({ createdAt: last.createdAt, id: last.id }, binding, ctx.cursorKey)
      : null;
  return { projects: page.map(toProjectView), totalCount, nextCursor };
}

export type ProjectRead =
  | { readonly kind: 'project'; readonly project: ProjectView }
  | { readonly kind: 'not-modified'; readonly project: ProjectView };

export async function getProject(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string },
): Promise<ProjectView> {
  return toProjectView(await loadOwnedProject(ctx.records, input.principal, input.projectId));
}

/** A project request's conditional headers, parsed once (none sent: nothing to check). */
const projectConditionsOf = (conditions: RequestConditions | undefined): ParsedConditions | undefined =>
  conditions && conditionsOf(conditions);

/** Get Project with its preconditions (`If-None-Match` → 304, `If-Match` → 412…). */
export async function readProject(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; conditions?: RequestConditions },
): Promise<ProjectRead> {
  const project = await getProject(ctx, input);
  const outcome = checkProjectConditions(project, projectConditionsOf(input.conditions), 'read');
  return { kind: outcome === 'not-modified' ? 'not-modified' : 'project', project };
}

/**
 * Changes only the fields given; files and storage are untouched, except that lowering `keep_revisions`
 * prunes every file's history at once (in the same transaction; freed blobs are removed after it).
 */
export async function updateProject(
  ctx: MdStoreContext,
  input: {
    principal: Principal;
    projectId: string;
    /** The fields to change, or (HTTP) a deferred body. */
    body: BodyOf<ProjectUpdateInput>;
    conditions?: RequestConditions;
  },
): Promise<ProjectView> {
  const projectId = parseProjectId(input.projectId);
  const existing = await loadOwnedProject(ctx.records, input.principal, projectId);
  assertWholeProjectReach(input.principal);
  const conditions = projectConditionsOf(input.conditions);
  const body = deferred<unknown>(input.body);
  body.check();
  checkProjectConditions(toProjectView(existing), conditions, 'write');
  const { settings, ...changes } = parseUpdateProjectBody(await body.read());
  // Extensions §8: a `write` key may rename and describe; only `admin` changes settings.
  if (touchesSettings(settings)) assertRole(input.principal, 'admin');
  try {
    const { view, doomed } = await ctx.records.withTransaction(async (tx) => {
      const current = assertOwnedActive(await tx.lockProject({ projectId }), input.principal, projectId);
      checkProjectConditions(toProjectView(current), conditions, 'write');
      if (changes.name !== undefined) await assertNameFree(tx, current.accountId, changes.name, current.id);
      const updated: ProjectRecord = {
        ...current,
        ...changes,
        ...settings,
        // Strictly later: an update changes `updated_date`, and with it the ETag, even in the same ms.
        updatedAt: Math.max(ctx.clock.now(), current.updatedAt + 1),
      };
      const pruned =
        updated.keepRevisions < current.keepRevisions || updated.keepRevisionsDays < current.keepRevisionsDays
          ? await pruneProjectHistory(ctx, tx, updated, updated.updatedAt)
          : { historyDelta: 0, doomed: [] };
      const stored = { ...updated, historySizeBytes: updated.historySizeBytes + pruned.historyDelta };
      await tx.updateProject({ project: stored });
      await emitProjectEvent(ctx, tx, { project: stored, type: 'project.updated' });
      return { view: toProjectView(stored), doomed: pruned.doomed };
    });
    for (const intent of doomed) await removeDoomed(ctx, intent);
    return view;
  } catch (error) {
    throw nameTaken(error, changes.name ?? '');
  }
}

/** Every file's history cut to the project's (lowered) `keepRevisions` and `keepRevisionsDays`. */
async function pruneProjectHistory(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  project: ProjectRecord,
  now: number,
) {
  const retention = retentionOf(project, now);
  let historyDelta = 0;
  const doomed: BlobIntentRecord[] = [];
  for (const file of await tx.listFiles({ projectId: project.id })) {
    const plan = planPrune(await tx.listRevisionContents({ fileId: file.id }), retention);
    if (plan.prune.length === 0) continue;
    doomed.push(...(await applyPlan(ctx, tx, { fileId: file.id, project }, plan)));
    historyDelta += plan.historyDelta;
  }
  return { historyDelta, doomed };
}

/**
 * Deletes a project (issue 34: bounded). One small transaction marks it `deleting`: inactive, name
 * freed, counters zero, its `project.deleted` event; from then on it is gone for every reader, and that
 * mark is the durable intent that the rest finishes (whole or nothing after a crash). Then its records
 * are purged in transactions of at most `PROJECT_DELETION_LIMITS.batchRows` rows, at most
 * `requestBatches` of them in this request; when none is left its bucket goes with every blob in it and
 * it is marked `deleted`. A larger project answers the same, and the maintenance loop (reconciliation)
 * purges the rest and removes the bucket; a retry by the owner runs another bounded slice.
 */
export async function deleteProject(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; conditions?: RequestConditions },
): Promise<{ projectId: string }> {
  const projectId = parseProjectId(input.projectId);
  const project = await ctx.records.findProjectById({ projectId });
  if (
    project?.status === 'deleting' &&
    project.accountId === input.principal.accountId &&
    inKeyScope(input.principal, projectId)
  ) {
    await finishProjectDeletion(ctx, project, { maxBatches: PROJECT_DELETION_LIMITS.requestBatches });
    return { projectId };
  }
  const owned = assertOwnedActive(project, input.principal, projectId);
  assertWholeProjectReach(input.principal);
  if (owned.isDefault) throw new DefaultProjectProtectedError();
  const deleting = await ctx.records.withTransaction(async (tx) => {
    const current = assertOwnedActive(await tx.lockProject({ projectId }), input.principal, projectId);
    if (current.isDefault) throw new DefaultProjectProtectedError();
    checkProjectConditions(toProjectView(current), projectConditionsOf(input.conditions), 'write');
    const marked: ProjectRecord = {
      ...current,
      status: 'deleting',
      fileCount: 0,
      totalSizeBytes: 0,
      historySizeBytes: 0,
      trashSizeBytes: 0,
      attachmentCount: 0,
      attachmentBytes: 0,
      updatedAt: notBefore(ctx.clock.now(), current.updatedAt),
    };
    await tx.updateProject({ project: marked });
    await emitProjectEvent(ctx, tx, { project: marked, type: 'project.deleted' });
    return marked;
  });
  await finishProjectDeletion(ctx, deleting, { maxBatches: PROJECT_DELETION_LIMITS.requestBatches });
  return { projectId };
}

/**
 * Brings a `deleting` project to its end: purges its records batch by batch (each batch its own
 * transaction, re-checking that the project is still `deleting`), then removes its bucket and marks it
 * `deleted`. With `maxBatches`, stops after that many batches when records are left (false: not done
 * yet, the maintenance loop goes on); without, runs to the end. Idempotent; true when it is `deleted`.
 */
export async function finishProjectDeletion(
  ctx: MdStoreContext,
  project: ProjectRecord,
  options: { maxBatches?: number } = {},
): Promise<boolean> {
  const limit = PROJECT_DELETION_LIMITS.batchRows;
  for (let batches = 0; ; batches++) {
    if (options.maxBatches !== undefined && batches >= options.maxBatches) return false;
    const purged = await ctx.records.withTransaction(async (tx) => {
      const current = await tx.lockProject({ projectId: project.id });
      if (current?.status !== 'deleting') return 0;
      return tx.purgeProjectRecords({ projectId: project.id, limit });
    });
    if (purged < limit) break;
  }
  await ctx.blobs.deleteBucket({ bucket: project.bucketName });
  await ctx.records.withTransaction(async (tx) => {
    const current = await tx.lockProject({ projectId: project.id });
    if (current?.status !== 'deleting') return;
    await tx.updateProject({ project: { ...current, status: 'deleted' } });
  });
  return true;
}
