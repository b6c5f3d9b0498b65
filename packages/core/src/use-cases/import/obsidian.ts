import { resolveLink } from '../../links/entry.js';
import type { FoundLinks } from '../../links/extract.js';
import { folderOf, isLinkedPath, normalisePath, relativeDestination, stemOf } from '../../links/paths.js';
import { TargetIndex } from '../../links/resolve.js';
import { planLinkRewrites } from '../../links/rewrite.js';
import type { LinkRecord } from '../../model/records.js';
import { compareCodePoints } from '../../validation/text.js';
import type { ImportedFile } from './importers.js';

/**
 * `importer=obsidian` (extensions §12): the vault's links resolved the way Obsidian resolves them, then
 * written so that the link index (extensions §9) resolves them to the same note or attachment.
 *
 * Obsidian resolves a link path (a wiki link's target, or a Markdown link's decoded destination) by:
 * 1. the exact path: for a Markdown link relative to the linking note's folder, then from the vault's
 *    root; for a wiki link from the root (with `.md` added when the target has no extension of its own);
 *    a path written `./…` or `../…` is from the note's folder, and only that;
 * 2. else by name, without regard to case: every note whose name (without `.md`/`.mdx`) or attachment
 *    whose name (with its extension) is the path's last segment, keeping, when the path has folders,
 *    those whose path ends with it; of several, the nearest to the linking note: the fewest steps from
 *    its folder (same folder first), then the shortest path, then code-point order.
 * The link index knows only the first rule and "the one file of that name": a link it would resolve
 * elsewhere, or not at all (several notes of one name, a different case, `![[diagram.png]]` for
 * `assets/diagram.png`), is rewritten to name its target exactly, in the form it was written (the rewrite
 * rules of a move, links/rewrite.ts: alias, `#heading`, extension or not, relative Markdown paths kept);
 * every other byte stays. A vault whose links the index already resolves as Obsidian does is unchanged.
 * Only the archive's own notes and attachments are targets.
 */
export function obsidianRewriter(
  filenames: readonly string[],
  attachments: readonly string[],
): (file: ImportedFile, links: FoundLinks | null) => ImportedFile {
  const vault = new VaultNames(filenames, attachments);
  const index = new TargetIndex(
    filenames.map((filename) => ({
      fileId: filename,
      filename,
      stem: stemOf(filename),
      slugs: [],
      headings: [],
    })),
    attachments.map((path) => ({ path, contentType: '' })),
  );
  const indexed = (link: LinkRecord, source: string): string | null => {
    const resolution = index.resolve(link, source);
    return resolution.target?.filename ?? resolution.attachment?.path ?? null;
  };
  return (file, links) => {
    if (links === null || links.links.length === 0) return file;
    const plan = planLinkRewrites({
      moved: new Map(),
      files: [
        {
          filename: file.filename,
          content: file.text,
          links: links.links.map((link, seq) => resolveLink(link, seq, file.filename)),
        },
      ],
      before: (link, source) => vault.resolve(link, source),
      after: indexed,
    });
    const rewritten = plan.files[0];
    return rewritten === undefined ? file : { ...file, text: rewritten.content };
  };
}

/** The vault's notes and attachments, by exact path and by lower-cased name. */
class VaultNames {
  readonly #paths = new Set<string>();
  readonly #byName = new Map<string, string[]>();

  constructor(filenames: readonly string[], attachments: readonly string[]) {
    for (const filename of filenames) this.#add(filename, stemOf(filename));
    for (const path of attachments) this.#add(path, lastSegment(path));
  }

  #add(path: string, name: string): void {
    this.#paths.add(path);
    const key = name.toLowerCase();
    const same = this.#byName.get(key) ?? [];
    same.push(path);
    this.#byName.set(key, same);
  }

  /** The note or attachment Obsidian opens for `link`, written in `source`; null when none. */
  resolve(link: LinkRecord, source: string): string | null {
    let written: string;
    let exact: string[];
    if (link.kind === 'wiki') {
      if (link.path === null) return null;
      written = link.path;
      const path = normalisePath(EXPLICITLY_RELATIVE.test(written) ? folderOf(source) + written : written);
      exact = path === null ? [] : withExtensions(path);
    } else {
      const destination = relativeDestination(link.raw, source);
      if (destination === null) return null;
      written = destination.decoded;
      const root = normalisePath(written);
      exact = [destination.path, root].filter((path): path is string => path !== null);
    }
    const found = exact.find((path) => this.#paths.has(path));
    if (found !== undefined) return found;
    // `./x` and `../x` name a path from the note's folder, nothing else.
    return EXPLICITLY_RELATIVE.test(written) ? null : this.#byNameNearest(written, source);
  }

  #byNameNearest(written: string, source: string): string | null {
    const name = isLinkedPath(written) ? stemOf(written) : lastSegment(written);
    const candidates = this.#byName.get(name.toLowerCase()) ?? [];
    const suffix = written.toLowerCase();
    const matching = written.includes('/')
      ? candidates.filter((path) => {
          const lower = path.toLowerCase();
          return endsWithPath(lower, suffix) || endsWithPath(withoutExtension(lower), suffix);
        })
      : candidates;
    if (matching.length === 0) return null;
    const from = folderOf(source);
    return [...matching].sort(
      (a, b) => steps(from, a) - steps(from, b) || a.length - b.length || compareCodePoints(a, b),
    )[0]!;
  }
}

const EXPLICITLY_RELATIVE = /^\.{1,2}\//;

const lastSegment = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

const withoutExtension = (path: string): string => path.replace(/\.mdx?$/, '');

/** A wiki target names itself, or itself with `.md`/`.mdx` when it has no extension of its own. */
const withExtensions = (path: string): string[] =>
  isLinkedPath(path) ? [path] : [path, `${path}.md`, `${path}.mdx`];

/** Whether `path` is `suffix` or ends with `/` + `suffix`. */
const endsWithPath = (path: string, suffix: string): boolean =>
  path === suffix || path.endsWith(`/${suffix}`);

/** How many folders lie between `folder` and the file at `path`: up to the common folder, then down. */
function steps(folder: string, path: string): number {
  const from = folder.split('/').filter(Boolean);
  const to = folderOf(path).split('/').filter(Boolean);
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  return from.length - common + (to.length - common);
}
