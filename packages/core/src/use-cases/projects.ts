import { DefaultProjectProtectedError, ProjectNameTakenError, RecordConflictError } from '../errors.js';
import type { ProjectRecord } from '../model/records.js';
import type { RecordsTransaction } from '../ports/records.js';
import { parseCreateProjectBody, parseProjectId, parseUpdateProjectBody } from '../validation/schemas.js';
import { assertOwnedActive, loadOwnedProject } from './access.js';
import { newProjectRecord } from './accounts.js';
import type { Principal } from './authentication.js';
import { withStagedResource } from './blob-intents.js';
import { type MdStoreContext, notBefore } from './context.js';
import { type ProjectView, toProjectView } from './views.js';

const nameTaken = (error: unknown, name: string) =>
  error instanceof RecordConflictError && error.rule === 'project_name'
    ? new ProjectNameTakenError(name)
    : error;

async function assertNameFree(tx: RecordsTransaction, accountId: string, name: string, exceptId?: string) {
  const holder = await tx.findActiveProjectByName({ accountId, name });
  if (holder && holder.id !== exceptId) throw new ProjectNameTakenError(name);
}

/** Creates the project's bucket, then the record; a name already in use among active projects is 409. */
export async function createProject(
  ctx: MdStoreContext,
  input: { principal: Principal; body: unknown },
): Promise<ProjectView> {
  const { name, description } = parseCreateProjectBody(input.body);
  const { accountId } = input.principal;
  if (await ctx.records.findActiveProjectByName({ accountId, name })) throw new ProjectNameTakenError(name);
  const project = newProjectRecord(ctx, {
    accountId,
    name,
    description,
    isDefault: false,
    at: ctx.clock.now(),
  });
  try {
    await withStagedResource(
      ctx,
      { bucket: project.bucketName, key: null },
      (signal) => ctx.blobs.createBucket({ bucket: project.bucketName, signal }),
      async (tx) => {
        await assertNameFree(tx, accountId, name);
        await tx.insertProject({ project });
      },
    );
  } catch (error) {
    throw nameTaken(error, name);
  }
  return toProjectView(project);
}

/** Every project of the account, deleted ones included, oldest first. */
export async function listProjects(
  ctx: MdStoreContext,
  input: { principal: Principal },
): Promise<ProjectView[]> {
  const projects = await ctx.records.listProjects({ accountId: input.principal.accountId });
  return projects.map(toProjectView);
}

export async function getProject(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string },
): Promise<ProjectView> {
  return toProjectView(await loadOwnedProject(ctx.records, input.principal, input.projectId));
}

/** Changes only the fields given; files and storage are untouched. */
export async function updateProject(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; body: unknown },
): Promise<ProjectView> {
  const projectId = parseProjectId(input.projectId);
  await loadOwnedProject(ctx.records, input.principal, projectId);
  const changes = parseUpdateProjectBody(input.body);
  try {
    return await ctx.records.withTransaction(async (tx) => {
      const current = assertOwnedActive(await tx.lockProject({ projectId }), input.principal, projectId);
      if (changes.name !== undefined) await assertNameFree(tx, current.accountId, changes.name, current.id);
      const updated: ProjectRecord = {
        ...current,
        ...changes,
        updatedAt: notBefore(ctx.clock.now(), current.updatedAt),
      };
      await tx.updateProject({ project: updated });
      return toProjectView(updated);
    });
  } catch (error) {
    throw nameTaken(error, changes.name ?? '');
  }
}

/**
 * Deletes a project: in one transaction its files are removed and it becomes `deleting` (inactive, name
 * freed, counters zero); then its bucket goes with every blob in it; then it is marked `deleted`.
 * If the process stops half-way, a retry by the owner or start-up reconciliation finishes the job.
 */
export async function deleteProject(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string },
): Promise<{ projectId: string }> {
  const projectId = parseProjectId(input.projectId);
  const project = await ctx.records.findProjectById({ projectId });
  if (project?.status === 'deleting' && project.accountId === input.principal.accountId) {
    await finishProjectDeletion(ctx, project);
    return { projectId };
  }
  const owned = assertOwnedActive(project, input.principal, projectId);
  if (owned.isDefault) throw new DefaultProjectProtectedError();
  const deleting = await ctx.records.withTransaction(async (tx) => {
    const current = assertOwnedActive(await tx.lockProject({ projectId }), input.principal, projectId);
    if (current.isDefault) throw new DefaultProjectProtectedError();
    await tx.deleteFilesOfProject({ projectId });
    const marked: ProjectRecord = {
      ...current,
      status: 'deleting',
      fileCount: 0,
      totalSizeBytes: 0,
      updatedAt: notBefore(ctx.clock.now(), current.updatedAt),
    };
    await tx.updateProject({ project: marked });
    return marked;
  });
  await finishProjectDeletion(ctx, deleting);
  return { projectId };
}

/** Removes the bucket of a `deleting` project and marks it `deleted`. Idempotent. */
export async function finishProjectDeletion(ctx: MdStoreContext, project: ProjectRecord): Promise<void> {
  await ctx.blobs.deleteBucket({ bucket: project.bucketName });
  await ctx.records.withTransaction(async (tx) => {
    const current = await tx.lockProject({ projectId: project.id });
    if (current?.status !== 'deleting') return;
    await tx.updateProject({ project: { ...current, status: 'deleted' } });
  });
}
