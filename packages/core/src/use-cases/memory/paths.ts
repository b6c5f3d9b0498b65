import { MEMORY_TEXT } from './text.js';

/**
 * Where a memory tool path (`/memories/…`) lives in a project (extensions §14), pure. `/memories` is
 * the project's folder `memories/`; a file whose name does not end in `.md`/`.mdx` is stored with `.md`
 * added (and listed without it). The path is judged as the reference backend judges it (it must start
 * with `/memories`; `..` may not climb above it), and more strictly: a backslash, a control character
 * (NUL included) or a percent-encoded dot, slash, backslash or NUL anywhere in it is refused with the
 * same "would escape" text, whatever it would have meant.
 */

export const MEMORY_ROOT = '/memories';
export const MEMORY_FOLDER = 'memories/';

/** A judged path: its segments below `/memories` (none for `/memories` itself). */
export type MemoryPath = { ok: true; segments: readonly string[] } | { ok: false; error: string };

const REFUSED = /[\\\u0000-\u001f\u007f]|%(2e|2f|5c|00)/i;

export function judgeMemoryPath(path: string): MemoryPath {
  if (!path.startsWith(MEMORY_ROOT)) return { ok: false, error: MEMORY_TEXT.mustStartWith(path) };
  if (REFUSED.test(path)) return { ok: false, error: MEMORY_TEXT.wouldEscape(path) };
  // As the reference: what follows `/memories` (one leading `/` dropped), joined and resolved.
  const relative = path.slice(MEMORY_ROOT.length).replace(/^\//, '');
  const segments: string[] = [];
  for (const segment of relative.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return { ok: false, error: MEMORY_TEXT.wouldEscape(path) };
      segments.pop();
    } else segments.push(segment);
  }
  return { ok: true, segments };
}

const MARKDOWN_NAME = /\.mdx?$/i;

/** The stored filename of a memory file (`/memories/a/notes.txt` → `memories/a/notes.txt.md`). */
export function memoryFilename(segments: readonly string[]): string {
  const joined = `${MEMORY_FOLDER}${segments.join('/')}`;
  return MARKDOWN_NAME.test(joined) ? joined : `${joined}.md`;
}

/** The folder prefix of a memory path (`memories/a/`; `memories/` for the root). */
export const memoryFolder = (segments: readonly string[]): string =>
  segments.length === 0 ? MEMORY_FOLDER : `${MEMORY_FOLDER}${segments.join('/')}/`;

/** How a stored file's name below a folder is shown: the `.md` the store added, dropped. */
export const shownName = (name: string): string => (name.endsWith('.md') ? name.slice(0, -3) : name);

/** The stored filename a memory path names, or null when the path is refused (for audit entries). */
export function memoryPathFilename(path: string): string | null {
  const judged = judgeMemoryPath(path);
  return judged.ok ? memoryFilename(judged.segments) : null;
}
