import { extractLinks, type FoundLinks } from '../../links/extract.js';
import { folderOf, normalisePath, relativePath } from '../../links/paths.js';
import { isMdx } from '../../links/work.js';
import type { JsonObject } from '../../validation/schemas.js';
import { decodePath, encodePath, isRelativePath, rewriteLinkDestinations, splitAnchor } from './links.js';
import { obsidianRewriter } from './obsidian.js';
import { Turns } from './turns.js';

/**
 * The importers (extensions §10): what an import does to the Markdown files of an archive before they
 * are compared with the project, chosen with `importer=` (HTTP) or `--importer` (CLI).
 * - `plain` (default): files as they are (front matter, wiki links and embeds verbatim); `.obsidian/`
 *   and other dot folders are skipped by the entry rules.
 * - `obsidian`: as they are, except links the link index would resolve otherwise than Obsidian does
 *   (several notes of one name, another case, an attachment by its name alone), which are rewritten to
 *   name their target exactly (obsidian.ts); the notes keep their dates from the archive (index.ts).
 * - `gitbook`: as they are, except links to a folder (`guides/`) become links to its `README.md`, the
 *   page GitBook shows for it, so they resolve in mdstore's link index.
 * - `notion`: names cleaned of Notion's id suffixes (`Page 0123…(32 hex).md`, folders alike) and links
 *   between the pages rewritten to the cleaned names, percent-encoded.
 */
export const IMPORTERS = ['plain', 'obsidian', 'notion', 'gitbook'] as const;
export type Importer = (typeof IMPORTERS)[number];

export const isImporter = (value: string): value is Importer =>
  (IMPORTERS as readonly string[]).includes(value);

/** One Markdown file of an archive, as the importer receives and returns it. */
export interface ImportedFile {
  /** Its name in the project. */
  readonly filename: string;
  readonly text: string;
  /** The metadata `mdstore.json` gives it; undefined when it gives none. */
  readonly metadata?: JsonObject | null;
}

/**
 * What an importer does to one file (its name and text), knowing every file's name; pure. `links` are
 * the file's links when the importer reads them (`importerReadsLinks`), else (or past their bound) null.
 */
export type ImportRewrite = (file: ImportedFile, links: FoundLinks | null) => ImportedFile;

/** Whether the importer's rewrite needs each file's links (found by the link index's own reader). */
export const importerReadsLinks = (importer: Importer): boolean => importer === 'obsidian';

/**
 * The rewrite `importer` makes, from the names of the archive's files and attachments alone (so that an
 * import needs their names, not their texts, in memory); undefined when it takes files as they are.
 */
export function importerRewrite(
  importer: Importer,
  filenames: readonly string[],
  attachments: readonly string[] = [],
): ImportRewrite | undefined {
  switch (importer) {
    case 'notion':
      return notionRewriter(filenames);
    case 'gitbook':
      return readmeRewriter(filenames);
    case 'obsidian':
      return obsidianRewriter(filenames, attachments);
    default:
      return undefined;
  }
}

/**
 * Applies `importer` to the files (pure: the same files in, the same files out, in the same order), with
 * a turn of the event loop after every megabyte or so of text rewritten.
 */
export async function applyImporter(
  importer: Importer,
  files: readonly ImportedFile[],
  attachments: readonly string[] = [],
): Promise<ImportedFile[]> {
  const rewrite = importerRewrite(
    importer,
    files.map((file) => file.filename),
    attachments,
  );
  if (rewrite === undefined) return [...files];
  const turns = new Turns();
  const out: ImportedFile[] = [];
  for (const file of files) {
    const links = importerReadsLinks(importer)
      ? extractLinks(file.text, { mdx: isMdx(file.filename) })
      : null;
    out.push(rewrite(file, links));
    await turns.after(file.text.length);
  }
  return out;
}

const NOTION_ID = / [0-9a-f]{32}(?=(\.mdx?)?$)/i;

/** A name without Notion's id suffixes, on every segment. */
export const withoutNotionIds = (filename: string): string =>
  filename
    .split('/')
    .map((segment) => segment.replace(NOTION_ID, ''))
    .join('/');

/**
 * Notion: each file gets its name without the id suffixes, unless another file already has that name
 * (two pages of one title in one folder), in which case it keeps its own; then every relative link to
 * a renamed file is rewritten from the file's new folder, keeping its `#anchor`.
 */
function notionRewriter(filenames: readonly string[]): ImportRewrite {
  const renamed = new Map<string, string>();
  const taken = new Set<string>();
  for (const filename of filenames) {
    const clean = withoutNotionIds(filename);
    const name = taken.has(clean) ? filename : clean;
    taken.add(name);
    renamed.set(filename, name);
  }
  return (file) => {
    const filename = renamed.get(file.filename) as string;
    const text = rewriteLinkDestinations(file.text, (dest) => {
      if (!isRelativePath(dest)) return undefined;
      const { path, anchor } = splitAnchor(dest);
      const decoded = decodePath(path);
      if (decoded === undefined || decoded === '') return undefined;
      // The link index's own rules (links/paths.ts): resolved against the note's folder, and back.
      const target = normalisePath(folderOf(file.filename) + decoded);
      const to = target === null ? undefined : renamed.get(target);
      if (to === undefined) return undefined;
      return encodePath(relativePath(filename, to)) + anchor;
    });
    return { ...file, filename, text };
  };
}

/** GitBook: `[x](guides/)` or `[x](guides)` → `[x](guides/README.md)` when that file is in the archive. */
function readmeRewriter(filenames: readonly string[]): ImportRewrite {
  const names = new Set(filenames);
  return (file) => {
    const text = rewriteLinkDestinations(file.text, (dest) => {
      if (!isRelativePath(dest)) return undefined;
      const { path, anchor } = splitAnchor(dest);
      const decoded = decodePath(path);
      if (decoded === undefined || decoded === '' || /\.mdx?$/i.test(decoded)) return undefined;
      const folder = normalisePath(folderOf(file.filename) + decoded);
      if (folder === null) return undefined;
      const readme = folder === '' ? 'README.md' : `${folder}/README.md`;
      if (!names.has(readme)) return undefined;
      return `${path.replace(/\/?$/, '/')}README.md${anchor}`;
    });
    return { ...file, text };
  };
}
