import {
  type AccountRecord,
  type ApiKeyRecord,
  type AttachmentPageQuery,
  type AttachmentRecord,
  type AuditQuery,
  type AuditRecord,
  type BlobIntentRecord,
  type ChangeEventInput,
  type ChangeEventQuery,
  type ChangeEventRecord,
  type ChangeFeedHead,
  type ChunkLists,
  type ChunkPosition,
  type ChunkRecord,
  compareCodePoints,
  type DraftFileRecord,
  type DraftPosition,
  type DraftRecord,
  type DraftReviewRecord,
  type DraftState,
  type EmbeddingCursorRecord,
  type FileCounts,
  type FileLinksRecord,
  type FilePageQuery,
  type FileRecord,
  fileSearchDocument,
  holdsNarrowing,
  holdsPushdown,
  type IndexedDocument,
  type InstanceRecord,
  type LinkPosition,
  matchesQuery,
  type ProjectKeyset,
  type ProjectRecord,
  type ProjectStatus,
  projectAfter,
  RecordConflictError,
  type RecordsCapabilities,
  type RecordsReader,
  type RecordsRepository,
  type RecordsTransaction,
  type RevisionContent,
  type RevisionRecord,
  type ScheduleSlotRecord,
  SEARCH_LIMITS,
  type SearchCandidate,
  type SearchCandidatesQuery,
  type ShareRecord,
  type SourcedLinkRecord,
  selectFilePage,
  type Tier,
  type TrashPosition,
  type TrashRecord,
  truncateUtf8,
  type VectorListsRecord,
  type WebhookDeliveryPosition,
  type WebhookDeliveryRecord,
  type WebhookProgress,
  type WebhookRecord,
} from '@mdstore/core';
import { Mutex } from './mutex.js';

/** The memory records store has no settings; the options object exists for symmetry with other adapters. */
export type MemoryRecordsOptions = Record<never, never>;

/**
 * The whole store: one immutable snapshot per commit. Maps are never mutated once committed and records
 * are frozen, so a snapshot can be shared by readers while a transaction builds the next one.
 */
interface Tables {
  readonly accounts: ReadonlyMap<string, AccountRecord>;
  readonly apiKeys: ReadonlyMap<string, ApiKeyRecord>;
  readonly projects: ReadonlyMap<string, ProjectRecord>;
  readonly files: ReadonlyMap<string, FileRecord>;
  /** Attachments (extensions §12), keyed by id. */
  readonly attachments: ReadonlyMap<string, AttachmentRecord>;
  readonly intents: ReadonlyMap<string, BlobIntentRecord>;
  readonly instances: ReadonlyMap<string, InstanceRecord>;
  /** Keyed by `revisionId(fileId, revision)`. */
  readonly revisions: ReadonlyMap<string, RevisionRecord>;
  /** Keyed by `contentId(projectId, contentKey)`; the bytes are never handed out without a copy. */
  readonly inlineContents: ReadonlyMap<string, InlineContent>;
  /** The search index, keyed by file id: the indexed text and what search makes of the file. */
  readonly searchIndex: ReadonlyMap<string, SearchEntry>;
  /** The link index (extensions §9), keyed by file id. */
  readonly links: ReadonlyMap<string, FileLinksRecord>;
  /** Keyed by trash id. */
  readonly trash: ReadonlyMap<string, TrashRecord>;
  /** The audit log (extensions §8), keyed by entry id. */
  readonly audit: ReadonlyMap<string, AuditRecord>;
  /** The change feed (extensions §7), keyed by `changeId(accountId, seq)`. */
  readonly changes: ReadonlyMap<string, ChangeEventRecord>;
  /** Each account's feed head, keyed by account id. */
  readonly changeHeads: ReadonlyMap<string, ChangeFeedHead>;
  /** Secrets the store keeps for its instances, keyed by name. */
  readonly secrets: ReadonlyMap<string, string>;
  /** Share links (extensions §11), keyed by id. */
  readonly shares: ReadonlyMap<string, ShareRecord>;
  readonly webhooks: ReadonlyMap<string, WebhookRecord>;
  readonly webhookDeliveries: ReadonlyMap<string, WebhookDeliveryRecord>;
  /** Drafts (extensions §13), keyed by id; their files keyed by `draftFileId(draftId, filename)`. */
  readonly drafts: ReadonlyMap<string, DraftRecord>;
  readonly draftFiles: ReadonlyMap<string, DraftFileRecord>;
  readonly draftReviews: ReadonlyMap<string, DraftReviewRecord>;
  /** Embedded chunks (extensions §15), keyed by `chunkId(fileId, ordinal)`. */
  readonly chunks: ReadonlyMap<string, ChunkRecord>;
  /** The semantic indexer's cursor per account. */
  readonly embeddingCursors: ReadonlyMap<string, EmbeddingCursorRecord>;
  /** Slots of shared schedules (extensions §16), keyed by `slotId(task, slotAt)`. */
  readonly scheduleSlots: ReadonlyMap<string, ScheduleSlotRecord>;
  /** Vector lists, keyed by `listsId(accountId, model)`. */
  readonly vectorLists: ReadonlyMap<string, VectorListsRecord>;
}

interface SearchEntry {
  readonly projectId: string;
  readonly text: string;
  readonly document: IndexedDocument;
}

interface InlineContent {
  readonly projectId: string;
  readonly bytes: Uint8Array;
}

const revisionId = (fileId: string, revision: number) => `${fileId}#${revision}`;
const contentId = (projectId: string, contentKey: string) => `${projectId}#${contentKey}`;
const changeId = (accountId: string, seq: number) => `${accountId}#${seq}`;
const draftFileId = (draftId: string, filename: string) => `${draftId}#${filename}`;
const chunkId = (fileId: string, ordinal: number) => `${fileId}#${ordinal}`;
const slotId = (task: string, slotAt: number) => `${task}#${slotAt}`;
const listsId = (accountId: string, model: string) => `${accountId}#${model}`;
const byChunkOrder = (a: ChunkRecord, b: ChunkRecord) =>
  compareCodePoints(a.projectId, b.projectId) ||
  compareCodePoints(a.fileId, b.fileId) ||
  a.ordinal - b.ordinal;
const NO_HEAD: ChangeFeedHead = Object.freeze({ lastSeq: 0, prunedThrough: 0 });
type TableName = keyof Tables;
type RowOf<N extends TableName> = Tables[N] extends ReadonlyMap<string, infer R> ? R : never;

const emptyTables = (): Tables => ({
  accounts: new Map(),
  apiKeys: new Map(),
  projects: new Map(),
  files: new Map(),
  attachments: new Map(),
  intents: new Map(),
  instances: new Map(),
  revisions: new Map(),
  inlineContents: new Map(),
  searchIndex: new Map(),
  links: new Map(),
  trash: new Map(),
  audit: new Map(),
  changes: new Map(),
  changeHeads: new Map(),
  secrets: new Map(),
  shares: new Map(),
  webhooks: new Map(),
  webhookDeliveries: new Map(),
  drafts: new Map(),
  draftFiles: new Map(),
  draftReviews: new Map(),
  chunks: new Map(),
  embeddingCursors: new Map(),
  scheduleSlots: new Map(),
  vectorLists: new Map(),
});

const CAPABILITIES: RecordsCapabilities = Object.freeze({ durable: false, sharedBetweenProcesses: false });

/** Callers get their own copy of every record; records are flat, so a spread copies them fully. */
/** Trash items nest the file record: it is copied too. */
const copy = <R extends object>(record: R): R => {
  if ('vector' in record && record.vector instanceof Uint8Array)
    return { ...record, vector: new Uint8Array(record.vector) };
  if ('file' in record) {
    const { attachment } = record as { attachment?: object };
    return {
      ...record,
      file: { ...(record.file as object) },
      ...(attachment !== undefined && { attachment: { ...attachment } }),
    };
  }
  // An API key's project list and folders are arrays: copied too, so a caller never holds the stored ones.
  if ('projectIds' in record && 'pathPrefixes' in record) {
    const { projectIds, pathPrefixes } = record as { projectIds: unknown; pathPrefixes: unknown };
    return {
      ...record,
      projectIds: Array.isArray(projectIds) ? [...projectIds] : projectIds,
      pathPrefixes: Array.isArray(pathPrefixes) ? [...pathPrefixes] : pathPrefixes,
    };
  }
  if ('events' in record && Array.isArray(record.events)) return { ...record, events: [...record.events] };
  return { ...record };
};
const copyOrNull = <R extends object>(record: R | undefined): R | null => (record ? copy(record) : null);
const frozen = <R extends object>(record: R): R => Object.freeze(copy(record));

const byCreatedAtThenId = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  a.createdAt - b.createdAt || compareCodePoints(a.id, b.id);

function find<R>(table: ReadonlyMap<string, R>, matches: (row: R) => boolean): R | undefined {
  for (const row of table.values()) if (matches(row)) return row;
  return undefined;
}

function select<R>(table: ReadonlyMap<string, R>, matches: (row: R) => boolean): R[] {
  const rows: R[] = [];
  for (const row of table.values()) if (matches(row)) rows.push(row);
  return rows;
}

/** Every read, over whichever snapshot `tables()` returns (committed data, or a transaction's draft). */
abstract class TablesReader implements RecordsReader {
  protected abstract tables(): Tables;

  async findAccountById(q: { accountId: string }) {
    return copyOrNull(this.tables().accounts.get(q.accountId));
  }

  async findAccountByName(q: { name: string }) {
    return copyOrNull(find(this.tables().accounts, (account) => account.name === q.name));
  }

  async listAccounts() {
    return [...this.tables().accounts.values()].sort(byCreatedAtThenId).map(copy);
  }

  async listAuditEntries(q: AuditQuery) {
    const matches = (e: AuditRecord) =>
      e.accountId === q.accountId &&
      (q.after === undefined || e.at < q.after.at || (e.at === q.after.at && e.id < q.after.id)) &&
      (q.since === undefined || e.at >= q.since) &&
      (q.until === undefined || e.at < q.until) &&
      (q.keyId === undefined || e.keyId === q.keyId) &&
      (q.projectIds === undefined || (e.projectId !== null && q.projectIds.includes(e.projectId))) &&
      (q.status === undefined || e.status === q.status);
    return select(this.tables().audit, matches)
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, q.limit)
      .map(copy);
  }

  async findWebhook(q: { webhookId: string }) {
    return copyOrNull(this.tables().webhooks.get(q.webhookId));
  }

  async listWebhooks(q: { accountId: string; limit: number }) {
    return select(this.tables().webhooks, (w) => w.accountId === q.accountId)
      .sort(byCreatedAtThenId)
      .slice(0, q.limit)
      .map(copy);
  }

  async listActiveWebhooks(q: { limit: number; afterId?: string }) {
    const after = q.afterId;
    return select(this.tables().webhooks, (w) => w.active && (after === undefined || w.id > after))
      .sort((a, b) => compareCodePoints(a.id, b.id))
      .slice(0, q.limit)
      .map(copy);
  }

  async listWebhookDeliveries(q: { webhookId: string; limit: number; after?: WebhookDeliveryPosition }) {
    const after = q.after;
    return select(
      this.tables().webhookDeliveries,
      (d) =>
        d.webhookId === q.webhookId &&
        (after === undefined || d.at < after.at || (d.at === after.at && d.id < after.id)),
    )
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, q.limit)
      .map(copy);
  }

  async findApiKeyById(q: { keyId: string }) {
    return copyOrNull(this.tables().apiKeys.get(q.keyId));
  }

  async findApiKeys(q: { keyIds: readonly string[] }) {
    const keys: ApiKeyRecord[] = [];
    for (const id of new Set(q.keyIds)) {
      const key = this.tables().apiKeys.get(id);
      if (key) keys.push(copy(key));
    }
    return keys;
  }

  async findApiKeyByHash(q: { keyHash: string }) {
    return copyOrNull(find(this.tables().apiKeys, (apiKey) => apiKey.keyHash === q.keyHash));
  }

  async findApiKeyWithAccount(q: { keyHash: string }) {
    const tables = this.tables();
    const apiKey = find(tables.apiKeys, (key) => key.keyHash === q.keyHash);
    const account = apiKey && tables.accounts.get(apiKey.accountId);
    return apiKey && account ? { apiKey: copy(apiKey), account: copy(account) } : null;
  }

  async listApiKeys(q: { accountId: string; activeOnly?: boolean; limit?: number }) {
    return select(
      this.tables().apiKeys,
      (apiKey) => apiKey.accountId === q.accountId && (!q.activeOnly || apiKey.revokedAt === null),
    )
      .sort(byCreatedAtThenId)
      .slice(0, q.limit)
      .map(copy);
  }

  async findShareById(q: { shareId: string }) {
    return copyOrNull(this.tables().shares.get(q.shareId));
  }

  async findShareByHash(q: { tokenHash: string }) {
    return copyOrNull(find(this.tables().shares, (share) => share.tokenHash === q.tokenHash));
  }

  async listShares(q: { projectId: string; liveAt?: number; limit?: number }) {
    const { liveAt } = q;
    return select(
      this.tables().shares,
      (share) =>
        share.projectId === q.projectId &&
        (liveAt === undefined || (share.revokedAt === null && share.expiresAt > liveAt)),
    )
      .sort(byCreatedAtThenId)
      .slice(0, q.limit)
      .map(copy);
  }

  async findDraft(q: { draftId: string }) {
    return copyOrNull(this.tables().drafts.get(q.draftId));
  }

  async listDrafts(q: { projectId: string; state?: DraftState; after?: DraftPosition; limit: number }) {
    const { after } = q;
    return select(
      this.tables().drafts,
      (draft) =>
        draft.projectId === q.projectId &&
        (q.state === undefined || draft.state === q.state) &&
        (!after || (after.createdAt - draft.createdAt || compareCodePoints(after.id, draft.id)) > 0),
    )
      .sort((a, b) => byCreatedAtThenId(b, a))
      .slice(0, q.limit)
      .map(copy);
  }

  async countDrafts(q: { projectId: string; state: DraftState }) {
    return select(this.tables().drafts, (d) => d.projectId === q.projectId && d.state === q.state).length;
  }

  async listDraftFiles(q: { draftId: string; afterSeq?: number; limit: number }) {
    const afterSeq = q.afterSeq ?? -1;
    return select(this.tables().draftFiles, (f) => f.draftId === q.draftId && f.seq > afterSeq)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, q.limit)
      .map(copy);
  }

  async findDraftFile(q: { draftId: string; filename: string }) {
    return copyOrNull(this.tables().draftFiles.get(draftFileId(q.draftId, q.filename)));
  }

  async listDraftReviews(q: { draftId: string; limit: number }) {
    return select(this.tables().draftReviews, (r) => r.draftId === q.draftId)
      .sort(byCreatedAtThenId)
      .slice(0, q.limit)
      .map(copy);
  }

  async findProjectById(q: { projectId: string }) {
    return copyOrNull(this.tables().projects.get(q.projectId));
  }

  async findActiveProjectByName(q: { accountId: string; name: string }) {
    return copyOrNull(findActiveProject(this.tables(), q.accountId, q.name));
  }

  async listProjects(q: { accountId: string }) {
    return select(this.tables().projects, (project) => project.accountId === q.accountId)
      .sort(byCreatedAtThenId)
      .map(copy);
  }

  async listProjectPage(q: { accountId: string; after?: ProjectKeyset; limit: number }) {
    return select(
      this.tables().projects,
      (project) => project.accountId === q.accountId && projectAfter(project, q.after),
    )
      .sort(byCreatedAtThenId)
      .slice(0, q.limit)
      .map(copy);
  }

  async countProjects(q: { accountId: string }) {
    return select(this.tables().projects, (project) => project.accountId === q.accountId).length;
  }

  async listProjectsByStatus(q: { status: ProjectStatus }) {
    return select(this.tables().projects, (project) => project.status === q.status)
      .sort(byCreatedAtThenId)
      .map(copy);
  }

  async findFile(q: { projectId: string; filename: string }) {
    return copyOrNull(findFile(this.tables(), q.projectId, q.filename));
  }

  async findFiles(q: { projectId: string; filenames: readonly string[] }) {
    const tables = this.tables();
    return [...new Set(q.filenames)].flatMap((filename) => {
      const file = findFile(tables, q.projectId, filename);
      return file ? [copy(file)] : [];
    });
  }

  /** The core's reference page over the project's files (memory has no indexes: a scan and a sort). */
  async listFilePage(q: FilePageQuery) {
    return selectFilePage(this.tables().files.values(), q).map(copy);
  }

  async countFiles(q: { projectId: string; prefix: string; delimiter: boolean }): Promise<FileCounts> {
    const folders = new Set<string>();
    let files = 0;
    let sizeBytes = 0;
    for (const file of this.tables().files.values()) {
      if (file.projectId !== q.projectId || !file.filename.startsWith(q.prefix)) continue;
      const slash = q.delimiter ? file.filename.indexOf('/', q.prefix.length) : -1;
      if (slash >= 0) {
        folders.add(file.filename.slice(0, slash + 1));
        continue;
      }
      files += 1;
      sizeBytes += file.sizeBytes;
    }
    return { files, sizeBytes, folders: folders.size };
  }

  async listFiles(q: { projectId: string }) {
    return select(this.tables().files, (file) => file.projectId === q.projectId)
      .sort((a, b) => compareCodePoints(a.filename, b.filename))
      .map(copy);
  }

  async isBlobReferenced(q: { bucket: string; key: string | null }) {
    const { projects } = this.tables();
    const owners = select(projects, (project) => project.bucketName === q.bucket);
    if (q.key === null) return owners.some((project) => project.status !== 'deleted');
    const ownerIds = new Set(owners.map((project) => project.id));
    const { revisions, attachments, trash } = this.tables();
    return (
      find(
        revisions,
        (revision) => ownerIds.has(revision.projectId) && !revision.inline && revision.contentKey === q.key,
      ) !== undefined ||
      find(attachments, (a) => ownerIds.has(a.projectId) && a.blobKey === q.key) !== undefined ||
      // An attachment in the trash holds its blob until it is purged (extensions §12).
      find(
        trash,
        (item) =>
          ownerIds.has(item.projectId) && item.attachment !== undefined && item.file.contentKey === q.key,
      ) !== undefined
    );
  }

  async findAttachment(q: { projectId: string; path: string }) {
    return copyOrNull(findAttachment(this.tables(), q.projectId, q.path));
  }

  async findAttachments(q: { projectId: string; paths: readonly string[]; names?: readonly string[] }) {
    const paths = new Set(q.paths);
    const names = new Set(q.names ?? []);
    const named = (path: string) => names.has(path.slice(path.lastIndexOf('/') + 1));
    return select(
      this.tables().attachments,
      (a) => a.projectId === q.projectId && (paths.has(a.path) || named(a.path)),
    )
      .sort((a, b) => compareCodePoints(a.path, b.path))
      .map((a) => ({ ...a }));
  }

  async findAttachmentBySha256(q: { projectId: string; sha256: string }) {
    return copyOrNull(
      find(this.tables().attachments, (a) => a.projectId === q.projectId && a.sha256 === q.sha256),
    );
  }

  /** A scan and a sort (memory has no indexes). */
  async listAttachmentPage(q: AttachmentPageQuery) {
    const { after } = q;
    return select(
      this.tables().attachments,
      (a) =>
        a.projectId === q.projectId &&
        a.path.startsWith(q.prefix) &&
        (after === undefined ||
          (q.inclusive ? compareCodePoints(a.path, after) >= 0 : compareCodePoints(a.path, after) > 0)),
    )
      .sort((a, b) => compareCodePoints(a.path, b.path))
      .slice(0, q.limit)
      .map(copy);
  }

  async findRevision(q: { fileId: string; revision: number }) {
    return copyOrNull(this.tables().revisions.get(revisionId(q.fileId, q.revision)));
  }

  async listRevisions(q: { fileId: string; limit: number; beforeRevision?: number }) {
    const before = q.beforeRevision ?? Number.POSITIVE_INFINITY;
    return this.revisionsOf(q.fileId)
      .filter((revision) => revision.revision < before)
      .slice(0, q.limit)
      .map(copy);
  }

  async listRevisionContents(q: { fileId: string }): Promise<RevisionContent[]> {
    return this.revisionsOf(q.fileId).map(({ revision, contentKey, inline, sizeBytes, createdAt }) => ({
      revision,
      contentKey,
      inline,
      sizeBytes,
      createdAt,
    }));
  }

  /** Newest first. */
  private revisionsOf(fileId: string): RevisionRecord[] {
    return select(this.tables().revisions, (revision) => revision.fileId === fileId).sort(
      (a, b) => b.revision - a.revision,
    );
  }

  async readInlineContent(q: { projectId: string; contentKey: string }) {
    const stored = this.tables().inlineContents.get(contentId(q.projectId, q.contentKey));
    return stored ? stored.bytes.slice() : null;
  }

  async expandSearchPrefix(_q: { word: string; limit: number }): Promise<string[] | null> {
    // Each document is matched on its own here: a prefix is never expanded over a vocabulary.
    return null;
  }

  async findSearchCandidates(q: SearchCandidatesQuery): Promise<SearchCandidate[]> {
    const { files, searchIndex } = this.tables();
    const projects = new Set(q.projectIds);
    const ids = q.fileIds === undefined ? undefined : new Set(q.fileIds);
    const { after } = q;
    const candidates = select(files, (file) => {
      if (!projects.has(file.projectId) || (ids && !ids.has(file.id))) return false;
      if (
        after &&
        (compareCodePoints(file.projectId, after.projectId) ||
          compareCodePoints(file.filename, after.filename)) <= 0
      )
        return false;
      if (!q.conditions.every((condition) => holdsPushdown(condition, file))) return false;
      if (!(q.narrowing ?? []).every((narrowing) => holdsNarrowing(narrowing, file))) return false;
      if (q.query === null) return true;
      const entry = searchIndex.get(file.id);
      return entry !== undefined && matchesQuery(q.query, entry.document);
    })
      .sort(
        (a, b) => compareCodePoints(a.projectId, b.projectId) || compareCodePoints(a.filename, b.filename),
      )
      .slice(0, q.limit);
    return candidates.map((file) => ({
      file: copy(file),
      contentText: q.withText ? (searchIndex.get(file.id)?.text ?? '') : null,
    }));
  }

  async listUnindexedFiles(q: { limit: number }) {
    const { searchIndex } = this.tables();
    return select(this.tables().files, (file) => !searchIndex.has(file.id))
      .sort((a, b) => compareCodePoints(a.id, b.id))
      .slice(0, q.limit)
      .map(copy);
  }

  async findFileLinks(q: {
    fileId: string;
    afterSeq?: number;
    limit?: number;
  }): Promise<FileLinksRecord | null> {
    const entry = this.tables().links.get(q.fileId);
    if (!entry) return null;
    const { afterSeq, limit } = q;
    const links = entry.links.filter((link) => afterSeq === undefined || link.seq > afterSeq);
    return structuredClone({ ...entry, links: limit === undefined ? links : links.slice(0, limit) });
  }

  async listLinksTo(q: {
    projectId: string;
    paths: readonly string[];
    stems: readonly string[];
    after?: LinkPosition;
    limit?: number;
  }) {
    const paths = new Set(q.paths);
    const stems = new Set(q.stems);
    const { after } = q;
    const found = this.sourcedLinks(q.projectId).filter(
      ({ source, link }) =>
        ((link.path !== null && paths.has(link.path)) ||
          (link.kind === 'wiki' && link.stem !== null && stems.has(link.stem))) &&
        (!after || (compareCodePoints(source, after.source) || link.seq - after.seq) > 0),
    );
    return q.limit === undefined ? found : found.slice(0, q.limit);
  }

  async listLinkTargets(q: { projectId: string; filenames: readonly string[]; stems: readonly string[] }) {
    const names = new Set(q.filenames);
    const stems = new Set(q.stems);
    const { links } = this.tables();
    return select(this.tables().files, (file) => file.projectId === q.projectId)
      .map((file) => ({ file, entry: links.get(file.id) }))
      .filter(({ file, entry }) => names.has(file.filename) || (entry !== undefined && stems.has(entry.stem)))
      .sort((a, b) => compareCodePoints(a.file.filename, b.file.filename))
      .map(({ file, entry }) => ({
        fileId: file.id,
        filename: file.filename,
        stem: entry?.stem ?? null,
        slugs: [...(entry?.slugs ?? [])],
        headings: [...(entry?.headings ?? [])],
      }));
  }

  async listLinkPage(q: { projectId: string; after?: LinkPosition; limit: number }) {
    const { after } = q;
    const page = this.sourcedLinks(q.projectId)
      .filter(
        ({ source, link }) => !after || (compareCodePoints(source, after.source) || link.seq - after.seq) > 0,
      )
      .slice(0, q.limit);
    // The same hint as the SQL stores': a link that certainly resolves, with no anchor to check.
    const { files, links, attachments } = this.tables();
    const names = new Set(
      select(files, (file) => file.projectId === q.projectId).map((file) => file.filename),
    );
    const paths = new Set(select(attachments, (a) => a.projectId === q.projectId).map((a) => a.path));
    const stems = new Map<string, number>();
    for (const entry of select(links, (entry) => entry.projectId === q.projectId && files.has(entry.fileId)))
      stems.set(entry.stem, (stems.get(entry.stem) ?? 0) + 1);
    return page.map((sourced) => {
      const { link } = sourced;
      const sure =
        (link.anchor === null || link.anchor === '') &&
        link.path !== null &&
        (paths.has(link.path) ||
          (link.kind === 'markdown'
            ? names.has(link.path)
            : link.stem !== null && stems.get(link.stem) === 1));
      return sure ? { ...sourced, resolved: true } : sourced;
    });
  }

  async listFilesWithoutLinks(q: { limit: number }) {
    const { links } = this.tables();
    return select(this.tables().files, (file) => !links.has(file.id))
      .sort((a, b) => compareCodePoints(a.id, b.id))
      .slice(0, q.limit)
      .map(copy);
  }

  /** Every link of the project with its file, in (filename, seq) order. */
  private sourcedLinks(projectId: string): SourcedLinkRecord[] {
    const { files } = this.tables();
    return select(this.tables().links, (entry) => entry.projectId === projectId)
      .map((entry) => ({ entry, file: files.get(entry.fileId)! }))
      .filter(({ file }) => file !== undefined)
      .sort((a, b) => compareCodePoints(a.file.filename, b.file.filename))
      .flatMap(({ entry, file }) =>
        entry.links.map((link) => ({ sourceId: file.id, source: file.filename, link: { ...link } })),
      );
  }

  async findTrashItem(q: { projectId: string; trashId: string }) {
    const item = this.tables().trash.get(q.trashId);
    return copyOrNull(item?.projectId === q.projectId ? item : undefined);
  }

  async listTrash(q: { projectId: string; now: number; limit: number; after?: TrashPosition }) {
    const { after } = q;
    const isAfter = (item: TrashRecord) => after === undefined || newestDeletionFirst(item, after) > 0;
    return select(this.tables().trash, (item) => this.isLiveTrash(item, q) && isAfter(item))
      .sort(newestDeletionFirst)
      .slice(0, q.limit)
      .map(copy);
  }

  async countTrash(q: { projectId: string; now: number }) {
    return select(this.tables().trash, (item) => this.isLiveTrash(item, q)).length;
  }

  async listExpiredTrash(q: { now: number; limit: number }) {
    return select(this.tables().trash, (item) => item.expiresAt <= q.now)
      .sort((a, b) => a.expiresAt - b.expiresAt || compareCodePoints(a.id, b.id))
      .slice(0, q.limit)
      .map(copy);
  }

  private isLiveTrash(item: TrashRecord, q: { projectId: string; now: number }): boolean {
    return item.projectId === q.projectId && item.expiresAt > q.now;
  }

  async listBlobIntents(q: { limit: number; afterId?: string }) {
    const { afterId } = q;
    const after =
      afterId === undefined
        ? () => true
        : (intent: BlobIntentRecord) => compareCodePoints(intent.id, afterId) > 0;
    return select(this.tables().intents, after)
      .sort((a, b) => compareCodePoints(a.id, b.id))
      .slice(0, q.limit)
      .map(copy);
  }

  async listInstances() {
    return [...this.tables().instances.values()].sort((a, b) => compareCodePoints(a.id, b.id)).map(copy);
  }

  async listChangeEvents(q: ChangeEventQuery) {
    const matches = (e: ChangeEventRecord) =>
      e.accountId === q.accountId &&
      e.seq > q.afterSeq &&
      (q.projectIds === undefined || q.projectIds.includes(e.projectId));
    return select(this.tables().changes, matches)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, q.limit)
      .map(copy);
  }

  async findChangeFeedHead(q: { accountId: string }) {
    return copy(this.tables().changeHeads.get(q.accountId) ?? NO_HEAD);
  }

  async listFileChunks(q: { fileId: string }) {
    return select(this.tables().chunks, (chunk) => chunk.fileId === q.fileId)
      .sort((a, b) => a.ordinal - b.ordinal)
      .map(copy);
  }

  async listChunkVectors(q: {
    projectIds: readonly string[];
    model: string;
    after?: ChunkPosition;
    limit: number;
    lists?: ChunkLists | null;
  }) {
    const projects = new Set(q.projectIds);
    const after = q.after;
    // Listed chunks come list by list (as the SQL stores' index has them), the others in chunk order.
    const order = (a: ChunkRecord, b: ChunkRecord) =>
      (q.lists ? (a.listNo ?? -1) - (b.listNo ?? -1) : 0) || byChunkOrder(a, b);
    const isAfter = (c: ChunkRecord) =>
      after === undefined ||
      order(c, {
        ...c,
        projectId: after.projectId,
        fileId: after.fileId,
        ordinal: after.ordinal,
        listNo: after.listNo ?? c.listNo,
      }) > 0;
    const lists = q.lists;
    const listed = lists ? new Set(lists.listNos) : null;
    const inLists = (c: ChunkRecord) =>
      lists === undefined ||
      (lists === null
        ? c.listGeneration === null
        : c.listGeneration === lists.generation && listed!.has(c.listNo ?? -1));
    return select(
      this.tables().chunks,
      (c) => projects.has(c.projectId) && c.model === q.model && inLists(c) && isAfter(c),
    )
      .sort(order)
      .slice(0, q.limit)
      .map(copy);
  }

  async countChunkVectors(q: { projectIds: readonly string[]; model: string; limit: number }) {
    const projects = new Set(q.projectIds);
    let count = 0;
    for (const c of this.tables().chunks.values()) {
      if (count >= q.limit) break;
      if (projects.has(c.projectId) && c.model === q.model) count += 1;
    }
    return count;
  }

  async findVectorLists(q: { accountId: string; model: string }) {
    return copyOrNull(this.tables().vectorLists.get(listsId(q.accountId, q.model)));
  }

  async countEmbeddedFiles(q: { projectId: string; model: string }) {
    const files = new Set<string>();
    for (const c of this.tables().chunks.values())
      if (c.projectId === q.projectId && c.model === q.model) files.add(c.fileId);
    return files.size;
  }

  async findEmbeddingCursor(q: { accountId: string }) {
    return copyOrNull(this.tables().embeddingCursors.get(q.accountId));
  }

  async findScheduleSlot(q: { task: string; slotAt: number }) {
    return copyOrNull(this.tables().scheduleSlots.get(slotId(q.task, q.slotAt)));
  }

  async findStoreSecret(q: { name: string }) {
    return this.tables().secrets.get(q.name) ?? null;
  }
}

/** Newest deletion first: `deletedAt` descending, then `id` descending. */
const newestDeletionFirst = (a: TrashPosition, b: TrashPosition) =>
  b.deletedAt - a.deletedAt || compareCodePoints(b.id, a.id);

const findActiveProject = (tables: Tables, accountId: string, name: string, exceptId?: string) =>
  find(
    tables.projects,
    (project) =>
      project.accountId === accountId &&
      project.name === name &&
      project.status === 'active' &&
      project.id !== exceptId,
  );

const findAttachment = (tables: Tables, projectId: string, path: string) =>
  find(tables.attachments, (a) => a.projectId === projectId && a.path === path);

const findFile = (tables: Tables, projectId: string, filename: string) =>
  find(tables.files, (file) => file.projectId === projectId && file.filename === filename);

/**
 * A transaction builds a draft of the next snapshot: tables are copied on their first write, so nothing
 * it does is visible outside until the repository commits the draft. Transactions run one at a time, which
 * also makes `lockProject` trivially hold its lock.
 */
class MemoryTransaction extends TablesReader implements RecordsTransaction {
  private readonly copied = new Set<TableName>();
  private state: { kind: 'open' } | { kind: 'failed'; error: unknown } | { kind: 'ended' } = { kind: 'open' };

  constructor(private draft: Tables) {
    super();
  }

  protected tables(): Tables {
    this.assertUsable();
    return this.draft;
  }

  /** The conflict a work function swallowed, if any: such a transaction must not commit. */
  get failure(): unknown {
    return this.state.kind === 'failed' ? this.state.error : undefined;
  }

  end(): Tables {
    this.state = { kind: 'ended' };
    return this.draft;
  }

  private assertUsable(): void {
    if (this.state.kind === 'ended') throw new Error('The transaction has already ended');
    if (this.state.kind === 'failed') {
      throw new Error('The transaction failed on an earlier error and must be left by throwing', {
        cause: this.state.error,
      });
    }
  }

  private conflict(rule: RecordConflictError['rule']): never {
    const error = new RecordConflictError(rule);
    this.state = { kind: 'failed', error };
    throw error;
  }

  private writable<N extends TableName>(name: N): Map<string, RowOf<N>> {
    this.assertUsable();
    if (!this.copied.has(name)) {
      this.copied.add(name);
      const copy: ReadonlyMap<string, unknown> = new Map<string, unknown>(this.draft[name]);
      this.draft = { ...this.draft, [name]: copy };
    }
    return this.draft[name] as unknown as Map<string, RowOf<N>>;
  }

  private insertNew<N extends TableName>(name: N, row: RowOf<N>, id = (row as { id: string }).id): void {
    const table = this.writable(name);
    if (table.has(id)) throw new Error(`A ${name} record with id ${id} already exists`);
    table.set(id, frozen(row as RowOf<N> & object));
  }

  async insertAccount(c: { account: AccountRecord }) {
    if (find(this.tables().accounts, (account) => account.name === c.account.name))
      this.conflict('account_name');
    this.insertNew('accounts', c.account);
  }

  async updateAccountTier(c: { accountId: string; tier: Tier }) {
    const account = this.tables().accounts.get(c.accountId);
    if (!account) return false;
    this.writable('accounts').set(account.id, frozen({ ...account, tier: c.tier }));
    return true;
  }

  async insertApiKey(c: { apiKey: ApiKeyRecord }) {
    this.insertNew('apiKeys', c.apiKey);
  }

  async insertShare(c: { share: ShareRecord }) {
    this.insertNew('shares', c.share);
  }

  async revokeShare(c: { shareId: string; revokedAt: number }) {
    const share = this.tables().shares.get(c.shareId);
    if (!share || share.revokedAt !== null) return false;
    this.writable('shares').set(share.id, frozen({ ...share, revokedAt: c.revokedAt }));
    return true;
  }

  async insertDraft(c: { draft: DraftRecord }) {
    this.insertNew('drafts', c.draft);
  }

  async updateDraft(c: { draft: DraftRecord }) {
    const stored = this.tables().drafts.get(c.draft.id);
    if (!stored) return;
    const { title, description, state, changesetId, updatedAt } = c.draft;
    this.writable('drafts').set(
      stored.id,
      frozen({ ...stored, title, description, state, changesetId, updatedAt }),
    );
  }

  async putDraftFile(c: { file: DraftFileRecord }) {
    this.writable('draftFiles').set(draftFileId(c.file.draftId, c.file.filename), frozen(c.file));
  }

  async insertDraftReview(c: { review: DraftReviewRecord }) {
    this.insertNew('draftReviews', c.review);
  }

  async revokeApiKey(c: { keyId: string; revokedAt: number }) {
    const apiKey = this.tables().apiKeys.get(c.keyId);
    if (!apiKey || apiKey.revokedAt !== null) return false;
    this.writable('apiKeys').set(apiKey.id, frozen({ ...apiKey, revokedAt: c.revokedAt }));
    return true;
  }

  async insertAuditEntries(c: { entries: readonly AuditRecord[] }) {
    for (const entry of c.entries) this.insertNew('audit', entry);
  }

  async deleteAuditEntriesBefore(c: { before: number; limit: number }) {
    const doomed = select(this.tables().audit, (e) => e.at < c.before)
      .sort((a, b) => a.at - b.at)
      .slice(0, c.limit);
    if (doomed.length === 0) return 0;
    const table = this.writable('audit');
    for (const entry of doomed) table.delete(entry.id);
    return doomed.length;
  }

  async appendChangeEvents(c: { events: readonly ChangeEventInput[] }) {
    for (const event of c.events) {
      const head = this.tables().changeHeads.get(event.accountId) ?? NO_HEAD;
      const seq = head.lastSeq + 1;
      this.writable('changeHeads').set(event.accountId, Object.freeze({ ...head, lastSeq: seq }));
      this.insertNew('changes', { ...event, seq }, changeId(event.accountId, seq));
    }
  }

  async deleteChangeEventsBefore(c: { before: number; limit: number }) {
    const doomed = select(this.tables().changes, (e) => e.at < c.before)
      .sort((a, b) => a.at - b.at || a.seq - b.seq)
      .slice(0, c.limit);
    // Per account, everything up to the largest doomed `seq` goes, so that `prunedThrough` is exact.
    const through = new Map<string, number>();
    for (const e of doomed) through.set(e.accountId, Math.max(through.get(e.accountId) ?? 0, e.seq));
    if (through.size === 0) return 0;
    const table = this.writable('changes');
    const heads = this.writable('changeHeads');
    let deleted = 0;
    for (const e of select(table, (e) => e.seq <= (through.get(e.accountId) ?? 0))) {
      table.delete(changeId(e.accountId, e.seq));
      deleted++;
    }
    for (const [accountId, seq] of through) {
      const head = heads.get(accountId) ?? NO_HEAD;
      heads.set(accountId, Object.freeze({ ...head, prunedThrough: Math.max(head.prunedThrough, seq) }));
    }
    return deleted;
  }

  async replaceFileChunks(c: {
    projectId: string;
    fileId: string;
    filename: string;
    chunks: readonly ChunkRecord[];
  }) {
    const doomed = select(
      this.tables().chunks,
      (chunk) =>
        chunk.fileId === c.fileId || (chunk.projectId === c.projectId && chunk.filename === c.filename),
    );
    const table = this.writable('chunks');
    for (const chunk of doomed) table.delete(chunkId(chunk.fileId, chunk.ordinal));
    for (const chunk of c.chunks) this.insertNew('chunks', chunk, chunkId(chunk.fileId, chunk.ordinal));
  }

  async deleteFileChunks(c: { projectId: string; filename: string }) {
    const doomed = select(
      this.tables().chunks,
      (chunk) => chunk.projectId === c.projectId && chunk.filename === c.filename,
    );
    if (doomed.length === 0) return 0;
    const table = this.writable('chunks');
    for (const chunk of doomed) table.delete(chunkId(chunk.fileId, chunk.ordinal));
    return doomed.length;
  }

  async deleteProjectChunks(c: { projectId: string; limit: number }) {
    const doomed: ChunkRecord[] = [];
    for (const chunk of this.tables().chunks.values()) {
      if (doomed.length >= c.limit) break;
      if (chunk.projectId === c.projectId) doomed.push(chunk);
    }
    if (doomed.length === 0) return 0;
    const table = this.writable('chunks');
    for (const chunk of doomed) table.delete(chunkId(chunk.fileId, chunk.ordinal));
    return doomed.length;
  }

  async saveVectorLists(c: VectorListsRecord) {
    this.writable('vectorLists').set(listsId(c.accountId, c.model), frozen(copy(c)));
  }

  async setChunkLists(c: {
    generation: number;
    chunks: readonly { fileId: string; ordinal: number; listNo: number }[];
  }) {
    const table = this.writable('chunks');
    for (const { fileId, ordinal, listNo } of c.chunks) {
      const id = chunkId(fileId, ordinal);
      const chunk = table.get(id);
      if (chunk) table.set(id, frozen({ ...chunk, listGeneration: c.generation, listNo }));
    }
  }

  async claimEmbeddingCursor(c: { accountId: string; owner: string; now: number; until: number }) {
    const cursor = this.tables().embeddingCursors.get(c.accountId) ?? {
      accountId: c.accountId,
      seq: 0,
      model: null,
      leaseOwner: null,
      leaseExpiresAt: null,
      updatedAt: c.now,
    };
    const free =
      cursor.leaseOwner === null ||
      cursor.leaseOwner === c.owner ||
      cursor.leaseExpiresAt === null ||
      cursor.leaseExpiresAt <= c.now;
    if (!free) return null;
    const claimed = { ...cursor, leaseOwner: c.owner, leaseExpiresAt: c.until };
    this.writable('embeddingCursors').set(c.accountId, frozen(claimed));
    return copy(claimed);
  }

  async saveEmbeddingCursor(c: {
    accountId: string;
    owner: string;
    seq: number;
    model: string;
    leaseExpiresAt: number | null;
    now: number;
  }) {
    const cursor = this.tables().embeddingCursors.get(c.accountId);
    if (cursor?.leaseOwner !== c.owner) return false;
    const next: EmbeddingCursorRecord = {
      ...cursor,
      seq: c.seq,
      model: c.model,
      leaseOwner: c.leaseExpiresAt === null ? null : c.owner,
      leaseExpiresAt: c.leaseExpiresAt,
      updatedAt: c.now,
    };
    this.writable('embeddingCursors').set(c.accountId, frozen(next));
    return true;
  }

  async claimScheduleSlot(c: {
    task: string;
    slotAt: number;
    owner: string;
    now: number;
    until: number;
    maxAttempts: number;
  }) {
    const id = slotId(c.task, c.slotAt);
    const slot = this.tables().scheduleSlots.get(id);
    let next: ScheduleSlotRecord | undefined;
    if (!slot)
      next = {
        task: c.task,
        slotAt: c.slotAt,
        owner: c.owner,
        leaseExpiresAt: c.until,
        attempts: 1,
        finishedAt: null,
        outcome: null,
      };
    else if (slot.finishedAt === null && slot.owner === c.owner) next = { ...slot, leaseExpiresAt: c.until };
    else if (
      slot.finishedAt === null &&
      (slot.leaseExpiresAt === null || slot.leaseExpiresAt <= c.now) &&
      slot.attempts < c.maxAttempts
    )
      next = { ...slot, owner: c.owner, leaseExpiresAt: c.until, attempts: slot.attempts + 1 };
    if (next === undefined) return { claimed: false, slot: copy(slot!) };
    this.writable('scheduleSlots').set(id, frozen(next));
    return { claimed: true, slot: copy(next) };
  }

  async finishScheduleSlot(c: {
    task: string;
    slotAt: number;
    owner: string;
    outcome: 'ok' | 'failed';
    now: number;
  }) {
    const id = slotId(c.task, c.slotAt);
    const slot = this.tables().scheduleSlots.get(id);
    if (!slot || slot.owner !== c.owner || slot.finishedAt !== null) return false;
    const next = { ...slot, leaseExpiresAt: null, finishedAt: c.now, outcome: c.outcome };
    this.writable('scheduleSlots').set(id, frozen(next));
    return true;
  }

  async deleteScheduleSlotsBefore(c: { task: string; before: number; limit: number }) {
    const doomed = [...this.tables().scheduleSlots.values()]
      .filter((slot) => slot.task === c.task && slot.slotAt < c.before)
      .sort((a, b) => a.slotAt - b.slotAt)
      .slice(0, c.limit);
    if (doomed.length === 0) return 0;
    const table = this.writable('scheduleSlots');
    for (const slot of doomed) table.delete(slotId(slot.task, slot.slotAt));
    return doomed.length;
  }

  async keepStoreSecret(c: { name: string; value: string }) {
    const kept = this.tables().secrets.get(c.name);
    if (kept !== undefined) return kept;
    this.writable('secrets').set(c.name, c.value);
    return c.value;
  }

  async touchApiKey(c: { keyId: string; lastUsedAt: number }) {
    const apiKey = this.tables().apiKeys.get(c.keyId);
    if (!apiKey || (apiKey.lastUsedAt !== null && apiKey.lastUsedAt >= c.lastUsedAt)) return;
    this.writable('apiKeys').set(apiKey.id, frozen({ ...apiKey, lastUsedAt: c.lastUsedAt }));
  }

  async insertWebhook(c: { webhook: WebhookRecord }) {
    this.insertNew('webhooks', c.webhook);
  }

  async deleteWebhook(c: { webhookId: string }) {
    if (!this.tables().webhooks.has(c.webhookId)) return false;
    this.writable('webhooks').delete(c.webhookId);
    const doomed = select(this.tables().webhookDeliveries, (d) => d.webhookId === c.webhookId);
    if (doomed.length > 0) {
      const deliveries = this.writable('webhookDeliveries');
      for (const d of doomed) deliveries.delete(d.id);
    }
    return true;
  }

  async claimWebhook(c: { webhookId: string; owner: string; now: number; until: number }) {
    const w = this.tables().webhooks.get(c.webhookId);
    const free =
      w?.active &&
      (w.leaseOwner === null ||
        w.leaseOwner === c.owner ||
        w.leaseExpiresAt === null ||
        w.leaseExpiresAt <= c.now);
    if (!w || !free) return null;
    const claimed = { ...w, leaseOwner: c.owner, leaseExpiresAt: c.until };
    this.writable('webhooks').set(w.id, frozen(claimed));
    return copy(claimed);
  }

  async saveWebhookProgress(c: { webhookId: string; owner: string; progress: WebhookProgress }) {
    const w = this.tables().webhooks.get(c.webhookId);
    if (w?.leaseOwner !== c.owner) return false;
    const { leaseExpiresAt, ...state } = c.progress;
    const next = { ...w, ...state, leaseExpiresAt, leaseOwner: leaseExpiresAt === null ? null : c.owner };
    this.writable('webhooks').set(w.id, frozen(next));
    return true;
  }

  async enableWebhook(c: { webhookId: string }) {
    const w = this.tables().webhooks.get(c.webhookId);
    if (!w) return false;
    const next = { ...w, active: true, disabledReason: null, attempt: 0, nextAttemptAt: null };
    this.writable('webhooks').set(w.id, frozen(next));
    return true;
  }

  async insertWebhookDelivery(c: { delivery: WebhookDeliveryRecord }) {
    this.insertNew('webhookDeliveries', c.delivery);
  }

  async deleteWebhookDeliveriesBefore(c: { before: number; limit: number }) {
    const doomed = select(this.tables().webhookDeliveries, (d) => d.at < c.before)
      .sort((a, b) => a.at - b.at)
      .slice(0, c.limit);
    if (doomed.length === 0) return 0;
    const table = this.writable('webhookDeliveries');
    for (const d of doomed) table.delete(d.id);
    return doomed.length;
  }

  async lockProject(q: { projectId: string }) {
    return this.findProjectById(q);
  }

  async insertProject(c: { project: ProjectRecord }) {
    this.assertNameFree(c.project);
    this.insertNew('projects', c.project);
  }

  async updateProject(c: { project: ProjectRecord }) {
    const stored = this.tables().projects.get(c.project.id);
    if (!stored) return;
    // Every field but the immutable ones, as the SQL adapters' shared column description does.
    const next = { ...c.project, accountId: stored.accountId, createdAt: stored.createdAt };
    this.assertNameFree(next);
    this.writable('projects').set(next.id, frozen(next));
  }

  private assertNameFree(project: ProjectRecord): void {
    if (project.status !== 'active') return;
    if (findActiveProject(this.tables(), project.accountId, project.name, project.id))
      this.conflict('project_name');
  }

  async insertFile(c: { file: FileRecord }) {
    if (findFile(this.tables(), c.file.projectId, c.file.filename)) this.conflict('filename');
    this.insertNew('files', c.file);
  }

  async updateFile(c: { file: FileRecord }) {
    const stored = this.tables().files.get(c.file.id);
    if (!stored) return;
    const next = { ...c.file, projectId: stored.projectId, createdAt: stored.createdAt };
    if (next.filename !== stored.filename && findFile(this.tables(), next.projectId, next.filename))
      this.conflict('filename');
    this.writable('files').set(next.id, frozen(next));
  }

  async indexFile(c: { file: FileRecord; contentText: string | null }) {
    const stored = this.tables().files.get(c.file.id);
    if (!stored) return;
    const text =
      c.contentText === null
        ? (this.tables().searchIndex.get(stored.id)?.text ?? '')
        : truncateUtf8(c.contentText, SEARCH_LIMITS.contentMaxBytes);
    const entry = { projectId: stored.projectId, text, document: fileSearchDocument(stored, text) };
    this.writable('searchIndex').set(stored.id, Object.freeze(entry));
  }

  async indexLinks(c: { entry: FileLinksRecord }) {
    const stored = this.tables().files.get(c.entry.fileId);
    if (!stored) return;
    this.writable('links').set(
      stored.id,
      Object.freeze(structuredClone({ ...c.entry, projectId: stored.projectId })),
    );
  }

  async deleteFile(c: { fileId: string }) {
    if (this.tables().links.has(c.fileId)) this.writable('links').delete(c.fileId);
    if (this.tables().files.has(c.fileId)) this.writable('files').delete(c.fileId);
    if (this.tables().searchIndex.has(c.fileId)) this.writable('searchIndex').delete(c.fileId);
  }

  async purgeProjectRecords(c: { projectId: string; limit: number }) {
    let left = c.limit;
    for (const name of [
      'searchIndex',
      'links',
      'revisions',
      'inlineContents',
      'trash',
      'attachments',
      'files',
    ] as const) {
      if (left <= 0) break;
      const keys: string[] = [];
      for (const [key, row] of this.tables()[name] as ReadonlyMap<string, { projectId: string }>) {
        if (keys.length >= left) break;
        if (row.projectId === c.projectId) keys.push(key);
      }
      if (keys.length === 0) continue;
      const writable = this.writable(name);
      for (const key of keys) writable.delete(key);
      left -= keys.length;
    }
    return c.limit - left;
  }

  async insertAttachment(c: { attachment: AttachmentRecord }) {
    if (findAttachment(this.tables(), c.attachment.projectId, c.attachment.path))
      this.conflict('attachment_path');
    this.insertNew('attachments', c.attachment);
  }

  async updateAttachment(c: { attachment: AttachmentRecord }) {
    const stored = this.tables().attachments.get(c.attachment.id);
    if (!stored) return;
    const next = {
      ...c.attachment,
      projectId: stored.projectId,
      path: stored.path,
      createdAt: stored.createdAt,
    };
    this.writable('attachments').set(next.id, frozen(next));
  }

  async renameAttachment(c: { attachmentId: string; path: string }) {
    const stored = this.tables().attachments.get(c.attachmentId);
    if (!stored || stored.path === c.path) return;
    if (findAttachment(this.tables(), stored.projectId, c.path)) this.conflict('attachment_path');
    this.writable('attachments').set(stored.id, frozen({ ...stored, path: c.path }));
  }

  async deleteAttachment(c: { attachmentId: string }) {
    if (this.tables().attachments.has(c.attachmentId)) this.writable('attachments').delete(c.attachmentId);
  }

  async insertRevision(c: { revision: RevisionRecord }) {
    this.insertNew('revisions', c.revision, revisionId(c.revision.fileId, c.revision.revision));
  }

  async deleteRevisions(c: { fileId: string; revisions: readonly number[] }) {
    const ids = c.revisions.map((revision) => revisionId(c.fileId, revision));
    if (!ids.some((id) => this.tables().revisions.has(id))) return;
    const revisions = this.writable('revisions');
    for (const id of ids) revisions.delete(id);
  }

  async insertInlineContent(c: { projectId: string; contentKey: string; bytes: Uint8Array }) {
    const content = { projectId: c.projectId, bytes: c.bytes.slice() };
    this.insertNew('inlineContents', content, contentId(c.projectId, c.contentKey));
  }

  async deleteInlineContent(c: { projectId: string; contentKey: string }) {
    const id = contentId(c.projectId, c.contentKey);
    if (this.tables().inlineContents.has(id)) this.writable('inlineContents').delete(id);
  }

  async insertTrashItem(c: { item: TrashRecord }) {
    this.insertNew('trash', c.item);
  }

  async deleteTrashItem(c: { projectId: string; trashId: string }) {
    const item = this.tables().trash.get(c.trashId);
    if (item?.projectId !== c.projectId) return null;
    this.writable('trash').delete(c.trashId);
    return copy(item);
  }

  async insertBlobIntent(c: { intent: BlobIntentRecord }) {
    this.insertNew('intents', c.intent);
  }

  async deleteBlobIntent(c: { intentId: string }) {
    if (!this.tables().intents.has(c.intentId)) return false;
    return this.writable('intents').delete(c.intentId);
  }

  async upsertInstance(c: { instance: InstanceRecord }) {
    this.writable('instances').set(c.instance.id, frozen(c.instance));
  }

  async deleteInstance(c: { instanceId: string }) {
    if (this.tables().instances.has(c.instanceId)) this.writable('instances').delete(c.instanceId);
  }
}

class MemoryRecordsRepository extends TablesReader implements RecordsRepository {
  readonly supports = CAPABILITIES;
  private committed = emptyTables();
  private readonly mutex = new Mutex();

  protected tables(): Tables {
    return this.committed;
  }

  withTransaction<T>(work: (tx: RecordsTransaction) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const tx = new MemoryTransaction(this.committed);
      try {
        const result = await work(tx);
        // A work function that caught a conflict and resolved anyway gets the conflict, not a commit.
        if (tx.failure !== undefined) throw tx.failure;
        this.committed = tx.end();
        return result;
      } finally {
        tx.end();
      }
    });
  }

  async close(): Promise<void> {}
}

/**
 * Records kept in process memory, for tests and throw-away embedding. Transactions are serialised; a
 * work function must not call `withTransaction` again on the same repository (it would wait forever).
 */
export function createMemoryRecords(_options: MemoryRecordsOptions = {}): RecordsRepository {
  return new MemoryRecordsRepository();
}
