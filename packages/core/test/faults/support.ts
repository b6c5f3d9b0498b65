import { createHash } from 'node:crypto';
import type { BlobIntentRecord, BlobStore, RecordsReader } from '@mdstore/core';
import { expectedAccounting, readStoredContent } from '@mdstore/core/testing';

export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export async function readAll(content: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A blob store that remembers every bucket it was asked to create, so leaks can be found later. */
export function bucketRecorder(inner: BlobStore): { store: BlobStore; buckets: Set<string> } {
  const buckets = new Set<string>();
  const store: BlobStore = {
    scheme: inner.scheme,
    supports: inner.supports,
    createBucket: (o) => {
      buckets.add(o.bucket);
      return inner.createBucket(o);
    },
    deleteBucket: (o) => inner.deleteBucket(o),
    bucketExists: (o) => inner.bucketExists(o),
    probe: (o) => inner.probe(o),
    put: (o) => inner.put(o),
    get: (o) => inner.get(o),
    stat: (o) => inner.stat(o),
    delete: (o) => inner.delete(o),
    list: (o) => inner.list!(o),
    close: () => inner.close(),
  };
  return { store, buckets };
}

export async function allIntents(records: RecordsReader): Promise<BlobIntentRecord[]> {
  const intents: BlobIntentRecord[] = [];
  let afterId: string | undefined;
  for (;;) {
    const batch = await records.listBlobIntents({ limit: 100, afterId });
    if (batch.length === 0) return intents;
    intents.push(...batch);
    afterId = batch[batch.length - 1]!.id;
  }
}

/**
 * Agreement of the two stores, read through the unfaulted adapters. Returns the problems found:
 * - every active project's counters equal its files, its bucket exists, and each file's blob exists
 *   with the recorded size and hash;
 * - every bucket that exists belongs to an active or `deleting` project, or is noted by an intent;
 * - every object in a bucket is referenced by a file record, or noted by an intent, or in the bucket of
 *   a `deleting` project (the deletion finishes later). An object none of these cover is a leak
 *   that reconciliation can never find.
 * With `settled`, leftovers are problems too: no intent, no `deleting` project, no unreferenced object.
 */
export async function storeProblems(o: {
  records: RecordsReader;
  blobs: BlobStore;
  buckets: Iterable<string>;
  accountIds: readonly string[];
  settled?: boolean;
}): Promise<string[]> {
  const problems: string[] = [];
  const intents = await allIntents(o.records);
  if (o.settled && intents.length > 0) problems.push(`${intents.length} intents left after reconcile`);
  const noted = new Set(intents.map((intent) => `${intent.bucket}/${intent.key ?? ''}`));
  const projects = (
    await Promise.all(o.accountIds.map((accountId) => o.records.listProjects({ accountId })))
  ).flat();
  const byBucket = new Map(projects.map((project) => [project.bucketName, project]));
  for (const project of projects) {
    if (project.status !== 'active') continue;
    if (!(await o.blobs.bucketExists({ bucket: project.bucketName }))) {
      problems.push(`active project ${project.name} has no bucket`);
    }
    const expected = await expectedAccounting(o.records, project);
    const counters = (p: {
      fileCount: number;
      totalSizeBytes: number;
      historySizeBytes: number;
      trashSizeBytes: number;
    }) => `${p.fileCount}/${p.totalSizeBytes}/${p.historySizeBytes}/${p.trashSizeBytes}`;
    if (counters(project) !== counters(expected)) {
      problems.push(`counter drift in ${project.name}: ${counters(project)} vs ${counters(expected)}`);
    }
    // Attachments (extensions §12): counters exact, and every record's blob there with its bytes.
    const held = `${project.attachmentCount}/${project.attachmentBytes}`;
    if (held !== `${expected.attachmentCount}/${expected.attachmentBytes}`) {
      problems.push(`attachment counter drift in ${project.name}: ${held}`);
    }
    for (const attachment of expected.attachments) {
      const bytes = await readStoredContent(o, project, { contentKey: attachment.blobKey, inline: false });
      if (!bytes) problems.push(`attachment ${project.name}/${attachment.path} points to a missing blob`);
      else if (bytes.length !== attachment.sizeBytes || sha256Hex(bytes) !== attachment.sha256) {
        problems.push(`attachment ${project.name}/${attachment.path}: bytes do not match its record`);
      }
    }
    const trashed = new Set(expected.trash.map((item) => item.file.id));
    for (const file of [...expected.files, ...expected.trash.map((item) => item.file)]) {
      const bytes = await readStoredContent(o, project, file);
      if (!bytes) {
        problems.push(`file ${project.name}/${file.filename} points to missing content`);
        continue;
      }
      if (bytes.length !== file.sizeBytes || sha256Hex(bytes) !== file.sha256) {
        problems.push(`file ${project.name}/${file.filename}: content does not match its record`);
      }
      // The search index is written by the same transaction: it holds this very content (and nothing
      // of a file in the trash, whose delete removed it).
      const [indexed] = await o.records.findSearchCandidates({
        projectIds: [project.id],
        fileIds: [file.id],
        query: null,
        conditions: [],
        withText: true,
        limit: 1,
      });
      if (trashed.has(file.id)) {
        if (indexed) problems.push(`trashed ${project.name}/${file.filename} is still in the search index`);
      } else if (indexed?.contentText !== new TextDecoder().decode(bytes)) {
        problems.push(`file ${project.name}/${file.filename}: the search index holds other content`);
      }
    }
  }
  if ((await o.records.listUnindexedFiles({ limit: 1 })).length > 0) problems.push('a file is not indexed');
  for (const bucket of o.buckets) {
    if (!(await o.blobs.bucketExists({ bucket }))) continue;
    const project = byBucket.get(bucket);
    const status = project?.status;
    if (status === 'deleted' || (status === undefined && !noted.has(`${bucket}/`))) {
      problems.push(`bucket ${bucket} exists without an owner (${status ?? 'no project'})`);
    }
    if (o.settled && status !== 'active') problems.push(`bucket ${bucket} left behind (${status})`);
    const referenced = project ? (await expectedAccounting(o.records, project)).blobKeys : new Set<string>();
    for await (const { key } of o.blobs.list!({ bucket })) {
      if (referenced.has(key)) continue;
      if (o.settled) problems.push(`unreferenced blob ${bucket}/${key} after reconcile`);
      else if (!noted.has(`${bucket}/${key}`) && status !== 'deleting' && !noted.has(`${bucket}/`)) {
        problems.push(`unreferenced blob ${bucket}/${key} with no intent: reconcile cannot find it`);
      }
    }
  }
  if (o.settled) {
    for (const project of projects) {
      if (project.status === 'deleting') problems.push(`project ${project.name} still deleting`);
    }
  }
  return problems;
}
