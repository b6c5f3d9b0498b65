import { withRevision } from './history.js';
import { json, request } from './http-client.js';
import { type FileState, fileKey, type ProjectModel, type TrashedFile } from './model.js';
import type { Random } from './random.js';
import type { StoreInspector } from './store-inspection.js';
import type { VerifyInput } from './verify.js';
import { auth, FILENAMES, type Operation, perform, readBack, type WorkloadContext } from './workload.js';

/**
 * The trash in the crash suite (extensions §5): restores and removals in the workload, the trash of
 * every project checked after each restart (every acknowledged deletion listed, with its content and
 * history; every acknowledged restore or removal gone; cut-off ones whole or not at all), and expiry:
 * between a kill and the next start some items are made expired in the store, so that the start-up
 * reconciliation (itself sometimes killed) purges them.
 */

/** A restore (to its name, or another free one) or a removal of an item whose trash id is known. */
export function trashOperation(ctx: WorkloadContext, project: ProjectModel): Operation | undefined {
  const known = (project.trash ?? []).filter(
    (item) => item.trashId !== undefined && !ctx.cycle.busyTrash.has(item.trashId),
  );
  if (known.length === 0) return undefined;
  const item = ctx.random.pick(known);
  return ctx.random.chance(0.7) ? restore(ctx, project, item) : remove(ctx, project, item);
}

const isFree = (ctx: WorkloadContext, project: ProjectModel, name: string) =>
  !project.files.has(name) && !ctx.cycle.busyFiles.has(fileKey(project.id, name));

function forget(project: ProjectModel, item: TrashedFile): void {
  const index = project.trash?.indexOf(item) ?? -1;
  if (index >= 0) project.trash?.splice(index, 1);
}

function restore(ctx: WorkloadContext, project: ProjectModel, item: TrashedFile): Operation | undefined {
  const own = isFree(ctx, project, item.filename);
  const to = own && ctx.random.chance(0.7) ? item.filename : ctx.random.pick(FILENAMES);
  if (!isFree(ctx, project, to)) return undefined;
  const trashId = item.trashId as string;
  const key = fileKey(project.id, to);
  ctx.cycle.busyFiles.add(key);
  ctx.cycle.busyTrash.add(trashId);
  const body = to === item.filename && ctx.random.chance(0.5) ? {} : { to };
  return async () => {
    try {
      const acknowledged = await perform(ctx, {
        kind: 'trash restore',
        projectId: project.id,
        expected: 201,
        send: () =>
          request(ctx.baseUrl, {
            method: 'POST',
            path: `/api/projects/${project.id}/trash/${trashId}/restore`,
            headers: { ...auth(ctx.model), 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify(body)),
          }),
        onAcknowledged: (reply) => {
          forget(project, item);
          const etag = typeof reply.headers.etag === 'string' ? reply.headers.etag : undefined;
          // The same file back, its history continued by the restore's revision.
          const revision = reply.truncated ? undefined : (json(reply) as { revision?: number }).revision;
          project.files.set(to, withRevision({ ...item.state, etag }, revision));
        },
        onInFlight: () => {
          ctx.cycle.inFlightFiles.set(key, item.state);
          ctx.cycle.inFlightTrashIds.set(trashId, to);
        },
      });
      if (acknowledged && ctx.random.chance(0.5))
        await readBack(ctx, project, to, project.files.get(to) ?? null);
    } finally {
      if (!ctx.killed()) {
        ctx.cycle.busyFiles.delete(key);
        ctx.cycle.busyTrash.delete(trashId);
      }
    }
  };
}

function remove(ctx: WorkloadContext, project: ProjectModel, item: TrashedFile): Operation {
  const trashId = item.trashId as string;
  ctx.cycle.busyTrash.add(trashId);
  return async () => {
    try {
      await perform(ctx, {
        kind: 'trash purge',
        projectId: project.id,
        expected: 204,
        send: () =>
          request(ctx.baseUrl, {
            method: 'DELETE',
            path: `/api/projects/${project.id}/trash/${trashId}`,
            headers: auth(ctx.model),
          }),
        onAcknowledged: () => forget(project, item),
        onInFlight: () => ctx.cycle.inFlightTrashIds.set(trashId, null),
      });
    } finally {
      if (!ctx.killed()) ctx.cycle.busyTrash.delete(trashId);
    }
  };
}

interface TrashJson {
  trash_id: string;
  filename: string;
  size_bytes: number;
  deleted_date: string;
  kind: 'file' | 'attachment';
}

/** Every page of a project's trash, through the API. */
async function listAll(input: VerifyInput, projectId: string): Promise<TrashJson[]> {
  const items: TrashJson[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '?limit=50' : `?limit=50&cursor=${encodeURIComponent(cursor)}`;
    const reply = await request(input.baseUrl, {
      method: 'GET',
      path: `/api/projects/${projectId}/trash${query}`,
      headers: auth(input.model),
    });
    if (reply.status !== 200) throw new Error(`GET trash of ${projectId}: ${reply.status}`);
    const page = json(reply) as { trash: TrashJson[]; next_cursor: string | null; total_count: number };
    // Deleted attachments' items (extensions §12) are checked with the attachments (attachments.ts).
    items.push(...page.trash.filter((item) => item.kind === 'file'));
    cursor = page.next_cursor;
  } while (cursor !== null);
  return items;
}

type Check = (ok: boolean, message: () => string) => boolean;

/**
 * After a restart and the files' verification (the project's files are what was observed): the trash
 * holds exactly the deletions the client knows of, plus those cut off by the kill that landed, minus
 * the restores and removals that were acknowledged (or landed); items get their trash ids here, oldest
 * deletion of a name first, in the order the client's deletes of that name were acknowledged.
 */
export async function verifyTrash(input: VerifyInput, check: Check, project: ProjectModel): Promise<void> {
  if (!project.trash) return;
  const { cycle } = input;
  for (const [key, item] of cycle.inFlightTrash) {
    if (key === fileKey(project.id, item.filename) && !project.files.has(item.filename))
      project.trash.push(item);
  }
  const listed = await listAll(input, project.id);
  const byId = new Map(listed.map((item) => [item.trash_id, item]));
  for (const item of [...project.trash]) {
    if (item.trashId === undefined || byId.has(item.trashId)) continue;
    const cutOff = cycle.inFlightTrashIds.has(item.trashId);
    const restoredTo = cycle.inFlightTrashIds.get(item.trashId);
    check(cutOff, () => `trash item ${item.trashId} (${item.filename}) vanished though nothing removed it`);
    if (restoredTo) {
      const file = project.files.get(restoredTo);
      check(
        file !== undefined && sameContent(file, item.state),
        () => `trash item ${item.trashId} is gone but ${restoredTo} does not hold its content`,
      );
    }
    forget(project, item);
  }
  for (const [trashId, to] of cycle.inFlightTrashIds) {
    if (to === null || !byId.has(trashId)) continue;
    const item = project.trash.find((candidate) => candidate.trashId === trashId);
    // Still in the trash: the restore did not land, so the name must not hold the item's content.
    if (item)
      check(
        !project.files.has(to) || !sameContent(project.files.get(to)!, item.state),
        () => `${to} restored yet item ${trashId} is still in the trash`,
      );
  }
  const known = new Set(project.trash.map((item) => item.trashId).filter((id) => id !== undefined));
  const unknown = listed
    .filter((item) => !known.has(item.trash_id))
    .sort((a, b) => Date.parse(a.deleted_date) - Date.parse(b.deleted_date));
  for (const name of new Set([...unknown.map((item) => item.filename), ...pendingNames(project)])) {
    const pending = project.trash.filter((item) => item.trashId === undefined && item.filename === name);
    const found = unknown.filter((item) => item.filename === name);
    check(
      pending.length === found.length,
      () =>
        `trash of ${project.id} lists ${found.length} unknown items named ${name}, ${pending.length} deletions of it were acknowledged`,
    );
    for (const [index, item] of pending.entries()) {
      const seen = found[index];
      if (!seen) break;
      item.trashId = seen.trash_id;
    }
  }
  for (const item of project.trash) {
    const seen = item.trashId === undefined ? undefined : byId.get(item.trashId);
    if (!check(seen !== undefined, () => `trash item of ${item.filename} is not listed`)) continue;
    check(
      seen?.size_bytes === item.state.content.length && seen.filename === item.filename,
      () =>
        `trash item ${item.trashId}: ${JSON.stringify(seen)} but ${item.filename} had ${item.state.content.length} bytes`,
    );
    input.stats.trashVerified++;
  }
  project.trash.splice(
    0,
    project.trash.length,
    ...project.trash.filter((item) => byId.has(item.trashId ?? '')),
  );
}

const pendingNames = (project: ProjectModel) =>
  (project.trash ?? []).filter((item) => item.trashId === undefined).map((item) => item.filename);

const sameContent = (a: FileState, b: FileState) => a.sha256 === b.sha256;

/**
 * With the server down: some known trash items are made expired in the store; they leave the model at
 * once (an expired item is never listed), and the next start-up's reconciliation must purge them.
 */
export async function expireSomeTrash(
  inspector: StoreInspector,
  projects: Iterable<ProjectModel>,
  random: Random,
  inFlight: ReadonlyMap<string, string | null>,
): Promise<number> {
  const chosen: string[] = [];
  for (const project of projects) {
    for (const item of [...(project.trash ?? [])]) {
      if (item.trashId === undefined || inFlight.has(item.trashId) || !random.chance(0.3)) continue;
      chosen.push(item.trashId);
      forget(project, item);
    }
  }
  if (chosen.length > 0) await inspector.expireTrash(chosen);
  return chosen.length;
}
