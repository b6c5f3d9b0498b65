import { markdownDestination } from '../../links/paths.js';
import { consoleFileHref, encodeFilename } from '../hrefs.js';

/**
 * Where links between files of a project lead in rendered HTML (plain data: a render task may be sent
 * to another thread):
 * - `console`: the console's route of the file (`consoleFileHref`);
 * - `share`: a share's page, `{base}{filename}` (`base` is `/s/{token}/`), for files under `prefix`;
 *   a link to any other file (or, for a one-file share, to another file) keeps its text and loses its
 *   target, so that a share never leads outside what it shares.
 */
export type RenderLinks =
  | { readonly kind: 'console'; readonly projectId: string }
  | { readonly kind: 'share'; readonly base: string; readonly prefix: string | null };

/**
 * What a wiki link or embed (`[[target]]`, `![[target]]`) resolved to before the render (the link
 * graph's rule, links/resolve.ts; plain data like the rest of a task):
 * - `file`: a file, with the heading its `#heading` names (its text, as written), if any;
 * - `attachment`: an attachment (extensions §12), `image` when its type is `image/*`;
 * - `broken`: no file or attachment, or several (`ambiguous`), or a heading the file lacks (`anchor`).
 */
export type RenderTarget =
  | { readonly kind: 'file'; readonly filename: string; readonly heading: string | null }
  | { readonly kind: 'attachment'; readonly path: string; readonly image: boolean }
  | { readonly kind: 'broken'; readonly reason: 'missing' | 'ambiguous' | 'anchor' };

/**
 * The href of an attachment's bytes, shown or linked from `fromFilename`, for `links`: the API's route
 * in the console (one path segment, as the API names attachments; the console loads it with its key),
 * `{base}a/{path}` on a share's page (served under the share's token, extensions §12), with
 * `?from={fromFilename}` for a folder share (the note whose page shows it).
 */
export function attachmentHref(links: RenderLinks, path: string, fromFilename: string): string {
  if (links.kind === 'console') {
    return `/api/projects/${encodeURIComponent(links.projectId)}/attachments/${encodeURIComponent(path)}`;
  }
  const from = links.prefix === null ? '' : `?from=${encodeURIComponent(fromFilename)}`;
  return `${links.base}a/${encodeFilename(path)}${from}`;
}

/** A link's target in the project: a filename (resolved against the linking file's folder) and anchor. */
export interface FileLinkTarget {
  readonly filename: string;
  readonly anchor: string | null;
}

/**
 * The project file a relative link destination (as the HTML has it, percent-encoded) points to, or
 * null: the link index's own rule (`markdownDestination`, links/paths.ts), so that a rendered link leads
 * where the index says the link points. Only relative paths to `.md`/`.mdx` files inside the project
 * are file links (extensions §9); one that climbs above the project's root leads nowhere.
 */
export function resolveFileLink(href: string, fromFilename: string): FileLinkTarget | null {
  const destination = markdownDestination(href.trim(), fromFilename);
  if (destination === null || destination.path === null || destination.path === '') return null;
  return { filename: destination.path, anchor: destination.anchor || null };
}

/**
 * The href of a link to `target` from `fromFilename` rendered for `links`, or null when the link must
 * lose its target (a share's page never leads outside the share).
 */
export function fileHref(links: RenderLinks, target: FileLinkTarget, fromFilename: string): string | null {
  if (links.kind === 'console') return consoleFileHref(links.projectId, target.filename, target.anchor);
  const anchor = target.anchor ? `#${encodeURIComponent(target.anchor)}` : '';
  if (links.prefix === null) return target.filename === fromFilename ? anchor || '#' : null;
  if (!target.filename.startsWith(links.prefix)) return null;
  return `${links.base}${encodeFilename(target.filename)}${anchor}`;
}
