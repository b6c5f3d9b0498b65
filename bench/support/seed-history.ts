// Fills a project of the store the environment points at with many files and a long history each, fast:
// records written through the records port in batches (one transaction per batch), the current content of
// every `blobEvery`-th file in the blob store, every other content inline, as the store keeps them; then
// the search and link indexes built by the server's own start-up backfills, so the server starts at once.
// It stands in for 100 000 HTTP writes (too slow to seed on every bench run); the figures measured on the
// store are those of the real backup and restore code.
// Usage: seed-history.ts PROJECT_ID FILES REVISIONS_PER_FILE BLOB_EVERY ; prints one JSON line.
import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import type { BlobStore, FileRecord, RecordsRepository, RevisionRecord } from '@mdstore/core';
import { createRuntime } from '../../apps/server/src/composition/index.js';
import { TOKENS } from '../../apps/server/src/composition/tokens.js';
import { loadConfig } from '../../apps/server/src/config/index.js';
import { createLogger } from '../../apps/server/src/logger.js';

const [projectId, filesArg, revisionsArg, blobEveryArg] = process.argv.slice(2);
const files = Number(filesArg);
const revisions = Number(revisionsArg);
const blobEvery = Number(blobEveryArg);
if (!projectId || !(files > 0) || !(revisions > 0) || !(blobEvery > 0))
  throw new Error('usage: seed-history.ts PROJECT_ID FILES REVISIONS_PER_FILE BLOB_EVERY');

/** Files per transaction (each with all its revisions). */
const BATCH = 100;
/** Above the default inline limit (64 KiB): kept in the blob store. */
const BLOB_BYTES = 72 * 1024;
const FILLER = '- a line of notes with `code` and a [[link]] to another note\n';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const contentOf = (file: number, revision: number, size: number) => {
  const head = `# note ${file}, revision ${revision}\n\n`;
  return Buffer.from(head + FILLER.repeat(Math.max(1, Math.ceil((size - head.length) / FILLER.length))));
};

const logger = createLogger({ level: 'warn', stdout: process.stderr, stderr: process.stderr });
const runtime = await createRuntime(loadConfig(process.env), { logger });
const started = Date.now();
try {
  const records = runtime.container.resolve<RecordsRepository>(TOKENS.records);
  const blobs = runtime.container.resolve<BlobStore>(TOKENS.blobs);
  const project = await records.findProjectById({ projectId });
  if (!project) throw new Error(`no project ${projectId}`);
  const base = Date.now() - files * revisions * 1000;
  let totalBytes = 0;
  let historyBytes = 0;
  let blobCount = 0;
  for (let first = 0; first < files; first += BATCH) {
    const fileRows: FileRecord[] = [];
    const revisionRows: RevisionRecord[] = [];
    const inline: { contentKey: string; bytes: Uint8Array }[] = [];
    for (let index = first; index < Math.min(files, first + BATCH); index++) {
      const id = randomUUID();
      const filename = `notes/${String(Math.floor(index / 100)).padStart(3, '0')}/n-${index}.md`;
      let current: FileRecord | undefined;
      for (let revision = 1; revision <= revisions; revision++) {
        const last = revision === revisions;
        const toBlob = last && index % blobEvery === 0;
        const bytes = contentOf(index, revision, toBlob ? BLOB_BYTES : 200 + ((index * 7 + revision) % 600));
        const contentKey = `${id}/${randomUUID()}`;
        if (toBlob) {
          await blobs.put({
            bucket: project.bucketName,
            key: contentKey,
            content: (async function* () {
              yield bytes;
            })(),
            maxBytes: bytes.length,
          });
          blobCount++;
        } else inline.push({ contentKey, bytes });
        const at = base + (index * revisions + revision) * 1000;
        current = {
          id,
          projectId,
          filename,
          sizeBytes: bytes.length,
          sha256: sha256(bytes),
          metadataJson: JSON.stringify({ n: index, revision }),
          frontmatterJson: null,
          contentKey,
          inline: !toBlob,
          revision,
          createdAt: base + index * revisions * 1000,
          updatedAt: at,
        };
        revisionRows.push({
          fileId: id,
          projectId,
          revision,
          sizeBytes: bytes.length,
          sha256: current.sha256,
          metadataJson: current.metadataJson,
          change: revision === 1 ? 'created' : 'content',
          contentKey,
          inline: !toBlob,
          createdAt: at,
          changesetId: null,
          message: null,
          filename,
          keyId: null,
        });
        if (last) totalBytes += bytes.length;
        else historyBytes += bytes.length;
      }
      fileRows.push(current!);
    }
    await records.withTransaction(async (tx) => {
      for (const content of inline) await tx.insertInlineContent({ projectId, ...content });
      for (const file of fileRows) await tx.insertFile({ file });
      for (const revision of revisionRows) await tx.insertRevision({ revision });
    });
  }
  await records.withTransaction(async (tx) => {
    const now = (await tx.findProjectById({ projectId }))!;
    await tx.updateProject({
      project: {
        ...now,
        fileCount: now.fileCount + files,
        totalSizeBytes: now.totalSizeBytes + totalBytes,
        historySizeBytes: now.historySizeBytes + historyBytes,
      },
    });
  });
  const seeded = Date.now();
  // What the server's start-up would do: index the files for search and links (its own code).
  await runtime.store.maintenance.backfillSearch();
  await runtime.store.maintenance.backfillLinks();
  process.stdout.write(
    `${JSON.stringify({
      files,
      revisions: files * revisions,
      blobs: blobCount,
      seedSeconds: (seeded - started) / 1000,
      indexSeconds: (Date.now() - seeded) / 1000,
    })}\n`,
  );
} finally {
  await runtime.close();
}
