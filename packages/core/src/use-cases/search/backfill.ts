import type { FileRecord, ProjectRecord } from '../../model/records.js';
import { parseFrontmatter } from '../../search/frontmatter.js';
import type { MdStoreContext } from '../context.js';
import { contentSearchFields } from './content-fields.js';

const BATCH = 50;

export interface SearchBackfillReport {
  readonly indexed: number;
  /** Files whose content could not be read: indexed without content text (reported as a warning). */
  readonly unreadable: number;
}

/**
 * Reads and indexes the files stored before search existed (extensions §3): each gets its front matter
 * and its search index from its content's first 1 MiB. Run at start-up before the server reports ready;
 * idempotent (only files without an index are read) and safe while writes go on: a file written since
 * it was listed was indexed by that write, and is left alone.
 */
export async function backfillSearchIndex(ctx: MdStoreContext): Promise<SearchBackfillReport> {
  let indexed = 0;
  let unreadable = 0;
  const projects = new Map<string, ProjectRecord | null>();
  for (;;) {
    const batch = await ctx.records.listUnindexedFiles({ limit: BATCH });
    if (batch.length === 0) return { indexed, unreadable };
    for (const file of batch) {
      if (!projects.has(file.projectId))
        projects.set(file.projectId, await ctx.records.findProjectById({ projectId: file.projectId }));
      const text = await contentText(ctx, projects.get(file.projectId) ?? null, file);
      if (text === null) {
        unreadable += 1;
        ctx.events.warn('search backfill: content unreadable, indexed without it', { fileId: file.id });
      }
      await indexOne(ctx, file, text ?? '');
      indexed += 1;
    }
  }
}

async function indexOne(ctx: MdStoreContext, listed: FileRecord, text: string): Promise<void> {
  const frontmatter = parseFrontmatter(text);
  await ctx.records.withTransaction(async (tx) => {
    const current = await tx.findFile({ projectId: listed.projectId, filename: listed.filename });
    if (!current || current.id !== listed.id || current.revision !== listed.revision) return;
    // Front matter is read from the content, not written by anyone: no new revision.
    const file: FileRecord = {
      ...current,
      frontmatterJson: frontmatter === null ? null : JSON.stringify(frontmatter),
    };
    await tx.updateFile({ file });
    await tx.indexFile({ file, contentText: text });
  });
}

/** The first 1 MiB of the file's content as text, or null when it cannot be read. */
async function contentText(
  ctx: MdStoreContext,
  project: ProjectRecord | null,
  file: FileRecord,
): Promise<string | null> {
  if (project === null) return null;
  try {
    return (await contentSearchFields(ctx, project, file))?.searchText ?? null;
  } catch (error) {
    ctx.events.warn('search backfill: reading content failed', { fileId: file.id, error: String(error) });
    return null;
  }
}
