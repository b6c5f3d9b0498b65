import type { LinkRecord } from '../model/records.js';
import { resolveLink } from './entry.js';
import { relativePath, stemOf } from './paths.js';

/**
 * Link rewriting after a move (extensions §9), pure: given which files move (old name → new name; a
 * folder move is every file under it) and the files whose links may change (those that link to a moved
 * file, the moved files themselves, and those whose wiki links a new name could capture), the
 * replacements of link destinations that keep every link that resolved before resolving to the same
 * file after, in the form it was written:
 * - a Markdown link keeps being a path relative to its file (with `./` when it had one), its
 *   `<angle>` form, its `?query#anchor` part and its text; only its path changes;
 * - a wiki link keeps its text (`|alias`), `#heading`, and whether it named the file with or without
 *   its extension; it keeps naming the bare last segment when that still resolves to the file, and
 *   becomes the file's full name otherwise (always exact).
 * Every byte outside the replaced destinations is kept. A link whose destination was not located
 * (`start` null) cannot be rewritten and is reported in `unrewritable`.
 */

export interface RewriteFile {
  /** The file's name before the move. */
  readonly filename: string;
  readonly content: string;
  /** Its links as the index keeps them (resolved against `filename`), with their written ranges. */
  readonly links: readonly LinkRecord[];
}

export interface RewritePlanInput {
  /** Old filename → new filename, for every moved file. */
  readonly moved: ReadonlyMap<string, string>;
  readonly files: readonly RewriteFile[];
  /** The file a link resolves to before the move (its source named by its old name), or null. */
  readonly before: (link: LinkRecord, source: string) => string | null;
  /** The file a link resolves to after the move (its source named by its new name), or null. */
  readonly after: (link: LinkRecord, source: string) => string | null;
}

export interface Replacement {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export interface FileRewrite {
  /** The file's name before the move, and after it. */
  readonly filename: string;
  readonly newFilename: string;
  readonly replacements: readonly Replacement[];
  /** How many link destinations were rewritten (a reference definition counts once). */
  readonly links: number;
  readonly content: string;
}

export interface RewritePlan {
  readonly files: FileRewrite[];
  /** Links that had to change but whose destination was not located: `{ filename, line }`. */
  readonly unrewritable: Array<{ filename: string; line: number }>;
}

const renamed = (moved: ReadonlyMap<string, string>, name: string): string => moved.get(name) ?? name;

export function planLinkRewrites(input: RewritePlanInput): RewritePlan {
  const files: FileRewrite[] = [];
  const unrewritable: RewritePlan['unrewritable'] = [];
  for (const file of input.files) {
    const source = renamed(input.moved, file.filename);
    const byStart = new Map<number, Replacement>();
    for (const link of file.links) {
      const target = input.before(link, file.filename);
      if (target === null || (link.kind === 'wiki' && link.path === null)) continue;
      const wanted = renamed(input.moved, target);
      const moved = resolveLink(link, link.seq, source);
      if (input.after(moved, source) === wanted) continue;
      if (link.start === null || link.end === null) {
        unrewritable.push({ filename: file.filename, line: link.line });
        continue;
      }
      if (byStart.has(link.start)) continue;
      const written = file.content.slice(link.start, link.end);
      const text =
        link.kind === 'markdown'
          ? markdownDestination(written, source, wanted)
          : wikiTarget(written, wanted, (candidate) =>
              input.after(resolveLink({ ...link, raw: candidate }, link.seq, source), source),
            );
      byStart.set(link.start, { start: link.start, end: link.end, text });
    }
    if (byStart.size === 0 && source === file.filename) continue;
    const replacements = [...byStart.values()].sort((a, b) => a.start - b.start);
    files.push({
      filename: file.filename,
      newFilename: source,
      replacements,
      links: replacements.length,
      content: applyReplacements(file.content, replacements),
    });
  }
  return { files: files.filter((file) => file.links > 0), unrewritable };
}

export function applyReplacements(content: string, replacements: readonly Replacement[]): string {
  let out = '';
  let at = 0;
  for (const { start, end, text } of replacements) {
    out += content.slice(at, start) + text;
    at = end;
  }
  return out + content.slice(at);
}

/** Characters a path segment is written without: what a CommonMark destination or a URL would misread. */
const UNSAFE = /[\u0000-\u0020%<>()\\#?\u007f]/g;
const encodeSegment = (segment: string) =>
  segment.replace(UNSAFE, (char) =>
    [...new TextEncoder().encode(char)]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  );

/** A Markdown destination as written (`<…>` or bare), pointing from `source` to `target` instead. */
function markdownDestination(written: string, source: string, target: string): string {
  const angle = written.startsWith('<') && written.endsWith('>');
  const bare = angle ? written.slice(1, -1) : written;
  const cut = bare.search(/[?#]/);
  const suffix = cut === -1 ? '' : bare.slice(cut);
  const path = cut === -1 ? bare : bare.slice(0, cut);
  let relative = relativePath(source, target).split('/').map(encodeSegment).join('/');
  if (path.startsWith('./') && !relative.startsWith('../')) relative = `./${relative}`;
  return angle ? `<${relative}${suffix}>` : `${relative}${suffix}`;
}

/**
 * A wiki link's `target#heading` as written, naming `target` instead: the bare last segment when the
 * original was bare and it still resolves there, else the full name; with the extension only when the
 * original had one (or the name without it would resolve elsewhere).
 */
function wikiTarget(written: string, target: string, resolves: (candidate: string) => string | null): string {
  const hash = written.indexOf('#');
  const suffix = hash === -1 ? '' : written.slice(hash);
  const path = (hash === -1 ? written : written.slice(0, hash)).trim();
  const withExtension = /\.mdx?$/.test(path);
  const last = target.slice(target.lastIndexOf('/') + 1);
  const bareName = withExtension ? last : stemOf(target);
  const fullName = withExtension ? target : target.replace(/\.mdx?$/, '');
  const candidates = [...(path.includes('/') ? [] : [bareName]), fullName, target];
  const chosen = candidates.find((candidate) => resolves(`${candidate}${suffix}`) === target) ?? target;
  return `${chosen}${suffix}`;
}
