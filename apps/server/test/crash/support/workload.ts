import { randomUUID } from 'node:crypto';
import { applyEdits, type MarkdownEdit } from '@mdstore/core';
import { attachmentOperation } from './attachments.js';
import { changesetOperation } from './changesets.js';
import { acknowledgedState, continued, historyOperation } from './history.js';
import { json, multipart, type Reply, request } from './http-client.js';
import { importOperation } from './imports.js';
import {
  bump,
  type Cycle,
  type FileState,
  fileKey,
  fileState,
  type JsonObject,
  type Model,
  type ProjectModel,
  type Stats,
} from './model.js';
import { type Random, sleep } from './random.js';
import { restoreAsOfOperation } from './restore-as-of.js';
import { trashOperation } from './trash.js';

export interface WorkloadContext {
  readonly baseUrl: string;
  readonly model: Model;
  readonly cycle: Cycle;
  readonly stats: Stats;
  readonly random: Random;
  readonly maxFileBytes: number;
  /** True from the moment the kill is decided: failures after it are crash outcomes, not bugs. */
  readonly killed: () => boolean;
}

/** Names a project's files are drawn from: two that differ only by case, NFC/NFD twins, an `.mdx`. */
export const FILENAMES = [
  'a.md',
  'A.md',
  'notes.mdx',
  'guide.MD',
  'caf\u00e9.md',
  'cafe\u0301.md',
  '\u65e5\u672c\u8a9e.md',
  'deep dive (1).md',
  'z-last.md',
];

const FRAGMENTS = [
  'Plain ASCII words, a line of prose. ',
  '## A heading\n',
  '- a list item with `code`\n',
  'caf\u00e9 cr\u00e8me br\u00fbl\u00e9e ',
  '\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8 ',
  '\u{1f4dd}\u{1f680} ',
  '\n\n',
  '> a quote\n',
];

/** Valid UTF-8 of a random size, never above the limit, starting with a marker unique to this version. */
export function makeContent(random: Random, maxBytes: number): Buffer {
  const roll = random.next();
  const target =
    roll < 0.55
      ? random.int(1, 4096)
      : roll < 0.85
        ? random.int(4096, 65536)
        : random.int(65536, Math.floor(maxBytes * 0.95));
  const parts: Buffer[] = [];
  if (random.chance(0.1)) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  parts.push(Buffer.from(`# version ${randomUUID()}\n`));
  let size = parts.reduce((sum, part) => sum + part.length, 0);
  while (size < target) {
    const fragment = Buffer.from(random.pick(FRAGMENTS));
    if (size + fragment.length > maxBytes) break;
    parts.push(fragment);
    size += fragment.length;
  }
  return Buffer.concat(parts);
}

/** A metadata object; integers only, since JSON numbers beyond 2^53 are not promised to round-trip. */
export function makeMetadata(random: Random): JsonObject {
  return {
    version: randomUUID(),
    n: random.int(-1_000_000, 1_000_000),
    tags: Array.from({ length: random.int(0, 4) }, (_, i) => `tag-${i}`),
    nested: { level: { deep: random.chance(0.5), text: 'caf\u00e9 \u65e5\u672c' } },
  };
}

const slowness = (random: Random) =>
  random.chance(0.35) ? { pieces: random.int(4, 12), pauseMs: random.int(15, 80) } : {};

export const auth = (model: Model) => ({ authorization: `Bearer ${model.apiKey}` });
export const filePath = (projectId: string, filename: string) =>
  `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;

/** Sends random writes until the kill. Writes to one file never overlap, so the model stays exact. */
export async function runWorker(ctx: WorkloadContext): Promise<void> {
  while (!ctx.killed()) {
    const operation = chooseOperation(ctx);
    if (operation) await operation();
    else await sleep(5);
  }
}

export type Operation = () => Promise<void>;

function chooseOperation(ctx: WorkloadContext): Operation | undefined {
  const roll = ctx.random.next();
  if (roll < 0.08) return createProject(ctx);
  if (roll < 0.13) return deleteProject(ctx);
  const project = pickProject(ctx);
  if (!project) return undefined;
  if (roll < 0.25) return trashOperation(ctx, project) ?? uploadFile(ctx, project);
  // Extensions §9: several files in one changeset.
  if (roll < 0.3) return changesetOperation(ctx, project) ?? uploadFile(ctx, project);
  // Extensions §10: an archive imported as one changeset (imports.ts).
  if (roll < 0.33) return importOperation(ctx, project) ?? uploadFile(ctx, project);
  // Extensions §16: the project as it was before a changeset (restore-as-of.ts).
  if (roll < 0.35) return restoreAsOfOperation(ctx, project) ?? uploadFile(ctx, project);
  // Extensions §12: attachments beside the files (attachments.ts).
  if (roll < 0.4) return attachmentOperation(ctx, project) ?? uploadFile(ctx, project);
  if (roll < 0.45) return uploadFile(ctx, project);
  const existing = pickFile(ctx, project);
  if (!existing) return uploadFile(ctx, project);
  if (roll < 0.55) return updateContent(ctx, project, existing);
  if (roll < 0.65) return editFile(ctx, project, existing) ?? updateContent(ctx, project, existing);
  if (roll < 0.79) return updateMetadata(ctx, project, existing);
  // Extensions §5: restore, move, copy (history.ts).
  if (roll < 0.91) return historyOperation(ctx, project, existing) ?? updateMetadata(ctx, project, existing);
  return deleteFile(ctx, project, existing);
}

export const writable = (ctx: WorkloadContext) =>
  [...ctx.model.active.values()].filter((project) => !ctx.cycle.deleting.has(project.id));

const pickProject = (ctx: WorkloadContext) => {
  const projects = writable(ctx);
  return projects.length > 0 ? ctx.random.pick(projects) : undefined;
};

function pickFile(
  ctx: WorkloadContext,
  project: ProjectModel,
): { name: string; state: FileState } | undefined {
  const free = [...project.files].filter(([name]) => !ctx.cycle.busyFiles.has(fileKey(project.id, name)));
  if (free.length === 0) return undefined;
  const [name, state] = ctx.random.pick(free);
  return { name, state };
}

/**
 * Runs one request and files its outcome: a 2xx is acknowledged and applied to the model; a 404 on a
 * project being deleted says its deletion committed; a request cut off by the kill is in flight; any
 * other answer, or a failure while the server was up, is a violation.
 */
export async function perform(
  ctx: WorkloadContext,
  o: {
    kind: string;
    projectId?: string;
    /** A second project the request reads (a copy's source when it writes to another project). */
    sourceProjectId?: string;
    expected: number;
    send: () => Promise<Reply>;
    onAcknowledged: (reply: Reply) => void;
    onInFlight: () => void;
  },
): Promise<boolean> {
  let reply: Reply;
  try {
    reply = await o.send();
  } catch (error) {
    if (ctx.killed()) {
      bump(ctx.stats.inFlight, o.kind);
      o.onInFlight();
    } else ctx.cycle.violations.push(`${o.kind} failed while the server was up: ${String(error)}`);
    return false;
  }
  if (reply.status === o.expected) {
    bump(ctx.stats.acknowledged, o.kind);
    o.onAcknowledged(reply);
    return true;
  }
  const racing = [o.projectId, o.sourceProjectId].filter(
    (id): id is string => id !== undefined && ctx.cycle.deleting.has(id),
  );
  if (reply.status === 404 && racing.length > 0) {
    ctx.stats.rejected++;
    // Which project is gone is certain only when one of them was being deleted.
    if (racing.length === 1) ctx.cycle.reportedGone.add(racing[0]!);
    return false;
  }
  ctx.cycle.violations.push(
    `${o.kind} answered ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`,
  );
  return false;
}

/**
 * How a write to an existing file is conditioned: not at all, with `If-Match` of the ETag last
 * acknowledged (it must succeed: writes to one file never overlap), or with a stale one (it must be 412
 * and change nothing, even if the kill cuts it off).
 */
export type Condition = 'none' | 'current' | 'stale';

export function chooseCondition(ctx: WorkloadContext, state: FileState): Condition {
  if (state.etag === undefined) return 'none';
  const roll = ctx.random.next();
  return roll < 0.35 ? 'current' : roll < 0.47 ? 'stale' : 'none';
}

/** The `If-Match` header of a condition, or nothing. */
export function ifMatch(condition: Condition, state: FileState): Record<string, string> {
  if (condition === 'current') return { 'if-match': state.etag as string };
  if (condition === 'stale')
    return { 'if-match': state.previousEtag ?? `"${randomUUID().replaceAll('-', '')}-1"` };
  return {};
}

/** Holds a file for the duration of one write; the in-flight version is noted if the kill interrupts it. */
export function fileWrite(
  ctx: WorkloadContext,
  project: ProjectModel,
  filename: string,
  o: {
    kind: string;
    expected: number;
    after: FileState | null;
    send: () => Promise<Reply>;
    /** The state before, and how the write is conditioned on it (uploads: none). */
    before?: FileState;
    /** The project of the file the write copies, when it is another one (a 404 may be its deletion). */
    sourceProjectId?: string;
    condition?: Condition;
    /** Besides the file's new state: what an acknowledged (not 412) or cut-off write also did. */
    alsoAcknowledged?: () => void;
    alsoInFlight?: () => void;
  },
): Operation {
  const key = fileKey(project.id, filename);
  const stale = o.condition === 'stale';
  const kind =
    o.condition === undefined || o.condition === 'none' ? o.kind : `${o.kind} (If-Match ${o.condition})`;
  ctx.cycle.busyFiles.add(key);
  return async () => {
    try {
      const acknowledged = await perform(ctx, {
        kind,
        projectId: project.id,
        ...(o.sourceProjectId !== undefined && { sourceProjectId: o.sourceProjectId }),
        expected: stale ? 412 : o.expected,
        send: o.send,
        onAcknowledged: (reply) => {
          if (stale) {
            // An acknowledged 412 changed nothing, and says which version is current.
            const current = o.before?.etag;
            if (reply.headers.etag !== current) {
              ctx.cycle.violations.push(
                `412 on ${project.id}/${filename} names ETag ${String(reply.headers.etag)}, the file's is ${current}`,
              );
            }
            return;
          }
          if (o.after === null) project.files.delete(filename);
          else {
            const etag = typeof reply.headers.etag === 'string' ? reply.headers.etag : undefined;
            project.files.set(filename, {
              ...acknowledgedState(o.after, etag),
              previousEtag: o.before?.etag,
            });
          }
          o.alsoAcknowledged?.();
        },
        // A stale write can never land: the file must be found exactly as acknowledged.
        onInFlight: () => {
          if (stale) return;
          ctx.cycle.inFlightFiles.set(key, o.after);
          o.alsoInFlight?.();
        },
      });
      const expectedAfter = stale ? (o.before ?? null) : o.after;
      if (acknowledged && (stale || ctx.random.chance(0.25)))
        await readBack(ctx, project, filename, expectedAfter);
    } finally {
      if (!ctx.killed()) ctx.cycle.busyFiles.delete(key);
    }
  };
}

/** Read-after-write: right after the 2xx, a read sees the new content (or, after a delete, no file). */
export async function readBack(
  ctx: WorkloadContext,
  project: ProjectModel,
  filename: string,
  expected: FileState | null,
): Promise<void> {
  let reply: Reply;
  try {
    reply = await request(ctx.baseUrl, {
      method: 'GET',
      path: filePath(project.id, filename),
      headers: auth(ctx.model),
    });
  } catch (error) {
    if (!ctx.killed()) ctx.cycle.violations.push(`read-back of ${filename} failed: ${String(error)}`);
    return;
  }
  if (reply.truncated || (reply.status === 404 && ctx.cycle.deleting.has(project.id))) return;
  ctx.stats.readBacks++;
  const ok =
    expected === null
      ? reply.status === 404
      : reply.status === 200 &&
        reply.body.equals(expected.content) &&
        (expected.etag === undefined || reply.headers.etag === expected.etag);
  if (!ok) {
    ctx.cycle.violations.push(
      `read-after-write of ${project.id}/${filename}: got ${reply.status} with ${reply.body.length} bytes, ` +
        `expected ${expected === null ? '404' : `${expected.content.length} bytes`}`,
    );
  }
}

function uploadFile(ctx: WorkloadContext, project: ProjectModel): Operation | undefined {
  const free = FILENAMES.filter(
    (name) => !project.files.has(name) && !ctx.cycle.busyFiles.has(fileKey(project.id, name)),
  );
  if (free.length === 0) return undefined;
  const filename = ctx.random.pick(free);
  const content = makeContent(ctx.random, ctx.maxFileBytes);
  const metadata = ctx.random.chance(0.7) ? makeMetadata(ctx.random) : null;
  const parts = [{ name: 'file', filename, contentType: 'text/markdown', data: content }];
  if (metadata !== null) {
    const field = { name: 'metadata', data: Buffer.from(JSON.stringify(metadata)) };
    // The metadata part may come before or after the content.
    if (ctx.random.chance(0.5)) parts.unshift(field as (typeof parts)[number]);
    else parts.push(field as (typeof parts)[number]);
  }
  const form = multipart(parts);
  const slow = slowness(ctx.random);
  return fileWrite(ctx, project, filename, {
    kind: 'upload',
    expected: 201,
    after: fileState(content, metadata),
    send: () =>
      request(ctx.baseUrl, {
        method: 'POST',
        path: `/api/projects/${project.id}/files`,
        headers: { ...auth(ctx.model), 'content-type': form.contentType },
        body: form.body,
        ...slow,
      }),
  });
}

function updateContent(
  ctx: WorkloadContext,
  project: ProjectModel,
  file: { name: string; state: FileState },
): Operation {
  const content = makeContent(ctx.random, ctx.maxFileBytes);
  const slow = slowness(ctx.random);
  const condition = chooseCondition(ctx, file.state);
  return fileWrite(ctx, project, file.name, {
    kind: 'content update',
    expected: 200,
    after: continued(fileState(content, file.state.metadata), file.state),
    before: file.state,
    condition,
    send: () =>
      request(ctx.baseUrl, {
        method: 'PUT',
        path: `${filePath(project.id, file.name)}/content`,
        headers: {
          ...auth(ctx.model),
          ...ifMatch(condition, file.state),
          'content-type': 'text/markdown; charset=utf-8',
        },
        body: content,
        ...slow,
      }),
  });
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Edits that keep the file unique to this version: the version marker replaced, lines added. */
function editsFor(random: Random, text: string): MarkdownEdit[] {
  const marker = randomUUID();
  const version = /# version [0-9a-f-]{36}/.exec(text);
  if (version && random.chance(0.5)) {
    return [
      { op: 'replace', old: version[0], new: `# version ${marker}`, count: 1 },
      { op: 'append', text: `edited ${marker}\n` },
    ];
  }
  return [
    { op: 'prepend', text: `<!-- ${marker} -->\n` },
    { op: 'insert', line: 2, text: `- edit ${marker}` },
    { op: 'append', text: `\nend ${marker}\n` },
  ];
}

/**
 * A PATCH whose acknowledged result is the new state: the edits applied to the model's content by the
 * core's own `applyEdits`, which must be what the server stored, byte for byte.
 */
function editFile(
  ctx: WorkloadContext,
  project: ProjectModel,
  file: { name: string; state: FileState },
): Operation | undefined {
  const edits = editsFor(ctx.random, decoder.decode(file.state.content));
  const after = Buffer.from(
    applyEdits(decoder.decode(file.state.content), edits, { mdx: /\.mdx$/i.test(file.name) }),
    'utf8',
  );
  if (after.length > ctx.maxFileBytes) return undefined;
  return fileWrite(ctx, project, file.name, {
    kind: 'edit',
    expected: 200,
    after: continued(fileState(after, file.state.metadata), file.state),
    send: () =>
      request(ctx.baseUrl, {
        method: 'PATCH',
        path: filePath(project.id, file.name),
        headers: { ...auth(ctx.model), 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ edits })),
      }),
  });
}

function updateMetadata(
  ctx: WorkloadContext,
  project: ProjectModel,
  file: { name: string; state: FileState },
): Operation {
  const metadata = ctx.random.chance(0.15) ? null : makeMetadata(ctx.random);
  const condition = chooseCondition(ctx, file.state);
  return fileWrite(ctx, project, file.name, {
    kind: 'metadata update',
    expected: 200,
    after: continued(fileState(file.state.content, metadata), file.state),
    before: file.state,
    condition,
    send: () =>
      request(ctx.baseUrl, {
        method: 'PUT',
        path: filePath(project.id, file.name),
        headers: {
          ...auth(ctx.model),
          ...ifMatch(condition, file.state),
          'content-type': 'application/json',
        },
        body: Buffer.from(JSON.stringify({ metadata })),
      }),
  });
}

function deleteFile(
  ctx: WorkloadContext,
  project: ProjectModel,
  file: { name: string; state: FileState },
): Operation {
  const condition = chooseCondition(ctx, file.state);
  // In a project with a trash (extensions §5) the file goes there, content, metadata and history kept.
  const trashed = { filename: file.name, state: file.state };
  return fileWrite(ctx, project, file.name, {
    kind: project.trash ? 'delete to trash' : 'file delete',
    expected: 204,
    after: null,
    before: file.state,
    condition,
    ...(project.trash && {
      alsoAcknowledged: () => project.trash?.push(trashed),
      alsoInFlight: () => ctx.cycle.inFlightTrash.set(fileKey(project.id, file.name), trashed),
    }),
    send: () =>
      request(ctx.baseUrl, {
        method: 'DELETE',
        path: filePath(project.id, file.name),
        headers: { ...auth(ctx.model), ...ifMatch(condition, file.state) },
      }),
  });
}

const MAX_EXTRA_PROJECTS = 4;
export const TRASH_RETENTION_DAYS = 30;

function createProject(ctx: WorkloadContext): Operation | undefined {
  const extra = [...ctx.model.active.values()].filter((project) => !project.isDefault).length;
  if (extra + ctx.cycle.inFlightCreates.size >= MAX_EXTRA_PROJECTS) return undefined;
  const name = `crash ${randomUUID().slice(0, 8)}`;
  // Short histories too, so that pruning happens under the kills (extensions §5).
  const keepRevisions = ctx.random.pick([1, 2, 3, 20]);
  // Noted as in flight until answered, so that the limit counts it.
  ctx.cycle.inFlightCreates.add(name);
  return async () => {
    await perform(ctx, {
      kind: 'project create',
      expected: 201,
      send: () =>
        request(ctx.baseUrl, {
          method: 'POST',
          path: '/api/projects',
          headers: { ...auth(ctx.model), 'content-type': 'application/json' },
          // Projects made here keep deleted files in a trash (extensions §5); the default project does not.
          body: Buffer.from(
            JSON.stringify({
              name,
              description: 'made by the crash suite',
              settings: { keep_revisions: keepRevisions, trash_retention_days: TRASH_RETENTION_DAYS },
            }),
          ),
        }),
      onAcknowledged: (reply) => {
        if (reply.truncated) {
          // Known to exist, id unknown: it must be found by name after the restart.
          ctx.cycle.acknowledgedCreates.add(name);
          return;
        }
        const view = json(reply) as { id: string; bucket_name: string };
        ctx.cycle.inFlightCreates.delete(name);
        ctx.model.active.set(view.id, {
          id: view.id,
          name,
          bucket: view.bucket_name,
          isDefault: false,
          keepRevisions,
          files: new Map(),
          trash: [],
        });
      },
      onInFlight: () => {},
    });
    if (!ctx.killed() && ctx.cycle.inFlightCreates.has(name)) ctx.cycle.inFlightCreates.delete(name);
  };
}

function deleteProject(ctx: WorkloadContext): Operation | undefined {
  const candidates = writable(ctx).filter((project) => !project.isDefault);
  if (candidates.length === 0) return undefined;
  const project = ctx.random.pick(candidates);
  ctx.cycle.deleting.add(project.id);
  return async () => {
    await perform(ctx, {
      kind: 'project delete',
      projectId: project.id,
      expected: 200,
      send: () =>
        request(ctx.baseUrl, {
          method: 'DELETE',
          path: `/api/projects/${project.id}`,
          headers: auth(ctx.model),
        }),
      onAcknowledged: () => {
        ctx.model.active.delete(project.id);
        ctx.model.deleted.set(project.id, project.bucket);
      },
      onInFlight: () => ctx.cycle.inFlightDeletes.add(project.id),
    });
  };
}
