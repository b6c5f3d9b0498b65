import { LINK_LIMITS } from '../../defaults/links.js';
import { resolveLink } from '../../links/entry.js';
import { type AttachmentTarget, type Resolution, TargetIndex, targetKeys } from '../../links/resolve.js';
import type { RenderTarget } from '../../markdown/render/links.js';
import { shownText } from '../../markdown/render/render.js';
import { findWikiLinks } from '../../markdown/wiki-links.js';
import type { LinkRecord } from '../../model/records.js';
import type { RecordsReader } from '../../ports/records.js';

/**
 * Whether a file's links name the attachment at `path` (extensions §12), as the link index has them
 * (its current version's) and by its rule: the entry's links are read `LINK_LIMITS.batch` at a time
 * until one does (a file's links are bounded by the index's size bound). A link that could name it (its
 * path, or its name) is then resolved against the project as the page's render resolves it, so a name
 * that several files or attachments share names none of them.
 */
export async function linksToAttachment(
  records: Pick<RecordsReader, 'findFileLinks' | 'findAttachments' | 'listLinkTargets'>,
  file: { readonly id: string; readonly projectId: string; readonly filename: string },
  path: string,
): Promise<boolean> {
  const alone = new TargetIndex([], [{ path, contentType: '' }]);
  let afterSeq = -1;
  for (;;) {
    const entry = await records.findFileLinks({ fileId: file.id, afterSeq, limit: LINK_LIMITS.batch });
    const links = entry?.links ?? [];
    const naming = links.filter((link) => alone.resolve(link, file.filename).attachment !== null);
    if (naming.length > 0) {
      const keys = targetKeys(naming, file.filename);
      const [files, attachments] = await Promise.all([
        records.listLinkTargets({ projectId: file.projectId, filenames: keys.filenames, stems: keys.stems }),
        attachmentTargets(records, file.projectId, keys),
      ]);
      const index = new TargetIndex(files, attachments);
      if (naming.some((link) => index.resolve(link, file.filename).attachment?.path === path)) return true;
    }
    if (links.length < LINK_LIMITS.batch) return false;
    afterSeq = links.at(-1)!.seq;
  }
}

/** The attachments of the project at these exact paths, or of these names (those that exist), in one read. */
export async function attachmentTargets(
  records: Pick<RecordsReader, 'findAttachments'>,
  projectId: string,
  keys: { readonly attachments: readonly string[]; readonly attachmentNames: readonly string[] },
): Promise<AttachmentTarget[]> {
  if (keys.attachments.length === 0 && keys.attachmentNames.length === 0) return [];
  const found = await records.findAttachments({
    projectId,
    paths: keys.attachments,
    names: keys.attachmentNames,
  });
  return found.map((attachment) => ({ path: attachment.path, contentType: attachment.contentType }));
}

/**
 * The targets of a file's wiki links and embeds for its render (markdown/render): every `[[…]]` and
 * `![[…]]` of its shown text (code included: a superset of what the render finds), each resolved by
 * the link index's rule (links/resolve.ts) against the project's files and attachments as they are
 * now: at most `LINK_LIMITS.batch` distinct targets (one batch of the link index's reads, two reads in
 * all); a target past them is shown as its text. A file or attachment the reader does not `reach` (a
 * key confined to folders, extensions §14) is not there for it: the link renders as broken.
 */
export async function renderTargets(
  records: Pick<RecordsReader, 'findAttachments' | 'listLinkTargets'>,
  projectId: string,
  filename: string,
  text: string,
  reaches: (path: string) => boolean = () => true,
): Promise<Array<[string, RenderTarget]>> {
  const written = [...new Set(findWikiLinks(shownText(text), { embeds: true }).map((wiki) => wiki.target))];
  if (written.length === 0) return [];
  const links = written
    .slice(0, LINK_LIMITS.batch)
    .map((raw, seq) => resolveLink({ kind: 'wiki', line: 0, raw, start: null, end: null }, seq, filename));
  const keys = targetKeys(links, filename);
  const [files, attachments] = await Promise.all([
    records.listLinkTargets({ projectId, filenames: keys.filenames, stems: keys.stems }),
    attachmentTargets(records, projectId, keys),
  ]);
  const index = new TargetIndex(
    files.filter((file) => reaches(file.filename)),
    attachments.filter((attachment) => reaches(attachment.path)),
  );
  return links.map((link) => [link.raw, renderTarget(link, index.resolve(link, filename))]);
}

function renderTarget(link: LinkRecord, resolution: Resolution): RenderTarget {
  if (resolution.attachment) {
    const { path, contentType } = resolution.attachment;
    return { kind: 'attachment', path, image: /^image\//i.test(contentType) };
  }
  if (resolution.target) {
    // A heading the file lacks: a link to the file.
    const heading = resolution.broken === 'anchor' ? null : link.anchor || null;
    return { kind: 'file', filename: resolution.target.filename, heading };
  }
  return { kind: 'broken', reason: resolution.broken ?? 'missing' };
}
