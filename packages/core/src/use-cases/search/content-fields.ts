import type { ContentLocation, ProjectRecord } from '../../model/records.js';
import { ContentTextCollector } from '../../search/content-text.js';
import { SEARCH_LIMITS } from '../../search/limits.js';
import type { MdStoreContext } from '../context.js';
import { searchFields } from '../files/content.js';
import { openContent } from '../files/download.js';

/** What search reads of a stored content version: its first 1 MiB as text, and its front matter. */
export interface ContentSearchFields {
  readonly contentKey: string;
  readonly searchText: string;
  readonly frontmatterJson: string | null;
}

/**
 * Reads a stored content version (inline or in the blob store) for search: only its first 1 MiB, or
 * null when the version is gone. For writes that reuse a version instead of receiving one (restore) and
 * for the start-up backfill.
 */
export async function contentSearchFields(
  ctx: MdStoreContext,
  project: ProjectRecord,
  version: ContentLocation & { readonly sizeBytes: number },
): Promise<ContentSearchFields | null> {
  const end = Math.min(version.sizeBytes, SEARCH_LIMITS.contentMaxBytes) - 1;
  const content = await openContent(ctx, project, version, end >= 0 ? { start: 0, end } : null, undefined);
  if (content === null) return null;
  const collector = new ContentTextCollector();
  for await (const chunk of content) collector.push(chunk);
  return { contentKey: version.contentKey, ...searchFields(collector.text()) };
}
