import type { InFlightChangeset } from './changesets.js';
import { acknowledgedState, continued } from './history.js';
import { json, request } from './http-client.js';
import { type FileState, fileKey, fileState, type ProjectModel } from './model.js';
import { sleep } from './random.js';
import {
  auth,
  FILENAMES,
  makeContent,
  type Operation,
  perform,
  readBack,
  type WorkloadContext,
} from './workload.js';

/**
 * A project as it was (extensions §16) in the crash workload: while no other request touches a project's
 * files (every name of the project is held), the time is noted, a changeset
 * puts new contents of 1–2 names (a new file among them, sometimes), then `POST …/restore {"as_of"}`
 * brings the project back to that time: the files the changeset created are deleted (into the trash of
 * a project that keeps one), those it changed
 * get their content and metadata of then back (a file whose revision of then was pruned by
 * `keep_revisions` is reported `unrecoverable` and left as it is). A dry run first says what the restore
 * will do, and must say what the model expects. A restore cut off by the kill is one changeset: after the
 * restart all of its files are found as they were then, or none is (`checkInFlightChangesets`).
 */

interface RestoredFile {
  readonly filename: string;
  readonly before: FileState | null;
  readonly after: FileState;
}

interface RestorePlan {
  created: { filename: string }[];
  changed: { filename: string; from: string | null }[];
  deleted: { filename: string }[];
  unrecoverable: { filename: string; reason: string }[];
}

export function restoreAsOfOperation(ctx: WorkloadContext, project: ProjectModel): Operation | undefined {
  const keys = FILENAMES.map((name) => fileKey(project.id, name));
  if (keys.some((key) => ctx.cycle.busyFiles.has(key))) return undefined;
  for (const key of keys) ctx.cycle.busyFiles.add(key);
  const count = ctx.random.int(1, 2);
  const names: string[] = [];
  while (names.length < count) {
    const name = ctx.random.pick(FILENAMES);
    if (!names.includes(name)) names.push(name);
  }
  const maxBytes = Math.floor(ctx.maxFileBytes / 4);
  const contents = names.map(() => makeContent(ctx.random, maxBytes));
  const headers = { ...auth(ctx.model), 'content-type': 'application/json' };
  return async () => {
    try {
      // What the project holds now: no request of it is in flight, each acknowledged one is in the model.
      const then = new Map(project.files);
      const asOf = Date.now();
      await sleep(5);
      const files: RestoredFile[] = names.map((filename, index) => {
        const before = then.get(filename) ?? null;
        const state = fileState(contents[index]!, before?.metadata ?? null);
        return { filename, before, after: before ? continued(state, before) : state };
      });
      const changed = await perform(ctx, {
        kind: 'changeset before a restore as of',
        projectId: project.id,
        expected: 200,
        send: () =>
          request(ctx.baseUrl, {
            method: 'POST',
            path: `/api/projects/${project.id}/changesets`,
            headers,
            body: Buffer.from(
              JSON.stringify({
                message: 'crash suite: to be undone',
                operations: files.map((file) => ({
                  op: 'put',
                  filename: file.filename,
                  content: file.after.content.toString('utf8'),
                })),
              }),
            ),
          }),
        onAcknowledged: (reply) => {
          const answer = reply.truncated ? undefined : (json(reply) as { files: { etag: string }[] });
          for (const [index, file] of files.entries()) {
            project.files.set(file.filename, {
              ...acknowledgedState(file.after, answer?.files[index]?.etag),
              previousEtag: file.before?.etag,
            });
          }
        },
        onInFlight: () => {
          for (const file of files)
            ctx.cycle.inFlightFiles.set(fileKey(project.id, file.filename), file.after);
          ctx.cycle.inFlightChangesets.push({ projectId: project.id, files });
        },
      });
      if (!changed) return;
      const restore = (dryRun: boolean) => () =>
        request(ctx.baseUrl, {
          method: 'POST',
          path: `/api/projects/${project.id}/restore`,
          headers,
          body: Buffer.from(JSON.stringify({ as_of: new Date(asOf).toISOString(), dry_run: dryRun })),
        });
      let plan: RestorePlan | undefined;
      await perform(ctx, {
        kind: 'restore as of (dry run)',
        projectId: project.id,
        expected: 200,
        send: restore(true),
        onAcknowledged: (reply) => {
          if (!reply.truncated) plan = json(reply) as RestorePlan;
        },
        // A dry run writes nothing, cut off or not.
        onInFlight: () => {},
      });
      if (plan === undefined) return;
      // What it must say: the files the changeset created are deleted, the others go back to their
      // version of then, unless `keep_revisions` pruned it (the changeset's revision pushed it out).
      const sorted = (list: { filename: string }[]) => list.map((entry) => entry.filename).sort();
      const pruned = new Set(
        plan.unrecoverable.filter((u) => u.reason === 'history_pruned').map((u) => u.filename),
      );
      const expected = {
        created: [],
        deleted: files.filter((file) => file.before === null).map((file) => file.filename),
        changed: files
          .filter((file) => file.before !== null && !pruned.has(file.filename))
          .map((file) => file.filename),
      };
      const prunable = (project.keepRevisions ?? 20) <= 1;
      const answered = {
        created: sorted(plan.created),
        deleted: sorted(plan.deleted),
        changed: sorted(plan.changed),
      };
      if (
        JSON.stringify(answered) !==
          JSON.stringify({
            ...expected,
            deleted: expected.deleted.sort(),
            changed: expected.changed.sort(),
          }) ||
        (pruned.size > 0 && !prunable) ||
        plan.unrecoverable.some((u) => u.reason !== 'history_pruned')
      ) {
        ctx.cycle.violations.push(
          `restore as of in ${project.id} would do ${JSON.stringify(plan)}; expected ${JSON.stringify(expected)}`,
        );
        return;
      }
      // Each file the restore writes, as it will be: deleted, or its version of then continued.
      const restored = files
        .filter((file) => !pruned.has(file.filename))
        .map((file) => {
          const now = project.files.get(file.filename)!;
          const after =
            file.before === null
              ? null
              : {
                  ...continued(fileState(file.before.content, file.before.metadata), now),
                  previousEtag: now.etag,
                };
          return { filename: file.filename, after };
        });
      if (restored.length === 0) return;
      // In a project with a trash, what the restore deletes goes there, as it is now (extensions §5).
      const trashed = restored
        .filter((file) => file.after === null)
        .map((file) => ({ filename: file.filename, state: project.files.get(file.filename)! }));
      const acknowledged = await perform(ctx, {
        kind: 'restore as of',
        projectId: project.id,
        expected: 200,
        send: restore(false),
        onAcknowledged: () => {
          for (const file of restored) {
            if (file.after === null) project.files.delete(file.filename);
            else project.files.set(file.filename, file.after);
          }
          project.trash?.push(...trashed);
        },
        onInFlight: () => {
          if (project.trash)
            for (const item of trashed) ctx.cycle.inFlightTrash.set(fileKey(project.id, item.filename), item);
          for (const file of restored)
            ctx.cycle.inFlightFiles.set(fileKey(project.id, file.filename), file.after);
          const cutOff: InFlightChangeset = { projectId: project.id, files: restored };
          ctx.cycle.inFlightChangesets.push(cutOff);
        },
      });
      if (acknowledged && ctx.random.chance(0.5)) {
        for (const file of restored) await readBack(ctx, project, file.filename, file.after);
      }
    } finally {
      if (!ctx.killed()) for (const key of keys) ctx.cycle.busyFiles.delete(key);
    }
  };
}
