import GithubSlugger from 'github-slugger';
import { headingsParseCost, outlineCost } from '../markdown/cost.js';
import { maskFrontMatter } from '../markdown/front-matter.js';
import { lineAt, lineStarts } from '../markdown/lines.js';
import { INLINE_MDX_LIMITS, type MdxLimits, mdxWithinBudget } from '../markdown/mdx-budget.js';
import { parseCommonMark } from '../markdown/parse-commonmark.js';
import { bomLength } from '../markdown/text.js';
import { extractCommonMarkLinks } from './extract-commonmark.js';
import { extractMdxLinks } from './extract-mdx.js';
import { relativeDestination } from './paths.js';
import type { RawLinkDocument } from './raw.js';
import { scanCommonMarkLinks } from './scan.js';

/** A link as found in a text, before it is resolved against the linking file's name. */
export interface FoundLink {
  readonly kind: 'markdown' | 'wiki';
  readonly line: number;
  /** Markdown: the destination as read (escapes resolved, not percent-decoded); wiki: `target#heading`. */
  readonly raw: string;
  /** Where the destination is written in the content (UTF-16 offsets), or null when not located. */
  readonly start: number | null;
  readonly end: number | null;
}

/** What the link index keeps of a text: its links and its headings (for anchors). */
export interface FoundLinks {
  readonly links: FoundLink[];
  /** GitHub slugs of the headings, in order (duplicates numbered `-1`, `-2`, as GitHub does). */
  readonly slugs: string[];
  /** Heading texts, in order (wiki anchors match them). */
  readonly headings: string[];
}

/** Above this many bytes a file's links are not indexed (its index says `too_large`). */
export const LINKS_MAX_BYTES = 1024 * 1024;

/**
 * Whether a CommonMark text may hold a link of the index. Every Markdown link, image and reference
 * definition, and every wiki link, is written with a `[`; what has none (autolinks `<scheme:…>`, which
 * never name a project file, and raw HTML, which is not a link here) cannot give one. A text without
 * `[` needs only its headings (for anchors): the block parse, with the inline parse of heading lines
 * alone (parse-commonmark.ts, the sections' parse), gives them identically at a fraction of the work.
 * The equivalence is a property test (test/links/precheck.property.test.ts).
 */
export const mayHoldLinks = (text: string): boolean => text.includes('[');

/**
 * What extracting a text's links is estimated to cost: the same parse as an outline's, or the
 * headings-only parse for a CommonMark text that cannot hold a link (`mayHoldLinks`).
 */
export const linksCost = (text: string, mdx: boolean, limits: MdxLimits = INLINE_MDX_LIMITS): number =>
  mdx || mayHoldLinks(text) ? outlineCost(text, mdx, limits) : headingsParseCost(text, false, limits);

/**
 * The links of a content (extensions §9, §12): Markdown links and images whose destination is a
 * relative path (to a `.md`/`.mdx` file, or to an attachment: any other), and wiki links and embeds
 * (`![[…]]`); none in code, HTML blocks or front matter. `.mdx` is
 * read as MDX (micromark) within `mdxLimits`, else (or when it is not valid MDX) as CommonMark, as
 * sections are. A CommonMark text is first read by the scanner (scan.ts: linear, the parser's answer
 * or none); the parse runs when it gives up. The caller bounds the work (`linksCost`) before calling.
 */
export function extractLinks(
  content: string,
  o: { mdx: boolean; mdxLimits?: MdxLimits; scan?: boolean },
): FoundLinks {
  return found(
    content,
    (text) =>
      (!o.mdx && o.scan !== false && scanCommonMarkLinks(text)) ||
      (!o.mdx && !mayHoldLinks(text)
        ? headingsOnly(text)
        : parse(text, o.mdx, o.mdxLimits ?? INLINE_MDX_LIMITS)),
  );
}

/**
 * The links of a CommonMark content by the scanner alone (scan.ts), or null when the scanner gives up
 * on it: linear in the text, so it needs no estimate before it runs (the text is capped at
 * `LINKS_MAX_BYTES`). `contentLinks` tries it first.
 */
export function scannedLinks(content: string): FoundLinks | null {
  const bom = bomLength(content);
  const raw = scanCommonMarkLinks(maskFrontMatter(content.slice(bom)));
  return raw === null ? null : foundOf(content, bom, raw);
}

/** `extractLinks` always through the whole parse: without the scanner or the `mayHoldLinks` pre-check (their property tests). */
export const extractLinksParsed = (content: string, o: { mdx: boolean; mdxLimits?: MdxLimits }): FoundLinks =>
  found(content, (text) => parse(text, o.mdx, o.mdxLimits ?? INLINE_MDX_LIMITS));

/** No links, and the headings of the headings-only parse (a text that cannot hold a link). */
const headingsOnly = (text: string): RawLinkDocument => ({
  links: [],
  headings: parseCommonMark(text, { links: false }).headings.map((heading) => heading.text),
});

function found(content: string, parsed: (text: string) => RawLinkDocument): FoundLinks {
  const bom = bomLength(content);
  return foundOf(content, bom, parsed(maskFrontMatter(content.slice(bom))));
}

function foundOf(content: string, bom: number, raw: RawLinkDocument): FoundLinks {
  const starts = lineStarts(content);
  const slugger = new GithubSlugger();
  return {
    links: raw.links
      .filter((link) => link.kind === 'wiki' || relativeDestination(link.href, '') !== null)
      .map((link) => ({
        kind: link.kind,
        line: lineAt(starts, link.offset + bom),
        raw: link.href,
        start: link.dest ? link.dest[0] + bom : null,
        end: link.dest ? link.dest[1] + bom : null,
      })),
    slugs: raw.headings.map((heading) => slugger.slug(heading)),
    headings: raw.headings,
  };
}

/** Every link the parser finds (URLs too), for tests. */
export const rawLinksOf = (text: string, mdx: boolean): RawLinkDocument =>
  parse(text, mdx, INLINE_MDX_LIMITS);

function parse(text: string, mdx: boolean, limits: MdxLimits): RawLinkDocument {
  if (mdx && mdxWithinBudget(text, limits)) {
    try {
      return extractMdxLinks(text);
    } catch {
      // Not valid MDX: read as CommonMark, as its outline is.
    }
  }
  return extractCommonMarkLinks(text);
}
