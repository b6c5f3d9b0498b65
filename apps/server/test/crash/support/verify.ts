import { isDeepStrictEqual } from 'node:util';
import { checkAttachmentRecords, verifyAttachments } from './attachments.js';
import { checkInFlightChangesets } from './changesets.js';
import { json, request } from './http-client.js';
import {
  type Cycle,
  type FileState,
  fileKey,
  fileState,
  type JsonObject,
  type Model,
  type ProjectModel,
  type Stats,
} from './model.js';
import type { StoreSnapshot } from './store-inspection.js';
import { verifyTrash } from './trash.js';
import { checkTrashRecords, liveTrashFiles } from './trash-store.js';
import { verifyChanges } from './verify-changes.js';
import { checkInFlightMoves, observedVersion, verifyHistories } from './verify-history.js';

interface ProjectJson {
  id: string;
  name: string;
  bucket_name: string;
  is_default: boolean;
  is_active: boolean;
  file_count: number;
  total_size_bytes: number;
  settings: { keep_revisions: number };
}
interface FileJson {
  filename: string;
  size_bytes: number;
  metadata: JsonObject | null;
  etag: string;
  revision: number;
}

/** Collects violations and counts every check made. */
export class Checker {
  readonly violations: string[] = [];
  constructor(readonly stats: Stats) {}
  check(ok: boolean, message: () => string): boolean {
    this.stats.checks++;
    if (!ok) this.violations.push(message());
    return ok;
  }
}

const sameState = (a: FileState | null, b: FileState | null) =>
  a === null || b === null
    ? a === b
    : a.sha256 === b.sha256 && a.content.equals(b.content) && isDeepStrictEqual(a.metadata, b.metadata);

const describeState = (state: FileState | null) =>
  state === null
    ? 'absent'
    : `${state.content.length} bytes "${state.content.subarray(0, 50).toString('utf8').split('\n')[0]}" ` +
      `sha256 ${state.sha256.slice(0, 12)}, metadata ${JSON.stringify(state.metadata)?.slice(0, 80)}`;

export interface VerifyInput {
  readonly baseUrl: string;
  readonly model: Model;
  readonly cycle: Cycle;
  readonly stats: Stats;
  readonly instanceId: string;
  readonly snapshot: () => Promise<StoreSnapshot>;
}

/**
 * After a restart: every acknowledged write is there byte for byte, every write cut off by the kill is
 * there whole or not at all, counters agree with the files, and the stores hold nothing more and nothing
 * less than the records say. The model is then brought to the state observed, for the next cycle.
 */
export async function verifyAfterRestart(input: VerifyInput): Promise<string[]> {
  const checker = new Checker(input.stats);
  const api = apiClient(input);
  const listed = await api.get<{ projects: ProjectJson[]; total_count: number }>('/api/projects');
  checker.check(listed.total_count === listed.projects.length, () => 'total_count differs from the list');
  const byId = new Map(listed.projects.map((project) => [project.id, project]));
  resolveProjects(input, checker, listed.projects, byId);
  for (const project of input.model.active.values()) {
    const view = byId.get(project.id);
    if (view) await verifyFiles(input, checker, api, project, view);
    if (view?.is_active) await verifyTrash(input, (ok, message) => checker.check(ok, message), project);
    if (view?.is_active) await verifyAttachments(input, checker, api, project);
  }
  // Extensions §7: every committed write has its event; seqs only grow, across restarts too.
  input.stats.changeEventsVerified = await verifyChanges(input.model, checker, api);
  checkStore(input, checker, await input.snapshot());
  return checker.violations;
}

export function apiClient(input: VerifyInput) {
  const headers = { authorization: `Bearer ${input.model.apiKey}` };
  return {
    async get<T>(path: string): Promise<T> {
      const reply = await request(input.baseUrl, { method: 'GET', path, headers });
      if (reply.status !== 200)
        throw new Error(`GET ${path}: ${reply.status} ${reply.body.toString('utf8')}`);
      return json(reply) as T;
    },
    async download(path: string): Promise<Buffer> {
      const reply = await request(input.baseUrl, { method: 'GET', path, headers });
      if (reply.status !== 200 || reply.truncated) throw new Error(`GET ${path}: ${reply.status}`);
      return reply.body;
    },
  };
}

/** Settles every project: deletions that landed, creations that landed, and nothing unexplained. */
function resolveProjects(
  input: VerifyInput,
  checker: Checker,
  projects: ProjectJson[],
  byId: Map<string, ProjectJson>,
): void {
  const { model, cycle } = input;
  for (const project of [...model.active.values()]) {
    const view = byId.get(project.id);
    if (!checker.check(view !== undefined, () => `project ${project.id} vanished from the list`)) {
      model.active.delete(project.id);
      continue;
    }
    input.stats.projectsVerified++;
    if (view?.is_active) {
      checker.check(
        !cycle.reportedGone.has(project.id),
        () => `project ${project.id} answered 404 during its deletion, yet is active after the restart`,
      );
      continue;
    }
    checker.check(
      cycle.inFlightDeletes.has(project.id),
      () => `project ${project.id} is deleted though no deletion of it was sent`,
    );
    input.stats.inFlightLanded++;
    model.active.delete(project.id);
    model.deleted.set(project.id, project.bucket);
  }
  for (const id of cycle.inFlightDeletes) if (model.active.has(id)) input.stats.inFlightNotLanded++;
  for (const [id] of model.deleted) {
    const view = byId.get(id);
    checker.check(
      view !== undefined && !view.is_active && view.file_count === 0 && view.total_size_bytes === 0,
      () => `deleted project ${id} is ${JSON.stringify(view)}`,
    );
  }
  for (const view of projects) {
    if (model.active.has(view.id) || model.deleted.has(view.id)) continue;
    const explained =
      view.is_active && (cycle.inFlightCreates.has(view.name) || cycle.acknowledgedCreates.has(view.name));
    if (!checker.check(explained, () => `unexplained project ${JSON.stringify(view)}`)) continue;
    checker.check(view.file_count === 0, () => `a project just created has files: ${JSON.stringify(view)}`);
    if (cycle.inFlightCreates.has(view.name)) input.stats.inFlightLanded++;
    model.active.set(view.id, {
      id: view.id,
      name: view.name,
      bucket: view.bucket_name,
      isDefault: false,
      files: new Map(),
      trash: [],
    });
  }
  const activeNames = new Set([...model.active.values()].map((project) => project.name));
  for (const name of cycle.acknowledgedCreates) {
    checker.check(activeNames.has(name), () => `acknowledged project '${name}' is missing`);
  }
  for (const name of cycle.inFlightCreates) if (!activeNames.has(name)) input.stats.inFlightNotLanded++;
}

/** Downloads every file and matches it against the versions it may be; the model takes what is seen. */
async function verifyFiles(
  input: VerifyInput,
  checker: Checker,
  api: ReturnType<typeof apiClient>,
  project: ProjectModel,
  view: ProjectJson,
): Promise<void> {
  const base = `/api/projects/${project.id}/files`;
  const listing = await api.get<{ files: FileJson[]; total_count: number; total_size_bytes: number }>(base);
  const sum = listing.files.reduce((total, file) => total + file.size_bytes, 0);
  checker.check(
    view.file_count === listing.files.length &&
      view.total_size_bytes === sum &&
      listing.total_count === listing.files.length &&
      listing.total_size_bytes === sum,
    () =>
      `project ${project.id} counters ${view.file_count}/${view.total_size_bytes} but its files are ` +
      `${listing.files.length}/${sum} (listing says ${listing.total_count}/${listing.total_size_bytes})`,
  );
  const observed = new Map<string, FileState>();
  for (const file of listing.files) {
    const content = await api.download(`${base}/${encodeURIComponent(file.filename)}`);
    checker.check(
      content.length === file.size_bytes,
      () => `${file.filename}: size_bytes ${file.size_bytes} but ${content.length} bytes downloaded`,
    );
    observed.set(file.filename, { ...fileState(content, file.metadata, file.etag), revision: file.revision });
    input.stats.filesVerified++;
    input.stats.bytesVerified += content.length;
  }
  const names = new Set([...project.files.keys(), ...observed.keys()]);
  for (const [key] of input.cycle.inFlightFiles) {
    const [projectId, filename] = key.split('\0') as [string, string];
    if (projectId === project.id) names.add(filename);
  }
  for (const name of names) {
    const acknowledged = project.files.get(name) ?? null;
    const key = fileKey(project.id, name);
    const inFlight = input.cycle.inFlightFiles.has(key);
    const candidates = inFlight ? [acknowledged, input.cycle.inFlightFiles.get(key) ?? null] : [acknowledged];
    const seen = observed.get(name) ?? null;
    const match = candidates.findIndex((candidate) => sameState(candidate, seen));
    checker.check(
      match >= 0,
      () =>
        `${project.id}/${name}: found ${describeState(seen)}; expected ` +
        candidates.map(describeState).join(' or '),
    );
    // The version seen continues the history of the one it matched (extensions §5).
    if (seen !== null && match >= 0) observed.set(name, observedVersion(seen, candidates[match] ?? null));
    if (inFlight) {
      if (match === 1 && !sameState(acknowledged, seen)) input.stats.inFlightLanded++;
      else input.stats.inFlightNotLanded++;
    } else if (acknowledged?.etag !== undefined && seen !== null) {
      // An acknowledged write is the current version under the very ETag its answer gave.
      checker.check(
        seen.etag === acknowledged.etag,
        () => `${project.id}/${name}: ETag ${seen.etag}, acknowledged as ${acknowledged.etag}`,
      );
    }
  }
  checkInFlightChangesets(input, checker, project, observed);
  project.files.clear();
  for (const [name, state] of observed) project.files.set(name, state);
  checkInFlightMoves(input, checker, project);
  await verifyHistories(input, checker, api, project, view.settings.keep_revisions);
}

/**
 * The stores themselves: no intent left, no other instance registered, no project half-deleted,
 * counters equal to the file records, every record's blob present with its digest, and no blob or
 * bucket that no record points to.
 */
function checkStore(input: VerifyInput, checker: Checker, store: StoreSnapshot): void {
  const { model } = input;
  checker.check(store.intents.length === 0, () => `blob intents remain: ${JSON.stringify(store.intents)}`);
  checker.check(
    store.instances.length === 1 && store.instances[0]?.id === input.instanceId,
    () => `instances other than the running one remain: ${JSON.stringify(store.instances)}`,
  );
  checker.check(store.leftovers.length === 0, () => `leftovers: ${store.leftovers.join(', ')}`);
  const filesOf = new Map<string, StoreSnapshot['files'][number][]>();
  for (const file of store.files) filesOf.set(file.projectId, [...(filesOf.get(file.projectId) ?? []), file]);
  for (const project of store.projects) {
    const files = filesOf.get(project.id) ?? [];
    checker.check(project.status !== 'deleting', () => `project ${project.id} is left 'deleting'`);
    if (project.status === 'deleted') {
      checker.check(
        model.deleted.has(project.id) && files.length === 0 && !store.buckets.has(project.bucket),
        () => `deleted project ${project.id} has files, a bucket, or was never deleted`,
      );
      continue;
    }
    const expected = model.active.get(project.id);
    if (!checker.check(expected !== undefined, () => `record of an unknown project ${project.id}`)) continue;
    const revisions = store.revisions.filter((revision) => revision.projectId === project.id);
    const liveIds = new Set(files.map((file) => file.id));
    const history = historyBytes(
      files,
      revisions.filter((revision) => liveIds.has(revision.fileId)),
    );
    checker.check(
      project.fileCount === files.length &&
        project.totalSizeBytes === files.reduce((sum, file) => sum + file.sizeBytes, 0) &&
        project.historySizeBytes === history,
      () =>
        `project ${project.id} counters ${project.fileCount}/${project.totalSizeBytes}/${project.historySizeBytes} ` +
        `disagree with its records (history ${history})`,
    );
    checkRecordsAgainstModel(checker, expected as ProjectModel, files);
    checkRevisions(checker, files, revisions);
    checkTrashRecords((ok, message) => checker.check(ok, message), store, project, expected as ProjectModel);
    checkRevisions(checker, liveTrashFiles(store, project.id), revisions);
    checkContents(input, checker, store, project, revisions, checkAttachmentRecords(checker, store, project));
  }
  const active = new Set(store.projects.filter((p) => p.status === 'active').map((p) => p.id));
  for (const projectId of store.inlineContents.keys()) {
    checker.check(active.has(projectId), () => `inline contents left of an inactive project ${projectId}`);
  }
  const liveFiles = new Set(store.files.map((file) => file.id));
  const indexed = [...store.indexedFileIds].sort();
  checker.check(
    indexed.length === liveFiles.size && indexed.every((id) => liveFiles.has(id)),
    () => `the search index holds ${indexed.length} files, the records ${liveFiles.size}`,
  );
  // Files in a trash keep their revisions (extensions §5); they are not in the search index.
  const trashedFiles = new Set(store.trash.map((item) => item.fileId));
  for (const revision of store.revisions) {
    checker.check(
      liveFiles.has(revision.fileId) || trashedFiles.has(revision.fileId),
      () => `revision ${revision.revision} of a file that no longer exists (${revision.fileId})`,
    );
  }
  const activeBuckets = new Set(store.projects.filter((p) => p.status === 'active').map((p) => p.bucket));
  for (const bucket of store.buckets.keys()) {
    checker.check(activeBuckets.has(bucket), () => `orphan bucket ${bucket}`);
  }
  for (const id of model.active.keys()) {
    checker.check(
      store.projects.some((project) => project.id === id && project.status === 'active'),
      () => `active project ${id} has no active record`,
    );
  }
}

function checkRecordsAgainstModel(
  checker: Checker,
  project: ProjectModel,
  files: StoreSnapshot['files'][number][],
): void {
  checker.check(
    files.length === project.files.size,
    () => `project ${project.id} has ${files.length} file records, ${project.files.size} files seen`,
  );
  for (const file of files) {
    const state = project.files.get(file.filename);
    checker.check(
      state !== undefined &&
        state.sha256 === file.sha256 &&
        state.content.length === file.sizeBytes &&
        isDeepStrictEqual(state.metadata, file.metadataJson === null ? null : JSON.parse(file.metadataJson)),
      () => `record of ${project.id}/${file.filename} differs from what the API served`,
    );
  }
}

/** Bytes kept only by earlier revisions: each content key once, the current one of each file not at all. */
function historyBytes(
  files: StoreSnapshot['files'][number][],
  revisions: StoreSnapshot['revisions'][number][],
) {
  const current = new Set(files.map((file) => file.contentKey));
  const counted = new Map<string, number>();
  for (const revision of revisions) {
    if (!current.has(revision.contentKey)) counted.set(revision.contentKey, revision.sizeBytes);
  }
  return [...counted.values()].reduce((sum, size) => sum + size, 0);
}

/** Each file's current state is its newest kept revision. */
export function checkRevisions(
  checker: Checker,
  files: StoreSnapshot['files'][number][],
  revisions: StoreSnapshot['revisions'][number][],
): void {
  for (const file of files) {
    const own = revisions.filter((revision) => revision.fileId === file.id);
    const newest = own.reduce(
      (best, revision) => (revision.revision > best.revision ? revision : best),
      own[0]!,
    );
    checker.check(
      newest !== undefined &&
        newest.revision === file.revision &&
        newest.contentKey === file.contentKey &&
        newest.inline === file.inline &&
        newest.sha256 === file.sha256,
      () => `${file.filename}: its current revision ${file.revision} is not its newest kept revision`,
    );
  }
}

/**
 * Every kept revision's content is where it says (inline in the records, or a blob) with its digest, and
 * nothing is stored that no revision or attachment points to: no orphan blob, no orphan inline content.
 */
function checkContents(
  input: VerifyInput,
  checker: Checker,
  store: StoreSnapshot,
  project: StoreSnapshot['projects'][number],
  revisions: StoreSnapshot['revisions'][number][],
  /** The blobs attachment records point to (checked by `checkAttachmentRecords`). */
  attachmentBlobs: ReadonlySet<string>,
): void {
  const objects = store.buckets.get(project.bucket);
  if (!checker.check(objects !== undefined, () => `bucket ${project.bucket} of an active project is missing`))
    return;
  const inline =
    store.inlineContents.get(project.id) ?? new Map<string, { sizeBytes: number; sha256: string }>();
  const referenced = { blob: new Set<string>(), inline: new Set<string>() };
  for (const revision of revisions) {
    const stored = revision.inline ? inline.get(revision.contentKey) : objects?.get(revision.contentKey);
    (revision.inline ? referenced.inline : referenced.blob).add(revision.contentKey);
    checker.check(
      stored !== undefined && stored.sizeBytes === revision.sizeBytes && stored.sha256 === revision.sha256,
      () =>
        `${revision.inline ? 'inline content' : 'blob'} ${project.bucket}/${revision.contentKey} of revision ` +
        `${revision.revision} is ${stored ? 'different' : 'missing'}`,
    );
    input.stats.blobsVerified++;
  }
  for (const key of objects?.keys() ?? []) {
    checker.check(
      referenced.blob.has(key) || attachmentBlobs.has(key),
      () => `orphan blob ${project.bucket}/${key}`,
    );
  }
  for (const key of inline.keys()) {
    checker.check(referenced.inline.has(key), () => `orphan inline content ${project.id}/${key}`);
  }
}
