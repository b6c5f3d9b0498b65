import type { ContentLinks } from '../../links/entry.js';
import { LINKS_MAX_BYTES } from '../../links/extract.js';
import { LinkTextCollector } from '../../links/text.js';
import type { ContentLocation, FileRecord, ProjectRecord } from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import type { MdStoreContext } from '../context.js';
import { linksOfText } from '../files/content.js';
import { openContent } from '../files/download.js';

/**
 * The per-file indexing step of every content write, in its transaction, after `insertFile` or
 * `updateFile`: the search index and the link index (extensions §9) of the file as it now is. `links`
 * are the content's links found before the transaction, or `kept` when the content did not change
 * (a move): the file's links are then resolved again from its new folder.
 */
export async function indexFileWrite(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  c: { file: FileRecord; contentText: string | null; links: ContentLinks | 'kept' },
): Promise<void> {
  await tx.indexFile({ file: c.file, contentText: c.contentText });
  await ctx.linkIndexing.write(tx, { file: c.file, links: c.links });
}

/**
 * The links of a stored content version (inline or in the blob store), for writes that reuse a version
 * instead of receiving one (restore, trash restore) and for the backfill; read before the transaction.
 * A version that is gone has no links.
 */
export async function storedContentLinks(
  ctx: MdStoreContext,
  project: ProjectRecord,
  version: ContentLocation & { readonly sizeBytes: number },
  filename: string,
): Promise<ContentLinks> {
  if (version.sizeBytes > LINKS_MAX_BYTES) return 'too_large';
  const range = version.sizeBytes > 0 ? { start: 0, end: version.sizeBytes - 1 } : null;
  const content = await openContent(ctx, project, version, range, undefined);
  if (content === null) return { links: [], slugs: [], headings: [] };
  const collector = new LinkTextCollector();
  for await (const chunk of content) collector.push(chunk);
  return linksOfText(ctx, collector.text(), filename);
}
