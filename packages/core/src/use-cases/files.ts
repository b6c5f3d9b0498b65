import {
  BlobNotFoundError,
  BlobTooLargeError,
  BucketNotFoundError,
  ContentTooLargeError,
  FileNotFoundError,
  FilenameTakenError,
  ProjectNotFoundError,
  RecordConflictError,
} from '../errors.js';
import type { FileRecord, ProjectRecord } from '../model/records.js';
import type { ByteStream, StoredBlob } from '../ports/blobs.js';
import type { RecordsTransaction } from '../ports/records.js';
import { checkedContent } from '../validation/content.js';
import {
  checkUploadFilename,
  type JsonObject,
  parseMetadataUpdateBody,
  parseProjectId,
  parseUploadMetadataField,
} from '../validation/schemas.js';
import { assertOwnedActive, loadOwnedProject } from './access.js';
import type { Principal } from './authentication.js';
import { doomResource, removeDoomed, withStagedResource } from './blob-intents.js';
import { type MdStoreContext, notBefore } from './context.js';
import { type FileView, toFileView } from './views.js';

type MaybePromise<T> = T | Promise<T>;

export interface UploadFileInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  readonly content: ByteStream;
  /** The `metadata` field; a promise when the form has not been read to its end yet. */
  readonly metadata?: MaybePromise<string | undefined>;
  readonly signal?: AbortSignal;
}

const isPromise = <T>(value: MaybePromise<T>): value is Promise<T> =>
  typeof (value as Promise<T> | undefined)?.then === 'function';

async function findFileOr404(
  records: { findFile: RecordsTransaction['findFile'] },
  projectId: string,
  filename: string,
) {
  const file = await records.findFile({ projectId, filename });
  if (!file) throw new FileNotFoundError(filename);
  return file;
}

/** Writes content under a new immutable key, translating the blob store's refusals into domain errors. */
async function putContent(
  ctx: MdStoreContext,
  target: { bucket: string; key: string; projectId: string },
  content: ByteStream,
  loc: readonly string[],
  signals: readonly (AbortSignal | undefined)[],
): Promise<StoredBlob> {
  const maxBytes = ctx.settings.maxFileBytes;
  try {
    return await ctx.blobs.put({
      bucket: target.bucket,
      key: target.key,
      content: checkedContent(content, { maxBytes, loc }),
      maxBytes,
      signal: AbortSignal.any(signals.filter((signal) => signal !== undefined)),
    });
  } catch (error) {
    if (error instanceof BlobTooLargeError) throw new ContentTooLargeError(maxBytes);
    if (error instanceof BucketNotFoundError) throw new ProjectNotFoundError(target.projectId);
    throw error;
  }
}

/** The project after a file write: counters moved by the change, `updatedAt` never backwards. */
const withSizeChange = (project: ProjectRecord, countChange: number, sizeChange: number, at: number) => ({
  ...project,
  fileCount: project.fileCount + countChange,
  totalSizeBytes: project.totalSizeBytes + sizeChange,
  updatedAt: notBefore(at, project.updatedAt),
});

const newBlobKey = (ctx: MdStoreContext, fileId: string) => `${fileId}/${ctx.ids.uuid()}`;

/** Locks the project for a file write; it must still be active and owned. */
async function lockActiveProject(tx: RecordsTransaction, principal: Principal, projectId: string) {
  return assertOwnedActive(await tx.lockProject({ projectId }), principal, projectId);
}

/**
 * Upload: checks that need no content come first (project, filename, duplicate), then the content
 * streams into a new blob, then one short transaction adds the record and the project's counters.
 */
export async function uploadFile(ctx: MdStoreContext, input: UploadFileInput): Promise<FileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  checkUploadFilename(input.filename);
  if (input.metadata !== undefined && !isPromise(input.metadata)) parseUploadMetadataField(input.metadata);
  if (await ctx.records.findFile({ projectId: project.id, filename: input.filename })) {
    throw new FilenameTakenError(input.filename);
  }
  const fileId = ctx.ids.uuid();
  const key = newBlobKey(ctx, fileId);
  try {
    return await withStagedResource(
      ctx,
      { bucket: project.bucketName, key },
      async (deadline) => {
        const target = { bucket: project.bucketName, key, projectId: project.id };
        const blob = await putContent(ctx, target, input.content, ['body', 'file'], [input.signal, deadline]);
        const metadata = parseUploadMetadataField(await input.metadata);
        return { blob, metadata };
      },
      (tx, { blob, metadata }) => commitNewFile(ctx, tx, input, { fileId, key, blob, metadata }),
    );
  } catch (error) {
    if (error instanceof RecordConflictError && error.rule === 'filename')
      throw new FilenameTakenError(input.filename);
    throw error;
  }
}

async function commitNewFile(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  input: UploadFileInput,
  written: { fileId: string; key: string; blob: StoredBlob; metadata: JsonObject | null },
): Promise<FileView> {
  const project = await lockActiveProject(tx, input.principal, parseProjectId(input.projectId));
  if (await tx.findFile({ projectId: project.id, filename: input.filename })) {
    throw new FilenameTakenError(input.filename);
  }
  const at = notBefore(ctx.clock.now(), project.updatedAt);
  const file: FileRecord = {
    id: written.fileId,
    projectId: project.id,
    filename: input.filename,
    sizeBytes: written.blob.sizeBytes,
    sha256: written.blob.sha256,
    metadataJson: written.metadata === null ? null : JSON.stringify(written.metadata),
    blobKey: written.key,
    revision: 1,
    createdAt: at,
    updatedAt: at,
  };
  await tx.insertFile({ file });
  await tx.updateProject({ project: withSizeChange(project, 1, file.sizeBytes, at) });
  return toFileView(file, project, ctx.blobs.scheme);
}

export interface FileList {
  readonly files: FileView[];
  readonly totalCount: number;
  readonly totalSizeBytes: number;
}

/** Every file of the project, by filename in code-point order. */
export async function listFiles(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string },
): Promise<FileList> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const files = (await ctx.records.listFiles({ projectId: project.id })).map((file) =>
    toFileView(file, project, ctx.blobs.scheme),
  );
  const totalSizeBytes = files.reduce((sum, file) => sum + file.sizeBytes, 0);
  return { files, totalCount: files.length, totalSizeBytes };
}

export interface Download {
  readonly file: FileView;
  readonly content: ByteStream;
}

/**
 * Opens a file's content. A concurrent content update may retire the blob between reading the record
 * and opening it; the record is then read again, so a reader always gets one whole version.
 */
export async function downloadFile(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; filename: string; signal?: AbortSignal },
): Promise<Download> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  for (let attempt = 0; attempt < 3; attempt++) {
    const file = await findFileOr404(ctx.records, project.id, input.filename);
    try {
      const opened = await ctx.blobs.get({
        bucket: project.bucketName,
        key: file.blobKey,
        signal: input.signal,
      });
      return { file: toFileView(file, project, ctx.blobs.scheme), content: opened.content };
    } catch (error) {
      if (!(error instanceof BlobNotFoundError)) throw error;
    }
  }
  throw new FileNotFoundError(input.filename);
}

/** Replaces the whole metadata object (null clears it). The project is left untouched. */
export async function updateFileMetadata(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; filename: string; body: unknown },
): Promise<FileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  await findFileOr404(ctx.records, project.id, input.filename);
  const metadata = parseMetadataUpdateBody(input.body);
  return ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const current = await findFileOr404(tx, locked.id, input.filename);
    const updated: FileRecord = {
      ...current,
      metadataJson: metadata === null ? null : JSON.stringify(metadata),
      revision: current.revision + 1,
      updatedAt: notBefore(ctx.clock.now(), current.updatedAt),
    };
    await tx.updateFile({ file: updated });
    return toFileView(updated, locked, ctx.blobs.scheme);
  });
}

/**
 * Replaces the content, keeping the metadata: the new version is written under a new key, the record
 * is switched to it in one transaction, and only then is the old version removed. Concurrent updates
 * resolve as last-write-wins, each reader seeing one whole version.
 */
export async function updateFileContent(
  ctx: MdStoreContext,
  input: {
    principal: Principal;
    projectId: string;
    filename: string;
    content: ByteStream;
    signal?: AbortSignal;
  },
): Promise<FileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const existing = await findFileOr404(ctx.records, project.id, input.filename);
  const key = newBlobKey(ctx, existing.id);
  const { view, doomed } = await withStagedResource(
    ctx,
    { bucket: project.bucketName, key },
    (deadline) =>
      putContent(
        ctx,
        { bucket: project.bucketName, key, projectId: project.id },
        input.content,
        ['body'],
        [input.signal, deadline],
      ),
    async (tx, blob) => {
      const locked = await lockActiveProject(tx, input.principal, project.id);
      const current = await findFileOr404(tx, locked.id, input.filename);
      const at = notBefore(ctx.clock.now(), notBefore(current.updatedAt, locked.updatedAt));
      const updated: FileRecord = {
        ...current,
        sizeBytes: blob.sizeBytes,
        sha256: blob.sha256,
        blobKey: key,
        revision: current.revision + 1,
        updatedAt: at,
      };
      await tx.updateFile({ file: updated });
      await tx.updateProject({ project: withSizeChange(locked, 0, blob.sizeBytes - current.sizeBytes, at) });
      const doomed = await doomResource(ctx, tx, { bucket: locked.bucketName, key: current.blobKey });
      return { view: toFileView(updated, locked, ctx.blobs.scheme), doomed };
    },
  );
  await removeDoomed(ctx, doomed);
  return view;
}

/** Removes the record and its counters in one transaction, then the content. */
export async function deleteFile(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; filename: string },
): Promise<void> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const doomed = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const file = await findFileOr404(tx, locked.id, input.filename);
    await tx.deleteFile({ fileId: file.id });
    await tx.updateProject({ project: withSizeChange(locked, -1, -file.sizeBytes, ctx.clock.now()) });
    return doomResource(ctx, tx, { bucket: locked.bucketName, key: file.blobKey });
  });
  await removeDoomed(ctx, doomed);
}
