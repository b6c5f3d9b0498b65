import { request } from './http-client.js';
import { type FileState, fileKey, fileState, type KeptRevision, type ProjectModel } from './model.js';
import {
  auth,
  chooseCondition,
  FILENAMES,
  filePath,
  fileWrite,
  ifMatch,
  type Operation,
  perform,
  readBack,
  type WorkloadContext,
  writable,
} from './workload.js';

/**
 * The history operations of the crash workload (extensions §5): restore, move and copy, and the
 * bookkeeping of every file's acknowledged revisions that the checks after each restart compare with
 * the server's kept revisions (verify-history.ts).
 */

export const DEFAULT_KEEP_REVISIONS = 20;

/** The revision number in a file ETag (`"<id>-<revision>"`): the suite knows the format; clients don't. */
export function revisionOfEtag(etag: string | undefined): number | undefined {
  const match = etag === undefined ? null : /-(\d+)"$/.exec(etag);
  return match ? Number(match[1]) : undefined;
}

/** A new version of the file `before`: it carries the history so far. */
export const continued = (after: FileState, before: FileState): FileState => ({
  ...after,
  history: before.history ?? [],
});

/** The version acknowledged with `etag`: its revision is known and joins the history. */
export function acknowledgedState(after: FileState, etag: string | undefined): FileState {
  return withRevision({ ...after, ...(etag !== undefined && { etag }) }, revisionOfEtag(etag));
}

/** A version whose revision number is now known (acknowledged, or observed after a restart). */
export function withRevision(state: FileState, revision: number | undefined): FileState {
  if (revision === undefined) return { ...state, revision: undefined, history: state.history ?? [] };
  const entry: KeptRevision = {
    revision,
    content: state.content,
    sha256: state.sha256,
    metadata: state.metadata,
  };
  const earlier = (state.history ?? []).filter((kept) => kept.revision < revision);
  return { ...state, revision, history: [...earlier, entry] };
}

/** Revisions of `state` that are certainly still kept (the newest `keep`). */
export function surelyKept(state: FileState, keep: number): KeptRevision[] {
  if (state.revision === undefined) return [];
  const current = state.revision;
  return (state.history ?? []).filter((kept) => kept.revision > current - keep);
}

const keepOf = (project: ProjectModel) => project.keepRevisions ?? DEFAULT_KEEP_REVISIONS;

export function historyOperation(
  ctx: WorkloadContext,
  project: ProjectModel,
  file: { name: string; state: FileState },
): Operation | undefined {
  const roll = ctx.random.next();
  if (roll < 0.4) return restoreRevision(ctx, project, file);
  if (roll < 0.7) return moveFile(ctx, project, file);
  return copyFile(ctx, project, file);
}

function freeName(ctx: WorkloadContext, project: ProjectModel): string | undefined {
  const free = FILENAMES.filter(
    (name) => !project.files.has(name) && !ctx.cycle.busyFiles.has(fileKey(project.id, name)),
  );
  return free.length > 0 ? ctx.random.pick(free) : undefined;
}

const post = (ctx: WorkloadContext, path: string, headers: Record<string, string>, body: unknown) =>
  request(ctx.baseUrl, {
    method: 'POST',
    path,
    headers: { ...auth(ctx.model), ...headers, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
  });

/** Restores a revision that is certainly kept: its content and metadata become the new version. */
function restoreRevision(
  ctx: WorkloadContext,
  project: ProjectModel,
  file: { name: string; state: FileState },
): Operation | undefined {
  const kept = surelyKept(file.state, keepOf(project));
  if (kept.length === 0) return undefined;
  const target = ctx.random.pick(kept);
  const condition = chooseCondition(ctx, file.state);
  return fileWrite(ctx, project, file.name, {
    kind: 'restore',
    expected: 200,
    after: continued(fileState(target.content, target.metadata), file.state),
    before: file.state,
    condition,
    send: () =>
      post(ctx, `${filePath(project.id, file.name)}/restore`, ifMatch(condition, file.state), {
        revision: target.revision,
      }),
  });
}

/**
 * Moves a file to a free name: acknowledged, the file (and its history) is under the new name only;
 * cut off by the kill, it must be under exactly one of the two afterwards. Half of the moves ask for
 * `rewrite_links` (extensions §9), which commits the move as a changeset instead of a single write (the
 * workload's contents hold no links, so nothing else is rewritten; the rewrites' all-or-nothing is the
 * core fault suite's, move-rewrite.faults.test.ts).
 */
function moveFile(
  ctx: WorkloadContext,
  project: ProjectModel,
  file: { name: string; state: FileState },
): Operation | undefined {
  const to = freeName(ctx, project);
  if (to === undefined) return undefined;
  const condition = chooseCondition(ctx, file.state);
  const stale = condition === 'stale';
  const [fromKey, toKey] = [fileKey(project.id, file.name), fileKey(project.id, to)];
  const moved = continued(fileState(file.state.content, file.state.metadata), file.state);
  ctx.cycle.busyFiles.add(fromKey);
  ctx.cycle.busyFiles.add(toKey);
  const rewrite = ctx.random.chance(0.5);
  const name = rewrite ? 'move (rewrite_links)' : 'move';
  const kind = condition === 'none' ? name : `${name} (If-Match ${condition})`;
  return async () => {
    try {
      const acknowledged = await perform(ctx, {
        kind,
        projectId: project.id,
        expected: stale ? 412 : 200,
        send: () =>
          post(ctx, `${filePath(project.id, file.name)}/move`, ifMatch(condition, file.state), {
            to,
            ...(rewrite && { rewrite_links: true }),
          }),
        onAcknowledged: (reply) => {
          if (stale) return;
          const etag = typeof reply.headers.etag === 'string' ? reply.headers.etag : undefined;
          project.files.delete(file.name);
          project.files.set(to, { ...acknowledgedState(moved, etag), previousEtag: file.state.etag });
        },
        onInFlight: () => {
          if (stale) return;
          ctx.cycle.inFlightFiles.set(fromKey, null);
          ctx.cycle.inFlightFiles.set(toKey, moved);
          ctx.cycle.inFlightMoves.push({ projectId: project.id, from: file.name, to });
        },
      });
      if (acknowledged && !stale && ctx.random.chance(0.25)) {
        await readBack(ctx, project, file.name, null);
        await readBack(ctx, project, to, project.files.get(to) ?? null);
      }
    } finally {
      if (!ctx.killed()) {
        ctx.cycle.busyFiles.delete(fromKey);
        ctx.cycle.busyFiles.delete(toKey);
      }
    }
  };
}

/**
 * Copies a file to a free name of the same project or, two times in five, of another project of the
 * account: a new file, revision 1, the same content and metadata.
 */
function copyFile(
  ctx: WorkloadContext,
  project: ProjectModel,
  file: { name: string; state: FileState },
): Operation | undefined {
  const others = writable(ctx).filter((other) => other.id !== project.id);
  const target = others.length > 0 && ctx.random.chance(0.4) ? ctx.random.pick(others) : project;
  const to = freeName(ctx, target);
  if (to === undefined) return undefined;
  const fromKey = fileKey(project.id, file.name);
  // The source is held too: the copy is of the version acknowledged.
  ctx.cycle.busyFiles.add(fromKey);
  const across = target.id !== project.id;
  const write = fileWrite(ctx, target, to, {
    kind: across ? 'copy to another project' : 'copy',
    expected: 201,
    after: fileState(file.state.content, file.state.metadata),
    ...(across && { sourceProjectId: project.id }),
    send: () =>
      post(
        ctx,
        `${filePath(project.id, file.name)}/copy`,
        {},
        across ? { to, project_id: target.id } : { to },
      ),
  });
  return async () => {
    try {
      await write();
    } finally {
      if (!ctx.killed()) ctx.cycle.busyFiles.delete(fromKey);
    }
  };
}
