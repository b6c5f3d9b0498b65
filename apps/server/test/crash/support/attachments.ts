import { randomBytes } from 'node:crypto';
import { request } from './http-client.js';
import { type AttachmentState, type ProjectModel, sha256 } from './model.js';
import type { StoreSnapshot } from './store-inspection.js';
import type { apiClient, Checker, VerifyInput } from './verify.js';
import { auth, type Operation, perform, type WorkloadContext } from './workload.js';

/**
 * Attachments in the crash suite (extensions §12): creates, replaces (sometimes with bytes another path
 * already holds, so the commit points at the existing blob and drops its own), deletes and moves, with
 * bodies sometimes sent slowly so that the kill lands mid-stream. After each restart every acknowledged
 * write is there byte for byte and every cut-off one whole or not at all (a cut-off move: at exactly one
 * of its two paths; checked through the API), and in the
 * stores the counters equal the records, every record's blob is there with its digest, and no blob is
 * left that neither a revision nor an attachment points to (verify.ts, `checkContents`).
 */

/** Paths drawn from: folders, a space, a non-ASCII name, and two that differ only by case. */
export const ATTACHMENT_PATHS = ['a.bin', 'A.bin', 'img/b.bin', 'img/deep/c.txt', 'd e.bin', 'caf\u00e9.bin'];
const TYPES = ['application/octet-stream', 'text/plain; charset=utf-8'];

export const attachmentKey = (projectId: string, path: string) => `${projectId}\0${path}`;
const attachmentUrl = (projectId: string, path: string) =>
  `/api/projects/${projectId}/attachments/${encodeURIComponent(path)}`;

const attachmentsOf = (project: ProjectModel): Map<string, AttachmentState> => {
  if (!project.attachments) project.attachments = new Map();
  return project.attachments;
};

/** A write (create or replace) of a free path, or of one the project holds; or a delete of one. */
export function attachmentOperation(ctx: WorkloadContext, project: ProjectModel): Operation | undefined {
  const held = attachmentsOf(project);
  const free = ATTACHMENT_PATHS.filter(
    (path) => !ctx.cycle.busyAttachments.has(attachmentKey(project.id, path)),
  );
  if (free.length === 0) return undefined;
  const path = ctx.random.pick(free);
  const before = held.get(path) ?? null;
  const targets = free.filter((target) => !held.has(target));
  if (before !== null && targets.length > 0 && ctx.random.chance(0.25))
    return move(ctx, project, path, ctx.random.pick(targets), before);
  if (before !== null && ctx.random.chance(0.3)) return write(ctx, project, path, before, null);
  // One time in five, bytes another path of the project already holds: stored once.
  const others = [...held.values()].filter((state) => state !== before);
  const bytes =
    others.length > 0 && ctx.random.chance(0.2)
      ? ctx.random.pick(others).bytes
      : randomBytes(ctx.random.chance(0.8) ? ctx.random.int(1, 8192) : ctx.random.int(8192, 300_000));
  const after: AttachmentState = { bytes, sha256: sha256(bytes), contentType: ctx.random.pick(TYPES) };
  return write(ctx, project, path, before, after);
}

/**
 * An attachment operation of a changeset (extensions §9, §12; changesets.ts): an `attach` of new bytes
 * (sometimes bytes another path holds) or a `detach` of a held path, on a path no other operation is
 * writing (marked busy until `done`). The changeset lands it with its files, or none of them.
 */
export function changesetAttachment(ctx: WorkloadContext, project: ProjectModel) {
  const held = attachmentsOf(project);
  const free = ATTACHMENT_PATHS.filter(
    (path) => !ctx.cycle.busyAttachments.has(attachmentKey(project.id, path)),
  );
  if (free.length === 0) return undefined;
  const path = ctx.random.pick(free);
  const key = attachmentKey(project.id, path);
  const before = held.get(path) ?? null;
  let after: AttachmentState | null = null;
  if (before === null || !ctx.random.chance(0.3)) {
    const others = [...held.values()].filter((state) => state !== before);
    const bytes =
      others.length > 0 && ctx.random.chance(0.2)
        ? ctx.random.pick(others).bytes
        : randomBytes(ctx.random.int(1, 8192));
    after = { bytes, sha256: sha256(bytes), contentType: ctx.random.pick(TYPES) };
  }
  ctx.cycle.busyAttachments.add(key);
  const operation =
    after === null
      ? { op: 'detach', path }
      : {
          op: 'attach',
          path,
          content_base64: after.bytes.toString('base64'),
          content_type: after.contentType,
        };
  return {
    path,
    after,
    operation,
    /** Acknowledged: the path as the changeset left it (its ETag when the answer gave one). */
    acknowledged(etag: string | undefined) {
      if (after === null) held.delete(path);
      else held.set(path, { ...after, ...(etag !== undefined && { etag }) });
    },
    inFlight: () => ctx.cycle.inFlightAttachments.set(key, after),
    done: () => ctx.cycle.busyAttachments.delete(key),
  };
}

function write(
  ctx: WorkloadContext,
  project: ProjectModel,
  path: string,
  before: AttachmentState | null,
  after: AttachmentState | null,
): Operation {
  const key = attachmentKey(project.id, path);
  ctx.cycle.busyAttachments.add(key);
  const slow = ctx.random.chance(0.35)
    ? { pieces: ctx.random.int(4, 12), pauseMs: ctx.random.int(15, 80) }
    : {};
  return async () => {
    try {
      await perform(ctx, {
        kind:
          after === null ? 'attachment delete' : before === null ? 'attachment create' : 'attachment replace',
        projectId: project.id,
        expected: after === null ? 204 : before === null ? 201 : 200,
        send: () =>
          request(ctx.baseUrl, {
            method: after === null ? 'DELETE' : 'PUT',
            path: attachmentUrl(project.id, path),
            headers: { ...auth(ctx.model), ...(after !== null && { 'content-type': after.contentType }) },
            ...(after !== null && { body: after.bytes, ...slow }),
          }),
        onAcknowledged: (reply) => {
          if (after === null) attachmentsOf(project).delete(path);
          else {
            const etag = typeof reply.headers.etag === 'string' ? reply.headers.etag : undefined;
            attachmentsOf(project).set(path, { ...after, ...(etag !== undefined && { etag }) });
          }
        },
        onInFlight: () => ctx.cycle.inFlightAttachments.set(key, after),
      });
    } finally {
      if (!ctx.killed()) ctx.cycle.busyAttachments.delete(key);
    }
  };
}

/** A move of a held attachment to a free path (the same bytes there, none at the old path). */
function move(
  ctx: WorkloadContext,
  project: ProjectModel,
  from: string,
  to: string,
  state: AttachmentState,
): Operation {
  const keys = [attachmentKey(project.id, from), attachmentKey(project.id, to)];
  for (const key of keys) ctx.cycle.busyAttachments.add(key);
  return async () => {
    try {
      await perform(ctx, {
        kind: 'attachment move',
        projectId: project.id,
        expected: 200,
        send: () =>
          request(ctx.baseUrl, {
            method: 'POST',
            path: `${attachmentUrl(project.id, from)}/move`,
            headers: { ...auth(ctx.model), 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify({ to })),
          }),
        onAcknowledged: (reply) => {
          const etag = typeof reply.headers.etag === 'string' ? reply.headers.etag : undefined;
          attachmentsOf(project).delete(from);
          attachmentsOf(project).set(to, { ...state, ...(etag !== undefined && { etag }) });
        },
        onInFlight: () => {
          ctx.cycle.inFlightAttachments.set(keys[0]!, null);
          ctx.cycle.inFlightAttachments.set(keys[1]!, state);
          ctx.cycle.inFlightAttachmentMoves.push({ projectId: project.id, from, to });
        },
      });
    } finally {
      if (!ctx.killed()) for (const key of keys) ctx.cycle.busyAttachments.delete(key);
    }
  };
}

interface AttachmentJson {
  path: string;
  size_bytes: number;
  content_type: string;
  sha256: string;
  etag: string;
}

/**
 * After a restart, through the API: every path is as acknowledged, or (cut off by the kill) as the
 * write would have left it, whole; the listing's size and digest are the bytes served. The model then
 * takes what is seen.
 */
export async function verifyAttachments(
  input: VerifyInput,
  checker: Checker,
  api: ReturnType<typeof apiClient>,
  project: ProjectModel,
): Promise<void> {
  const listed: AttachmentJson[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page: { attachments: AttachmentJson[]; next_cursor: string | null } = await api.get(
      `/api/projects/${project.id}/attachments?limit=1000${query}`,
    );
    listed.push(...page.attachments);
    cursor = page.next_cursor;
  } while (cursor !== null);
  const observed = new Map<string, AttachmentState>();
  for (const item of listed) {
    const bytes = await api.download(attachmentUrl(project.id, item.path));
    checker.check(
      bytes.length === item.size_bytes && sha256(bytes) === item.sha256,
      () =>
        `attachment ${project.id}/${item.path}: listed ${item.size_bytes} bytes ${item.sha256}, served other bytes`,
    );
    observed.set(item.path, {
      bytes,
      sha256: sha256(bytes),
      contentType: item.content_type,
      etag: item.etag,
    });
    input.stats.bytesVerified += bytes.length;
    input.stats.attachmentsVerified++;
  }
  const held = attachmentsOf(project);
  const paths = new Set([...held.keys(), ...observed.keys()]);
  for (const key of input.cycle.inFlightAttachments.keys()) {
    const [projectId, path] = key.split('\0') as [string, string];
    if (projectId === project.id) paths.add(path);
  }
  const same = (a: AttachmentState | null, b: AttachmentState | null) =>
    a === null || b === null ? a === b : a.sha256 === b.sha256 && a.contentType === b.contentType;
  const describe = (state: AttachmentState | null) =>
    state === null
      ? 'absent'
      : `${state.bytes.length} bytes ${state.sha256.slice(0, 12)} (${state.contentType})`;
  for (const path of paths) {
    const acknowledged = held.get(path) ?? null;
    const key = attachmentKey(project.id, path);
    const inFlight = input.cycle.inFlightAttachments.has(key);
    const candidates = inFlight
      ? [acknowledged, input.cycle.inFlightAttachments.get(key) ?? null]
      : [acknowledged];
    const seen = observed.get(path) ?? null;
    const match = candidates.findIndex((candidate) => same(candidate, seen));
    checker.check(
      match >= 0,
      () =>
        `attachment ${project.id}/${path}: found ${describe(seen)}; expected ${candidates.map(describe).join(' or ')}`,
    );
    if (inFlight) {
      if (match === 1 && !same(acknowledged, seen)) input.stats.inFlightLanded++;
      else input.stats.inFlightNotLanded++;
    } else if (acknowledged?.etag !== undefined && seen !== null) {
      checker.check(
        seen.etag === acknowledged.etag,
        () => `attachment ${project.id}/${path}: ETag ${seen.etag}, acknowledged as ${acknowledged.etag}`,
      );
    }
  }
  // A cut-off move is whole or not at all: the attachment at exactly one of its two paths.
  for (const moved of input.cycle.inFlightAttachmentMoves.filter((m) => m.projectId === project.id)) {
    checker.check(
      observed.has(moved.from) !== observed.has(moved.to),
      () =>
        `attachment move ${project.id}/${moved.from} → ${moved.to} cut off: found at ` +
        `${[moved.from, moved.to].filter((path) => observed.has(path)).join(' and ') || 'neither path'}`,
    );
  }
  checkInFlightChangesetAttachments(input, checker, project, observed);
  held.clear();
  for (const [path, state] of observed) held.set(path, state);
}

/**
 * Of each changeset cut off by the kill that carried attachments: its files (as `verifyFiles` observed
 * them, now the model's) and its attachments all landed, or none of them.
 */
function checkInFlightChangesetAttachments(
  input: VerifyInput,
  checker: Checker,
  project: ProjectModel,
  observed: ReadonlyMap<string, AttachmentState>,
): void {
  for (const changeset of input.cycle.inFlightChangesets) {
    if (changeset.projectId !== project.id || !changeset.attachments?.length) continue;
    const landed = [
      ...changeset.files.map((file) => {
        const seen = project.files.get(file.filename);
        return file.after === null ? seen === undefined : seen?.sha256 === file.after.sha256;
      }),
      ...changeset.attachments.map((attachment) => {
        const seen = observed.get(attachment.path);
        return attachment.after === null ? seen === undefined : seen?.sha256 === attachment.after.sha256;
      }),
    ];
    const count = landed.filter(Boolean).length;
    checker.check(
      count === 0 || count === landed.length,
      () =>
        `changeset with attachments cut off by the kill landed partly in ${project.id}: ` +
        [...changeset.files.map((f) => f.filename), ...changeset.attachments!.map((a) => a.path)]
          .map((name, i) => `${name} ${landed[i] ? 'new' : 'old'}`)
          .join(', '),
    );
  }
}

/**
 * In the stores: the project's attachment counters equal its records, and every record's blob (and every
 * blob a deleted attachment's trash item holds) is in the project's bucket with the record's size and
 * digest. Returns the blob keys they point to, which `checkContents` counts as referenced.
 */
export function checkAttachmentRecords(
  checker: Checker,
  store: StoreSnapshot,
  project: StoreSnapshot['projects'][number],
): Set<string> {
  const records = store.attachments.filter((attachment) => attachment.projectId === project.id);
  const bytes = records.reduce((sum, attachment) => sum + attachment.sizeBytes, 0);
  checker.check(
    project.attachmentCount === records.length && project.attachmentBytes === bytes,
    () =>
      `project ${project.id} attachment counters ${project.attachmentCount}/${project.attachmentBytes} ` +
      `disagree with its records (${records.length}/${bytes})`,
  );
  // A deleted attachment in the trash (extensions §12) holds its blob until it is purged.
  const trashed = store.trash
    .filter((item) => item.projectId === project.id && item.kind === 'attachment')
    .map((item) => ({ path: `${item.filename} (in the trash)`, ...item, blobKey: item.contentKey }));
  const objects = store.buckets.get(project.bucket);
  for (const attachment of [...records, ...trashed]) {
    const stored = objects?.get(attachment.blobKey);
    checker.check(
      stored !== undefined &&
        stored.sizeBytes === attachment.sizeBytes &&
        stored.sha256 === attachment.sha256,
      () =>
        `blob ${project.bucket}/${attachment.blobKey} of attachment ${attachment.path} is ` +
        `${stored ? 'different' : 'missing'}`,
    );
  }
  return new Set([...records, ...trashed].map((attachment) => attachment.blobKey));
}
