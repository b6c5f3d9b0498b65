import type { Model } from './model.js';
import type { apiClient, Checker } from './verify.js';

/**
 * The change feed after each restart (extensions §7): every committed write has its event, and a reader
 * that follows the feed across crashes never sees a `seq` at or below one it saw before. The feed is
 * followed from where the previous check stopped, like a client would; what it has told is kept here.
 *
 * Checked: the current version of every file (acknowledged, or an in-flight write that landed: both
 * committed) was announced with its ETag; every project whose deletion was acknowledged or observed has
 * its `project.deleted`; every project the client created has its `project.created`.
 */
interface FeedSeen {
  since: number;
  readonly etags: Set<string>;
  readonly created: Set<string>;
  readonly deleted: Set<string>;
  events: number;
}

const seenOf = new WeakMap<Model, FeedSeen>();

interface EventJson {
  seq: number;
  type: string;
  project_id: string;
  etag: string | null;
}

export async function verifyChanges(
  model: Model,
  checker: Checker,
  api: ReturnType<typeof apiClient>,
): Promise<number> {
  let seen = seenOf.get(model);
  if (!seen) {
    seen = { since: 0, etags: new Set(), created: new Set(), deleted: new Set(), events: 0 };
    seenOf.set(model, seen);
  }
  for (;;) {
    const page = await api.get<{ changes: EventJson[]; next_since: number }>(
      `/api/changes?since=${seen.since}&limit=1000`,
    );
    for (const event of page.changes) {
      const after = seen.since;
      checker.check(event.seq > after, () => `the feed gave seq ${event.seq} after ${after}`);
      seen.since = Math.max(seen.since, event.seq);
      seen.events++;
      if (event.etag !== null) seen.etags.add(event.etag);
      if (event.type === 'project.created') seen.created.add(event.project_id);
      if (event.type === 'project.deleted') seen.deleted.add(event.project_id);
    }
    if (page.changes.length === 0) break;
  }
  const state = seen;
  for (const project of model.active.values()) {
    checker.check(state.created.has(project.id), () => `project ${project.id} has no project.created event`);
    for (const [name, file] of project.files) {
      if (file.etag === undefined) continue;
      checker.check(
        state.etags.has(file.etag),
        () => `${project.id}/${name}: version ${file.etag} has no change event`,
      );
    }
  }
  for (const id of model.deleted.keys()) {
    checker.check(state.deleted.has(id), () => `project ${id} was deleted but has no project.deleted event`);
  }
  return state.events;
}
