import { EditConflictError } from '../errors.js';
import type { ContentWork } from '../ports/content-work.js';
import { headingsWithin } from './content-work.js';
import { headingTree, type OutlineHeading, type TreeHeading } from './outline.js';
import type { DocumentHeading, ParseOptions } from './parse.js';
import { collapseWhiteSpace } from './text.js';
import { parseHeadings, SECTION_ADVICE } from './work-budget.js';

/**
 * A heading path: heading texts from an outer heading down (`["Setup", "Linux"]`), or one heading text.
 *
 * Matching, after trimming and collapsing white space on both sides (case-sensitive):
 * - an array matches every heading whose path (outline.ts) ends with it, element by element, so the
 *   outer elements may be left out (`["Setup", "Linux"]` finds `# Guide > ## Setup > ### Linux`);
 * - when an array matches several headings and exactly one of them has that very path from the top,
 *   that one is chosen: every heading with a unique full path (the `path` the outline shows) can be
 *   named, a top-level `# Linux` by `["Linux"]` even when `## Linux` sits under another heading;
 * - a single text given as a string must be unique in the file: it is never preferred by position,
 *   as the interface asks (`"Linux"` there is 409 `section_ambiguous`).
 * A `?section=` given once is the one-element path `["…"]`: it reads as a path from the top first,
 * then as a text unique in the file.
 */
export type HeadingPath = string | readonly string[];

export interface Section {
  readonly heading: OutlineHeading;
  /** Offset where the heading's line starts. */
  readonly start: number;
  /** Offset where the body starts: after the heading line (for a setext heading, after its underline). */
  readonly bodyStart: number;
  /** Offset just past the section: the next heading whose level number is at most its own, or the end. */
  readonly end: number;
}

export interface FindSectionOptions extends ParseOptions {
  /** Where a `409` points: `["query","section"]`, `["body","edits",i,"section"]`… */
  readonly loc: readonly (string | number)[];
}

/**
 * Finds a section of `content`; no match is `section_not_found`, several `section_ambiguous` (409). The
 * parse's estimated cost is checked first: past one step's bound, 409 `work_budget` and no parse.
 */
export function findSection(content: string, path: HeadingPath, options: FindSectionOptions): Section {
  const headings = parseHeadings(content, {
    mdx: options.mdx,
    budget: undefined,
    loc: options.loc,
    advice: SECTION_ADVICE,
  });
  return sectionIn(headings, content, path, options.loc);
}

/**
 * `findSection` with the parse where the rule of content-work.ts puts it: inline under one step's
 * bound, else in `work` (a worker pool), refused (409 `work_budget`) past `work`'s bounds.
 */
export async function findSectionWithin(
  work: ContentWork,
  content: string,
  path: HeadingPath,
  options: FindSectionOptions & { readonly signal?: AbortSignal },
): Promise<Section> {
  const headings = await headingsWithin(
    work,
    { text: content, mdx: options.mdx },
    { budget: undefined, loc: options.loc, advice: SECTION_ADVICE, signal: options.signal },
  );
  return sectionIn(headings, content, path, options.loc);
}

function sectionIn(
  headings: readonly DocumentHeading[],
  content: string,
  path: HeadingPath,
  loc: readonly (string | number)[],
): Section {
  const tree = headingTree(headings, content.length);
  const found = locateSection(tree, path, loc);
  return {
    heading: { level: found.level, text: found.text, line: found.line, path: found.path },
    start: found.start,
    bodyStart: found.bodyStart,
    end: found.end,
  };
}

const MAX_CANDIDATES = 20;

export function locateSection(
  tree: readonly TreeHeading[],
  path: HeadingPath,
  loc: readonly (string | number)[],
): TreeHeading {
  const wanted = (typeof path === 'string' ? [path] : path).map(collapseWhiteSpace);
  const matches = wanted.length === 0 ? [] : tree.filter((heading) => endsWith(heading.path, wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1 && typeof path !== 'string') {
    const whole = matches.filter((heading) => heading.path.length === wanted.length);
    if (whole.length === 1) return whole[0]!;
  }
  if (matches.length === 0) {
    throw new EditConflictError([{ loc, msg: notFoundMessage(tree, wanted), type: 'section_not_found' }]);
  }
  throw new EditConflictError([
    {
      loc,
      msg:
        `Section ${JSON.stringify(wanted)} is ambiguous: it matches ${matches.length} headings: ` +
        `${describe(matches)}. Name it with more of its enclosing headings`,
      type: 'section_ambiguous',
    },
  ]);
}

function endsWith(path: readonly string[], suffix: readonly string[]): boolean {
  const offset = path.length - suffix.length;
  return offset >= 0 && suffix.every((text, index) => path[offset + index] === text);
}

/** Candidates for a path that matches nothing: headings with its last text in any case, else all. */
function notFoundMessage(tree: readonly TreeHeading[], wanted: readonly string[]): string {
  const message = `No heading matches section ${JSON.stringify(wanted)}`;
  if (tree.length === 0) return `${message}: the file has no headings`;
  const last = (wanted[wanted.length - 1] ?? '').toLowerCase();
  const similar = tree.filter((heading) => heading.text.toLowerCase() === last);
  return similar.length > 0
    ? `${message}; headings with that text: ${describe(similar)}`
    : `${message}; the file's headings: ${describe(tree)}`;
}

function describe(headings: readonly TreeHeading[]): string {
  const shown = headings
    .slice(0, MAX_CANDIDATES)
    .map((heading) => `${JSON.stringify(heading.path)} (line ${heading.line})`);
  const more = headings.length - shown.length;
  return shown.join(', ') + (more > 0 ? ` and ${more} more` : '');
}
