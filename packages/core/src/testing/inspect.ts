import type { AttachmentRecord, FileRecord, ProjectRecord } from '../model/records.js';
import type { BlobStore, ByteStream } from '../ports/blobs.js';
import type { RecordsReader } from '../ports/records.js';
import { historyBytes } from '../use-cases/files/revisions.js';
import { heldBytes } from '../use-cases/trash/held.js';

async function readAll(content: ByteStream): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The bytes a file record points to, wherever they are (inline in the records store, or a blob), or
 * null when they are missing: for consistency checks that read around the use cases.
 */
export async function readStoredContent(
  o: { records: RecordsReader; blobs: BlobStore },
  project: Pick<ProjectRecord, 'id' | 'bucketName'>,
  file: Pick<FileRecord, 'contentKey' | 'inline'>,
): Promise<Uint8Array | null> {
  if (file.inline) return o.records.readInlineContent({ projectId: project.id, contentKey: file.contentKey });
  const blob = await o.blobs.get({ bucket: project.bucketName, key: file.contentKey }).catch(() => null);
  return blob ? readAll(blob.content) : null;
}

/** What a project's records say about its content: its counters as they should be, and the blob keys in use. */
export async function expectedAccounting(records: RecordsReader, project: Pick<ProjectRecord, 'id'>) {
  const files = await records.listFiles({ projectId: project.id });
  let history = 0;
  const blobKeys = new Set<string>();
  for (const file of files) {
    const revisions = await records.listRevisionContents({ fileId: file.id });
    history += historyBytes(revisions, file.contentKey);
    for (const revision of revisions) if (!revision.inline) blobKeys.add(revision.contentKey);
  }
  // Every trash item, expired ones not yet purged included: they hold their bytes until then.
  const trash = await records.listTrash({ projectId: project.id, now: Number.MIN_SAFE_INTEGER, limit: 1e9 });
  let trashBytes = 0;
  for (const item of trash) {
    // An attachment's item (extensions §12) holds its blob and its size, no revisions.
    if (item.attachment) {
      trashBytes += item.file.sizeBytes;
      blobKeys.add(item.file.contentKey);
      continue;
    }
    const revisions = await records.listRevisionContents({ fileId: item.file.id });
    trashBytes += heldBytes(item.file, revisions);
    for (const revision of revisions) if (!revision.inline) blobKeys.add(revision.contentKey);
  }
  // Attachments (extensions §12): every one of the project, in pages; their blobs are in use too.
  const attachments: AttachmentRecord[] = [];
  for (let after: string | undefined; ; ) {
    const page = await records.listAttachmentPage({ projectId: project.id, prefix: '', after, limit: 1000 });
    attachments.push(...page);
    if (page.length < 1000) break;
    after = page.at(-1)!.path;
  }
  for (const attachment of attachments) blobKeys.add(attachment.blobKey);
  return {
    files,
    attachments,
    attachmentCount: attachments.length,
    attachmentBytes: attachments.reduce((sum, a) => sum + a.sizeBytes, 0),
    fileCount: files.length,
    totalSizeBytes: files.reduce((sum, file) => sum + file.sizeBytes, 0),
    historySizeBytes: history,
    trash,
    trashSizeBytes: trashBytes,
    /** Keys of the project's bucket that kept revisions (current ones and trashed files' included), attachments and their trash items point to. */
    blobKeys,
  };
}
