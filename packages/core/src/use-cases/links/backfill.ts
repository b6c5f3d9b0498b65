import { linkEntry } from '../../links/entry.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { MdStoreContext } from '../context.js';
import { storedContentLinks } from './index-step.js';

const BATCH = 50;

export interface LinkBackfillReport {
  readonly indexed: number;
  /** Files whose content could not be read: indexed with no links (reported as a warning). */
  readonly unreadable: number;
}

/**
 * Gives the files stored before the link index existed (migration 10) their entry, read from their
 * content. Run at start-up before the server reports ready, like the search backfill; idempotent
 * (only files without an entry are read) and safe while writes go on: a file written since it was
 * listed was indexed by that write, and is left alone.
 */
export async function backfillLinkIndex(ctx: MdStoreContext): Promise<LinkBackfillReport> {
  let indexed = 0;
  let unreadable = 0;
  const projects = new Map<string, ProjectRecord | null>();
  for (;;) {
    const batch = await ctx.records.listFilesWithoutLinks({ limit: BATCH });
    if (batch.length === 0) return { indexed, unreadable };
    for (const file of batch) {
      if (!projects.has(file.projectId))
        projects.set(file.projectId, await ctx.records.findProjectById({ projectId: file.projectId }));
      const project = projects.get(file.projectId) ?? null;
      const links = project ? await readLinks(ctx, project, file) : null;
      if (links === null) unreadable += 1;
      await ctx.records.withTransaction(async (tx) => {
        const current = await tx.findFile({ projectId: file.projectId, filename: file.filename });
        if (!current || current.id !== file.id || current.revision !== file.revision) return;
        if (await tx.findFileLinks({ fileId: file.id })) return;
        await tx.indexLinks({ entry: linkEntry(current, links ?? { links: [], slugs: [], headings: [] }) });
      });
      indexed += 1;
    }
  }
}

async function readLinks(ctx: MdStoreContext, project: ProjectRecord, file: FileRecord) {
  try {
    return await storedContentLinks(ctx, project, file, file.filename);
  } catch (error) {
    ctx.events.warn('link backfill: reading content failed, indexed with no links', {
      fileId: file.id,
      error: String(error),
    });
    return null;
  }
}
