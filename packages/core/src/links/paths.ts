/**
 * The path rules of the link index (extensions §9): which destinations are links to files of the
 * project, and how they resolve. Pure string work on filenames (`/`-separated, no leading `/`).
 */

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const LINKED_EXTENSION = /\.mdx?$/;

/** The folder of a filename, with its trailing `/` (`''` at the root). */
export const folderOf = (filename: string): string => filename.slice(0, filename.lastIndexOf('/') + 1);

/** The last segment of a path without its `.md`/`.mdx` extension: what a wiki link matches files by. */
export function stemOf(path: string): string {
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last.replace(LINKED_EXTENSION, '');
}

/** `a/./b/../c.md` → `a/c.md`; null when `..` climbs above the project's root. */
export function normalisePath(path: string): string | null {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(segment);
  }
  return out.join('/');
}

export interface MarkdownDestination {
  /** The resolved filename, or null when the path climbs above the project's root. */
  readonly path: string | null;
  readonly anchor: string | null;
}

/**
 * A Markdown link's destination (as the parser read it: escapes resolved, not percent-decoded) when it
 * is a relative path to a `.md`/`.mdx` file: percent-decoded, resolved against the linking file's
 * folder, the `#anchor` apart (a `?query` is dropped). Anything else (a URL, an absolute path, `#x`
 * alone, another extension, a bad percent escape) is null: not a link of the index.
 */
export function markdownDestination(href: string, source: string): MarkdownDestination | null {
  const destination = relativeDestination(href, source);
  if (destination === null || !LINKED_EXTENSION.test(destination.decoded)) return null;
  return { path: destination.path, anchor: destination.anchor };
}

/**
 * `markdownDestination` for a relative path to any file (an attachment's too, extensions §12), with the
 * path as written, percent-decoded (`decoded`). A folder (`docs/`, `./`, `..`) is no file: null.
 */
export function relativeDestination(
  href: string,
  source: string,
): (MarkdownDestination & { readonly decoded: string }) | null {
  if (href === '' || SCHEME.test(href) || href.startsWith('/') || href.startsWith('#')) return null;
  const hash = href.indexOf('#');
  const beforeHash = hash === -1 ? href : href.slice(0, hash);
  const query = beforeHash.indexOf('?');
  const encoded = query === -1 ? beforeHash : beforeHash.slice(0, query);
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  if (decoded === '' || /(?:^|\/)\.{0,2}$/.test(decoded)) return null;
  const anchor = hash === -1 ? null : safeDecode(href.slice(hash + 1));
  return { path: normalisePath(folderOf(source) + decoded), anchor, decoded };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export interface WikiDestination {
  /** The target as written (trimmed, without `#heading`), or null for `[[#heading]]` (the file itself). */
  readonly path: string | null;
  readonly stem: string | null;
  readonly anchor: string | null;
}

/** `target#heading` of a wiki link, split. */
export function wikiDestination(target: string): WikiDestination {
  const hash = target.indexOf('#');
  const path = (hash === -1 ? target : target.slice(0, hash)).trim();
  const anchor = hash === -1 ? null : target.slice(hash + 1).trim();
  return { path: path === '' ? null : path, stem: path === '' ? null : stemOf(path), anchor };
}

/** Whether a path ends in `.md`/`.mdx`: a file's name (anything else may be an attachment's path). */
export const isLinkedPath = (path: string): boolean => LINKED_EXTENSION.test(path);

/** The filenames a wiki link's target names exactly: itself, or itself with `.md`/`.mdx`. */
export const wikiExactNames = (path: string): string[] =>
  LINKED_EXTENSION.test(path) ? [path] : [path, `${path}.md`, `${path}.mdx`];

/**
 * The relative path from the folder of `source` to `target` (both filenames): `../b/c.md`, `c.md`.
 * Used when rewriting links after a move.
 */
export function relativePath(source: string, target: string): string {
  const from = folderOf(source).split('/').filter(Boolean);
  const to = target.split('/');
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
  return [...from.slice(common).map(() => '..'), ...to.slice(common)].join('/');
}
