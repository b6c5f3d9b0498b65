import { changesetAttachment } from './attachments.js';
import { acknowledgedState, continued } from './history.js';
import { json, request } from './http-client.js';
import { type AttachmentState, type FileState, fileKey, fileState, type ProjectModel } from './model.js';
import type { Checker, VerifyInput } from './verify.js';
import {
  auth,
  FILENAMES,
  makeContent,
  makeMetadata,
  type Operation,
  perform,
  readBack,
  type WorkloadContext,
} from './workload.js';

/**
 * Changesets in the crash workload (extensions §9): one request puts 2–4 files of a project (new
 * contents of existing files, and new files), some above the inline threshold, sometimes with the
 * current ETags as `if_match` and sometimes with one stale ETag (then 412 and nothing changes). A
 * changeset cut off by the kill must be found after the restart with all of its files at the new state,
 * or none of them (`checkInFlightChangesets`). Half the plain changesets also attach (or detach) an
 * attachment (extensions §12): it lands with the files or not at all (`verifyAttachments`).
 */

interface ChangesetFile {
  readonly filename: string;
  readonly before: FileState | null;
  readonly after: FileState;
}

/**
 * A changeset (or an import, imports.ts) cut off by the kill: all of its files landed, or none. A file
 * whose `after` is null is one it deletes: landed means absent.
 */
export interface InFlightChangeset {
  readonly projectId: string;
  readonly files: readonly { readonly filename: string; readonly after: FileState | null }[];
  /** The attachments it attached (or, `after` null, detached). */
  readonly attachments?: readonly { readonly path: string; readonly after: AttachmentState | null }[];
}

export function changesetOperation(ctx: WorkloadContext, project: ProjectModel): Operation | undefined {
  const free = FILENAMES.filter((name) => !ctx.cycle.busyFiles.has(fileKey(project.id, name)));
  if (free.length < 2) return undefined;
  const count = Math.min(free.length, ctx.random.int(2, 4));
  const names: string[] = [];
  while (names.length < count) {
    const name = ctx.random.pick(free);
    if (!names.includes(name)) names.push(name);
  }
  // At most a quarter of the limit each: the changeset stays within `maxFileBytes` × 4 of content.
  const maxBytes = Math.floor(ctx.maxFileBytes / 4);
  const files: ChangesetFile[] = names.map((filename) => {
    const before = project.files.get(filename) ?? null;
    const content = makeContent(ctx.random, maxBytes);
    const after = before
      ? continued(fileState(content, before.metadata), before)
      : fileState(content, ctx.random.chance(0.5) ? makeMetadata(ctx.random) : null);
    return { filename, before, after };
  });
  const withEtags = ctx.random.chance(0.4);
  // One stale ETag: the changeset must be refused whole (412), even if the kill cuts it off.
  const staleAt = files.findIndex((file) => file.before?.etag !== undefined);
  const stale = staleAt >= 0 && ctx.random.chance(0.15);
  const operations = files.map((file, index) => {
    const metadata = file.before === null ? { metadata: file.after.metadata } : {};
    const base = {
      op: 'put',
      filename: file.filename,
      content: file.after.content.toString('utf8'),
      ...metadata,
    };
    if (stale && index === staleAt)
      return { ...base, if_match: file.before?.previousEtag ?? '"00000000000000000000000000000000-1"' };
    if (!withEtags) return base;
    // A file whose ETag the client never saw (an import's answer gives none) is sent without if_match:
    // `null` would say it must not exist (a 412 the server rightly answers).
    if (file.before !== null && file.before.etag === undefined) return base;
    return { ...base, if_match: file.before?.etag ?? null };
  });
  const keys = files.map((file) => fileKey(project.id, file.filename));
  for (const key of keys) ctx.cycle.busyFiles.add(key);
  // Extensions §13: sometimes the same puts go through a draft, and its publish is the request the kill
  // may cut off (the draft's opening changes no file): all of it lands with the publish, or none.
  const viaDraft = !stale && ctx.random.chance(0.3);
  // Drafts hold file operations only; a stale changeset is refused whole anyway.
  const attachment =
    !stale && !viaDraft && ctx.random.chance(0.5) ? changesetAttachment(ctx, project) : undefined;
  const sent = attachment ? [...operations, attachment.operation] : operations;
  const kind = stale
    ? 'changeset (stale if_match)'
    : viaDraft
      ? 'draft publish'
      : `${withEtags ? 'changeset (if_match)' : 'changeset'}${attachment ? ' + attachment' : ''}`;
  const headers = { ...auth(ctx.model), 'content-type': 'application/json' };
  return async () => {
    try {
      let draftId: string | undefined;
      if (viaDraft) {
        const opened = await request(ctx.baseUrl, {
          method: 'POST',
          path: `/api/projects/${project.id}/drafts`,
          headers,
          body: Buffer.from(JSON.stringify({ title: 'crash suite', operations })),
        }).catch(() => undefined);
        // Killed while opening it: no file changed, nothing to follow. Refused while the server was up
        // (but for the bound on open drafts, which drafts left open by earlier kills may reach): a defect.
        if (opened === undefined || opened.truncated || opened.status === 409) return;
        if (opened.status !== 201) {
          if (!ctx.killed())
            ctx.cycle.violations.push(`draft open answered ${opened.status}: ${opened.body}`);
          return;
        }
        draftId = (json(opened) as { id: string }).id;
      }
      const acknowledged = await perform(ctx, {
        kind,
        projectId: project.id,
        expected: stale ? 412 : 200,
        send: () =>
          draftId !== undefined
            ? request(ctx.baseUrl, {
                method: 'POST',
                path: `/api/projects/${project.id}/drafts/${draftId}/publish`,
                headers: auth(ctx.model),
              })
            : request(ctx.baseUrl, {
                method: 'POST',
                path: `/api/projects/${project.id}/changesets`,
                headers,
                body: Buffer.from(JSON.stringify({ message: 'crash suite', operations: sent })),
              }),
        onAcknowledged: (reply) => {
          if (stale) return;
          if (reply.truncated) {
            // Acknowledged, answer cut off: every file is at its new state, ETags unknown.
            for (const file of files) project.files.set(file.filename, file.after);
            attachment?.acknowledged(undefined);
            return;
          }
          const answer = json(reply) as { files: { etag: string }[] };
          attachment?.acknowledged(answer.files[files.length]?.etag);
          for (const [index, file] of files.entries()) {
            project.files.set(file.filename, {
              ...acknowledgedState(file.after, answer.files[index]?.etag),
              previousEtag: file.before?.etag,
            });
          }
        },
        onInFlight: () => {
          if (stale) return;
          for (const file of files)
            ctx.cycle.inFlightFiles.set(fileKey(project.id, file.filename), file.after);
          attachment?.inFlight();
          ctx.cycle.inFlightChangesets.push({
            projectId: project.id,
            files,
            ...(attachment && { attachments: [{ path: attachment.path, after: attachment.after }] }),
          });
        },
      });
      if (acknowledged && ctx.random.chance(0.25)) {
        for (const file of files) {
          await readBack(
            ctx,
            project,
            file.filename,
            stale ? file.before : (project.files.get(file.filename) ?? null),
          );
        }
      }
    } finally {
      if (!ctx.killed()) {
        for (const key of keys) ctx.cycle.busyFiles.delete(key);
        attachment?.done();
      }
    }
  };
}

/** After a restart: of each changeset cut off by the kill, every file is new, or none is. */
export function checkInFlightChangesets(
  input: Pick<VerifyInput, 'cycle'>,
  checker: Checker,
  project: ProjectModel,
  observed: ReadonlyMap<string, FileState>,
): void {
  for (const changeset of input.cycle.inFlightChangesets) {
    if (changeset.projectId !== project.id) continue;
    const landed = changeset.files.map((file) => {
      const seen = observed.get(file.filename);
      if (file.after === null) return seen === undefined;
      return seen !== undefined && seen.sha256 === file.after.sha256;
    });
    const count = landed.filter(Boolean).length;
    checker.check(
      count === 0 || count === landed.length,
      () =>
        `changeset cut off by the kill landed partly in ${project.id}: ` +
        changeset.files.map((file, i) => `${file.filename} ${landed[i] ? 'new' : 'old'}`).join(', '),
    );
  }
}
