import { CHANGESET_WORK } from '../../defaults/changesets.js';
import { isMdStoreError, isRecordConflict } from '../../errors.js';
import { giveTurn, LARGE_TEXT } from '../../markdown/work-budget.js';
import type { AttachmentRecord, BlobIntentRecord, FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { RecordsTransaction } from '../../ports/records.js';
import { SEARCH_LIMITS } from '../../search/limits.js';
import { type StagedAttachments, stageAttachments } from '../attachments/staged.js';
import type { Principal } from '../authentication.js';
import { removeDoomed, withStagedResources } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { linksOfText, putBlob, type StoredContent, searchFields } from '../files/content.js';
import { lockActiveProject, newContentKey, withCounterChange } from '../files/shared.js';
import {
  type ChangesetTag,
  createFileStep,
  deleteFileStep,
  reviseFileStep,
  type StepResult,
  sumCounters,
} from '../files/steps.js';
import {
  type ChangesetPlan,
  type ContentSource,
  encodeText,
  operationFailed,
  type PlannedFile,
  StalePlan,
} from './plan.js';
import { stagedOperationOf } from './plan-attachments.js';

/**
 * The commit of a planned changeset (extensions §9), by the write path's rules: every new content is
 * stored before the transaction (inline contents are buffered; blob contents are noted staged and
 * written), then ONE transaction locks the project, checks that the store still holds what the plan
 * read, applies the same per-file steps as the single writes (one revision per touched file, carrying
 * the changeset's id and message), moves the counters once for the net result and drops the staged
 * notes. On any failure every blob written is removed again; a crash leaves the notes to reconciliation.
 *
 * A file whose content has a `source` instead of a text (an import's, extensions §10) is read when it is
 * needed, one at a time: a blob content is streamed from its source to the blob store before the
 * transaction, like the others; an inline one is read, hashed, indexed and inserted by the transaction
 * when it reaches the file. So a changeset of 10 000 imported files holds no more than one of them.
 *
 * The attachments a changeset writes or deletes (`attach`, `detach`, extensions §12) take the batch
 * write path of attachments (`stageAttachments`): their blobs are noted staged and written before the
 * transaction, which commits their records after the files' (an attachment no longer the one the plan
 * read: plan again), so a note and its images land together or not at all.
 */

/** Blob contents of one changeset written at once (each is a whole content, at most `maxFileBytes`). */
const BLOB_WRITES_AT_ONCE = 4;

interface PreparedContent {
  readonly file: PlannedFile;
  readonly bytes: Uint8Array;
  readonly contentKey: string;
  readonly inline: boolean;
  readonly sha256: string;
  readonly search: Pick<StoredContent, 'searchText' | 'frontmatterJson'>;
  /** Its links (extensions §9), found before the transaction like an upload's, under its final name. */
  readonly links: StoredContent['links'];
}

/**
 * The content versions the commit writes: each new content encoded and hashed once, its form chosen by
 * its size. The contents are bounded (`maxFileBytes` × 4 of puts, edits within `maxFileBytes` each);
 * other requests get a turn after every `CHANGESET_WORK.unitsPerTurn` code units worked on (a turn comes
 * before the file that passes it: a file is one step, its links' parse bounded by itself).
 */
export async function prepareContents(ctx: MdStoreContext, plan: ChangesetPlan): Promise<PreparedContent[]> {
  const prepared: PreparedContent[] = [];
  let sinceTurn = 0;
  for (const file of plan.files) {
    if (file.deleted || file.text === null) continue;
    sinceTurn += file.text.length;
    if (sinceTurn >= CHANGESET_WORK.unitsPerTurn) {
      sinceTurn = 0;
      await giveTurn();
    }
    const bytes = encodeText(file.text);
    const hash = ctx.hashing.sha256();
    hash.update(bytes);
    prepared.push({
      file,
      bytes,
      contentKey: newContentKey(ctx, file.fileId),
      inline: bytes.byteLength <= ctx.settings.inlineMaxBytes,
      sha256: hash.digestHex(),
      search: searchFields(file.text.slice(0, SEARCH_LIMITS.contentMaxBytes)),
      links: await linksOfText(ctx, file.text, file.filename),
    });
  }
  return prepared;
}

async function* oneChunk(bytes: Uint8Array): ByteStream {
  yield bytes;
}

export interface CommittedChangeset {
  readonly project: ProjectRecord;
  /** The record each planned file ends as (absent: deleted). */
  readonly records: ReadonlyMap<PlannedFile, FileRecord>;
  /** The record of each attachment path the changeset wrote (absent: deleted or untouched). */
  readonly attachments: ReadonlyMap<string, AttachmentRecord>;
}

/** The plan's attachment writes, staged (their blobs written) before the commit; none: undefined. */
async function stagePlannedAttachments(
  ctx: MdStoreContext,
  o: { principal: Principal; plan: ChangesetPlan; signal?: AbortSignal },
): Promise<StagedAttachments | undefined> {
  const operations = (o.plan.attachments ?? []).flatMap((planned) => stagedOperationOf(planned) ?? []);
  if (operations.length === 0) return undefined;
  return stageAttachments(ctx, {
    principal: o.principal,
    project: o.plan.project,
    operations,
    ...(o.signal && { signal: o.signal }),
    changed: () => new StalePlan(),
  });
}

export async function commitChangeset(
  ctx: MdStoreContext,
  o: {
    principal: Principal;
    plan: ChangesetPlan;
    changeset: ChangesetTag;
    signal?: AbortSignal;
    /** false: the answer needs no file records (an import's), so none is kept while the commit runs. */
    keepRecords?: boolean;
    /** More writes of the commit's transaction, after the files' and the project's. */
    alsoInTransaction?: (tx: RecordsTransaction) => Promise<void>;
  },
): Promise<CommittedChangeset> {
  const { plan } = o;
  const project = plan.project;
  const contents = await prepareContents(ctx, plan);
  const prepared = new Map(contents.map((content) => [content.file, content]));
  const sourced = new Map(
    plan.files
      .filter((file) => !file.deleted && file.text === null && file.source !== undefined)
      .map((file) => [file, newContentKey(ctx, file.fileId)] as const),
  );
  const blobs: BlobWrite[] = [
    ...contents
      .filter((content) => !content.inline)
      .map((content) => ({ contentKey: content.contentKey, open: () => oneChunk(content.bytes) })),
    ...[...sourced]
      .filter(([file]) => file.source!.sizeBytes > ctx.settings.inlineMaxBytes)
      .map(([file, contentKey]) => ({ contentKey, open: () => loaded(file.source!) })),
  ];
  const staged = await stagePlannedAttachments(ctx, o);
  const attachments = staged && ((tx: RecordsTransaction) => staged.commit(tx, o.changeset.id));
  const commit = async (tx: RecordsTransaction, written: WrittenBlobs) => {
    for (const content of contents) {
      if (content.inline) {
        await tx.insertInlineContent({
          projectId: project.id,
          contentKey: content.contentKey,
          bytes: content.bytes,
        });
      }
    }
    const turns = { since: 0 };
    const stored = async (file: PlannedFile): Promise<StoredContent | undefined> => {
      const content = prepared.get(file);
      if (content !== undefined) {
        const blob = written.get(content.contentKey);
        return {
          contentKey: content.contentKey,
          inline: content.inline,
          sizeBytes: blob?.sizeBytes ?? content.bytes.byteLength,
          sha256: blob?.sha256 ?? content.sha256,
          ...content.search,
          links: content.links,
        };
      }
      const contentKey = sourced.get(file);
      if (contentKey === undefined) return undefined;
      const version = await sourcedContent(ctx, tx, {
        project,
        file,
        contentKey,
        blob: written.get(contentKey),
      });
      turns.since += version.sizeBytes;
      if (turns.since >= LARGE_TEXT) {
        turns.since = 0;
        await giveTurn();
      }
      return version;
    };
    return applyPlan(ctx, tx, { ...o, stored, attachments });
  };
  let done: { committed: CommittedChangeset; doomed: readonly BlobIntentRecord[] };
  try {
    done =
      blobs.length === 0
        ? await ctx.records.withTransaction((tx) => commit(tx, new Map()))
        : await withStagedResources(
            ctx,
            blobs.map((blob) => ({ bucket: project.bucketName, key: blob.contentKey })),
            (deadline) => writeBlobs(ctx, project, blobs, [o.signal, deadline]),
            (tx, written) => commit(tx, written),
          );
  } catch (error) {
    await staged?.discard();
    // Another write took a name the plan found free: plan again (it then answers as it should).
    if (isRecordConflict(error, 'filename') || isRecordConflict(error, 'attachment_path'))
      throw new StalePlan();
    throw error;
  }
  for (const intent of done.doomed) await removeDoomed(ctx, intent);
  await staged?.cleanUp();
  return done.committed;
}

async function* loaded(source: ContentSource): ByteStream {
  yield await source.load();
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A sourced content, inside the commit transaction: read, hashed (the digest recorded is that of the
 * bytes written), its search fields and links found, and, when inline, inserted; a blob content was
 * written before the transaction (`blob`: what the blob store counted and hashed).
 */
async function sourcedContent(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    project: ProjectRecord;
    file: PlannedFile;
    contentKey: string;
    blob: { sizeBytes: number; sha256: string } | undefined;
  },
): Promise<StoredContent> {
  const source = o.file.source!;
  const bytes = await source.load();
  let sha256 = o.blob?.sha256;
  if (sha256 === undefined) {
    const hash = ctx.hashing.sha256();
    hash.update(bytes);
    sha256 = hash.digestHex();
  }
  if (sha256 !== source.sha256) throw new Error(`The content of ${o.file.filename} changed in its source`);
  const text = UTF8.decode(bytes);
  if (o.blob === undefined) {
    await tx.insertInlineContent({ projectId: o.project.id, contentKey: o.contentKey, bytes });
  }
  return {
    contentKey: o.contentKey,
    inline: o.blob === undefined,
    sizeBytes: o.blob?.sizeBytes ?? bytes.byteLength,
    sha256,
    ...searchFields(text.slice(0, SEARCH_LIMITS.contentMaxBytes)),
    links: await linksOfText(ctx, text, o.file.filename),
  };
}

/** A blob content the commit writes before its transaction, opened when its turn comes. */
interface BlobWrite {
  readonly contentKey: string;
  open(): ByteStream;
}

/** What the blob store counted and hashed of each content written, by content key. */
type WrittenBlobs = Map<string, { sizeBytes: number; sha256: string }>;

/**
 * Writes the blob contents, a few at once: many small blobs are bound by round trips, not by bytes.
 * After a failure no new write starts, and every write under way is waited for before the failure is
 * thrown: compensation must not run while a blob may still be landing.
 */
async function writeBlobs(
  ctx: MdStoreContext,
  project: ProjectRecord,
  blobs: readonly BlobWrite[],
  signals: readonly (AbortSignal | undefined)[],
): Promise<WrittenBlobs> {
  const written: WrittenBlobs = new Map();
  let next = 0;
  let failed = false;
  const writer = async () => {
    while (next < blobs.length && !failed) {
      const blob = blobs[next++]!;
      try {
        written.set(blob.contentKey, await putBlob(ctx, project, blob.contentKey, blob.open(), signals));
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const writers = Array.from({ length: Math.min(BLOB_WRITES_AT_ONCE, blobs.length) }, writer);
  const failure = (await Promise.allSettled(writers)).find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return written;
}

/** Inside the commit transaction: the plan's per-file steps, and the counters once. */
async function applyPlan(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    principal: Principal;
    plan: ChangesetPlan;
    changeset: ChangesetTag;
    /** The content version a file gets (undefined: its content stays), worked out when it is reached. */
    stored: (file: PlannedFile) => Promise<StoredContent | undefined>;
    keepRecords?: boolean;
    /** The attachments' commit (their records, counters, events), after the files'. */
    attachments?: (tx: RecordsTransaction) => Promise<ReadonlyMap<string, AttachmentRecord>>;
    alsoInTransaction?: (tx: RecordsTransaction) => Promise<void>;
  },
): Promise<{ committed: CommittedChangeset; doomed: BlobIntentRecord[] }> {
  const { plan, changeset } = o;
  const locked = await lockActiveProject(tx, o.principal, plan.project.id);
  // The plan judged the operations against these files: they must still be exactly these (one read).
  const names = [...plan.seen.keys()];
  const found = await tx.findFiles({ projectId: locked.id, filenames: names });
  const byName = new Map(found.map((file) => [file.filename, file]));
  const current = new Map<string, FileRecord>();
  for (const [filename, seen] of plan.seen) {
    const now = byName.get(filename) ?? null;
    if ((now === null) !== (seen === null)) throw new StalePlan();
    if (now && seen && (now.id !== seen.id || now.revision !== seen.revision)) throw new StalePlan();
    if (now) current.set(now.id, now);
  }
  if (locked.requireIfMatch !== plan.project.requireIfMatch) throw new StalePlan();
  const at = notBefore(ctx.clock.now(), locked.updatedAt);
  // What the steps leave: their counters and doomed versions, and (unless the caller needs none) the
  // record of each file, kept per step only as far as needed.
  const counters: StepResult['counters'][] = [];
  const doomed: BlobIntentRecord[] = [];
  const records = new Map<PlannedFile, FileRecord>();
  const keep = (step: StepResult, file?: PlannedFile) => {
    counters.push(step.counters);
    doomed.push(...step.doomed);
    if (file && o.keepRecords !== false) records.set(file, step.file!);
  };
  const existing = plan.files.filter((file) => file.origin !== null);
  // Deletes first (they free names), then the changed files (renames ordered so that no two files ever
  // hold one name), then the new files.
  for (const file of existing.filter((f) => f.deleted)) {
    keep(await deleteFileStep(ctx, tx, { project: locked, file: current.get(file.fileId)!, at, changeset }));
  }
  const pending = existing.filter((f) => !f.deleted);
  while (pending.length > 0) {
    // The names still held, worked out only when a file is renamed (an import of 10 000 updates renames
    // none: each step is then found at once, not after a pass over the rest).
    let holders: Set<string> | undefined;
    const held = (name: string) => {
      holders ??= new Set(pending.map((f) => current.get(f.fileId)!.filename));
      return holders.has(name);
    };
    const index = pending.findIndex(
      (f) => f.filename === current.get(f.fileId)!.filename || !held(f.filename),
    );
    if (index < 0) {
      // A cycle of renames (a swap): one file steps aside, for the rest of this transaction, under a name
      // no other file has (it holds the changeset's id; nothing else is written under the project lock).
      const aside = pending[0]!;
      const record = current.get(aside.fileId)!;
      const moved = { ...record, filename: `${record.filename}.changeset-${changeset.id}` };
      await tx.updateFile({ file: moved });
      current.set(aside.fileId, moved);
      continue;
    }
    const [file] = pending.splice(index, 1);
    const record = current.get(file!.fileId)!;
    const step = await reviseFileStep(ctx, tx, {
      project: locked,
      current: record,
      change: {
        stored: await o.stored(file!),
        ...(file!.filename !== record.filename && { filename: file!.filename }),
        ...(file!.metadataJson !== record.metadataJson && { metadataJson: file!.metadataJson }),
      },
      kind: file!.kind,
      at,
      changeset,
      author: o.principal.keyId,
    });
    keep(step, file!);
  }
  for (const file of plan.files.filter((f) => f.origin === null && !f.deleted)) {
    const step = await createFileStep(ctx, tx, {
      project: locked,
      fileId: file.fileId,
      filename: file.filename,
      stored: (await o.stored(file))!,
      metadataJson: file.metadataJson,
      at,
      author: o.principal.keyId,
      changeset,
      ...(file.dates && { dates: file.dates }),
    });
    keep(step, file);
  }
  let project: ProjectRecord;
  try {
    project = withCounterChange(ctx, locked, sumCounters(counters), at);
  } catch (error) {
    throw operationFailed(error as never, -1, ['body', 'operations']);
  }
  await tx.updateProject({ project });
  let attachments: ReadonlyMap<string, AttachmentRecord> = new Map();
  if (o.attachments) {
    try {
      attachments = await o.attachments(tx);
    } catch (error) {
      // The storage bound, which counts attachments (extensions §12), judged on the whole changeset.
      if (isMdStoreError(error, 'STORAGE_LIMIT_REACHED'))
        throw operationFailed(error, -1, ['body', 'operations']);
      throw error;
    }
    project = (await tx.findProjectById({ projectId: locked.id }))!;
  }
  await o.alsoInTransaction?.(tx);
  return { committed: { project, records, attachments }, doomed };
}
