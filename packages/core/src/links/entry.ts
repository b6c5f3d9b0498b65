import type { FileLinksRecord, LinkRecord } from '../model/records.js';
import type { FoundLinks } from './extract.js';
import { relativeDestination, stemOf, wikiDestination } from './paths.js';

/** The links of a file, found in its content; or `too_large` when extraction was past its bound. */
export type ContentLinks = FoundLinks | 'too_large';

/**
 * A link as found, resolved against the name of the file it is in: a Markdown link's path is
 * normalised from the file's folder (so it changes when the file moves to another folder); a wiki
 * link's target does not depend on where it is written.
 */
export function resolveLink(
  found: Pick<LinkRecord, 'kind' | 'line' | 'raw' | 'start' | 'end'>,
  seq: number,
  filename: string,
): LinkRecord {
  if (found.kind === 'wiki') {
    const { path, stem, anchor } = wikiDestination(found.raw);
    return { ...pick(found), seq, path, stem, anchor };
  }
  // A relative path to a file or to an attachment (extensions §12).
  const destination = relativeDestination(found.raw, filename);
  return {
    ...pick(found),
    seq,
    path: destination?.path ?? null,
    stem: null,
    anchor: destination?.anchor ?? null,
  };
}

const pick = (found: Pick<LinkRecord, 'kind' | 'line' | 'raw' | 'start' | 'end'>) => ({
  kind: found.kind,
  line: found.line,
  raw: found.raw,
  start: found.start,
  end: found.end,
});

/** The link index entry of a file named `filename` holding `links`. */
export function linkEntry(
  file: { id: string; projectId: string; filename: string },
  links: ContentLinks,
): FileLinksRecord {
  const base = { fileId: file.id, projectId: file.projectId, stem: stemOf(file.filename) };
  if (links === 'too_large') return { ...base, status: 'too_large', slugs: [], headings: [], links: [] };
  return {
    ...base,
    status: 'indexed',
    slugs: links.slugs,
    headings: links.headings,
    links: links.links.map((link, seq) => resolveLink(link, seq, file.filename)),
  };
}

/** The same entry for the file under a new name (a move): Markdown paths are resolved again. */
export function movedEntry(entry: FileLinksRecord, filename: string): FileLinksRecord {
  return {
    ...entry,
    stem: stemOf(filename),
    links: entry.links.map((link) => resolveLink(link, link.seq, filename)),
  };
}
