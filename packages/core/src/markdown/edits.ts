import { ContentTooLargeError, EditConflictError, InvalidInputError } from '../errors.js';
import type { ContentWork, ContentWorkTask } from '../ports/content-work.js';
import { issueAt } from '../validation/issues.js';
import { headingsCost, inlineHeadings, pooledHeadings } from './content-work.js';
import { frontMatterLength } from './front-matter.js';
import { lineAt, lineStarts } from './lines.js';
import { headingTree, type TreeHeading } from './outline.js';
import type { DocumentHeading, ParseOptions } from './parse.js';
import { type HeadingPath, locateSection } from './sections.js';
import { BOM, bomLength, detectLineEnding } from './text.js';
import {
  giveTurn,
  LARGE_TEXT,
  OCCURRENCE_COST,
  parseHeadings,
  SCAN_COST,
  spendWork,
  type WorkBudget,
} from './work-budget.js';

/**
 * The edits of `PATCH …/files/{filename}` (extensions §4), applied in order, each to the result of the
 * previous one, all or nothing (the first failing edit throws and nothing is returned).
 *
 * Bytes: the text outside each edited span is kept exactly (line endings, trailing spaces, front
 * matter); inserted text is used as given, with no line-ending conversion. A BOM stays first: edits
 * see the text after it (`replace` cannot match it, `prepend` and `insert` at line 1 go after it).
 * A file-level `prepend` goes after the front matter block when there is one: the block must start the
 * file to be front matter, so "the start of the file" is read as the start of its Markdown (`insert`
 * at line 1 still puts text before everything but the BOM).
 *
 * Joining, the one place where a line break is added (in the file's style: that of the first LF of
 * the content before the edits, CRLF or LF; LF when it has none):
 * - text inserted at the end of a text whose last line has no line ending starts on a new line;
 * - non-empty text inserted before a line (`prepend`, `insert`, a section's `append`/`prepend`, the
 *   new body of `replace_section`) that does not end with LF gets one, so it never runs into the line
 *   after it; a `replace` never gets one;
 * - when the line after the inserted text starts a setext heading (`Title` over `===`) and the text
 *   does not already end with a blank line, a blank line is added too: without it the inserted last
 *   line would become part of the heading.
 * Empty text inserts nothing (an empty `replace_section` text empties the body).
 *
 * Sections (sections.ts) are found in the text as it is when the edit applies. For a heading inside a
 * block quote or list item, inserted lines get no `>` or indentation added: they are text, used as given.
 *
 * Work: edits that name no section parse nothing (unless text goes right before a possible setext
 * heading), section edits parse headings only, and a text is parsed at most once. Every step has its
 * cost estimated before it runs and is refused past one step's bound (work-budget.ts); with a
 * `WorkBudget`, the request's steps also pay from it. With `maxBytes`, an edit whose result would be
 * longer is refused (413) before the result is built: its length is known from the occurrences.
 */
export type MarkdownEdit =
  | { readonly op: 'replace'; readonly old: string; readonly new: string; readonly count: number | 'all' }
  | { readonly op: 'append' | 'prepend'; readonly text: string; readonly section?: HeadingPath }
  | { readonly op: 'replace_section'; readonly section: HeadingPath; readonly text: string }
  | { readonly op: 'insert'; readonly line: number; readonly text: string };

export interface ApplyEditsOptions extends ParseOptions {
  /** Where the edits are in the request, for `loc`s; `["body","edits"]` by default. */
  readonly loc?: readonly (string | number)[];
  /** What the edits may do in all; only each step is bounded when absent. */
  readonly budget?: WorkBudget;
  /**
   * The content size limit (UTF-8 bytes) of the result. A UTF-16 code unit is at least one byte, so a
   * result of more code units than this is sure to pass it: it is refused before it is built.
   */
  readonly maxBytes?: number;
  /**
   * Where a heading parse above one inline step's bound runs (content-work.ts); only
   * `applyEditsInTurns` can wait for it. Without it every parse is inline, within one step's bound.
   */
  readonly work?: ContentWork;
  readonly signal?: AbortSignal;
}

export function applyEdits(
  content: string,
  edits: readonly MarkdownEdit[],
  options: ApplyEditsOptions,
): string {
  const steps = editSteps(content, edits, { ...options, work: undefined });
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/**
 * `applyEdits`, giving the event loop a turn after every edit that parsed or worked on a large text, so
 * that a request of many edits on a large file never holds the thread for more than one edit's work;
 * a heading parse above one inline step's bound runs in `options.work` meanwhile (content-work.ts).
 */
export async function applyEditsInTurns(
  content: string,
  edits: readonly MarkdownEdit[],
  options: ApplyEditsOptions,
): Promise<string> {
  const steps = editSteps(content, edits, options);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    const parse = step.value;
    if (parse && options.work) {
      const { budget, signal } = options;
      parse.provide(
        await pooledHeadings(options.work, parse.task, parse.cost, { budget, loc: parse.loc, signal }),
      );
    } else await giveTurn();
  }
}

/**
 * A heading parse an edit needs that is too costly to run inline: the edit stops, the caller has it
 * run in a pool and `provide`s the headings, and the edit runs again (edits are pure functions of the
 * text: nothing was changed by the stopped attempt).
 */
class HeadingsNeeded {
  constructor(
    readonly task: ContentWorkTask,
    readonly cost: number,
    readonly loc: readonly (string | number)[],
    readonly provide: (headings: readonly DocumentHeading[]) => void,
  ) {}
}

/**
 * Applies the edits one by one, yielding after each edit that had to parse or worked on a large text
 * (undefined), or for a heading parse to be run elsewhere (`HeadingsNeeded`).
 */
function* editSteps(
  content: string,
  edits: readonly MarkdownEdit[],
  options: ApplyEditsOptions,
): Generator<HeadingsNeeded | undefined, string> {
  const bom = bomLength(content) === 1 ? BOM : '';
  const eol = detectLineEnding(content);
  const prefix = options.loc ?? ['body', 'edits'];
  const headings = memoisedHeadings(options);
  let text = content.slice(bom.length);
  for (const [index, edit] of edits.entries()) {
    const parsedBefore = headings.parses;
    const loc = [...prefix, index];
    spendWork(options.budget, SCAN_COST * text.length, loc);
    const context = { eol, headings, budget: options.budget, maxBytes: options.maxBytes, loc };
    for (;;) {
      try {
        text = applyEdit(text, edit, context);
        break;
      } catch (error) {
        if (!(error instanceof HeadingsNeeded)) throw error;
        yield error;
      }
    }
    if (headings.parses > parsedBefore || text.length >= LARGE_TEXT) yield undefined;
  }
  return bom + text;
}

interface EditContext {
  readonly eol: string;
  readonly headings: MemoisedHeadings;
  readonly budget: WorkBudget | undefined;
  readonly maxBytes: number | undefined;
  readonly loc: readonly (string | number)[];
}

/** Refuses (413) a result of `length` code units when it is sure to pass the size limit. */
function checkResultLength(length: number, context: EditContext): void {
  if (context.maxBytes !== undefined && length > context.maxBytes) {
    throw new ContentTooLargeError(context.maxBytes);
  }
}

interface MemoisedHeadings {
  /** The heading tree of `text`, parsed (and paid for) only when `text` is not the last one parsed. */
  tree(text: string, loc: readonly (string | number)[]): readonly TreeHeading[];
  readonly parses: number;
}

function memoisedHeadings(options: ApplyEditsOptions): MemoisedHeadings {
  let last: { text: string; tree: TreeHeading[] } | undefined;
  let parses = 0;
  const remember = (text: string, found: readonly DocumentHeading[]) => {
    last = { text, tree: headingTree(found, text.length) };
    parses++;
  };
  return {
    tree(text, loc) {
      if (last?.text !== text) remember(text, parsedHeadings(text, loc));
      return last!.tree;
    },
    get parses() {
      return parses;
    },
  };

  /** Inline within one step's bound, or (with `options.work`) a `HeadingsNeeded` thrown for the pool. */
  function parsedHeadings(text: string, loc: readonly (string | number)[]): readonly DocumentHeading[] {
    const { work, budget } = options;
    if (!work) return parseHeadings(text, { mdx: options.mdx, budget, loc });
    const task = { text, mdx: options.mdx };
    const { cost, inline } = headingsCost(work, task);
    if (inline) return inlineHeadings(work, task, cost, { budget, loc });
    throw new HeadingsNeeded(task, cost, loc, (found) => remember(text, found));
  }
}

function applyEdit(text: string, edit: MarkdownEdit, context: EditContext): string {
  switch (edit.op) {
    case 'replace':
      // parseEditRequest refuses an empty `old`; a direct caller must not get an endless search.
      if (edit.old === '') throw new InvalidInputError([issueAt([...context.loc, 'old'], 'tooShort')]);
      return replaceOccurrences(text, edit, context);
    case 'insert': {
      const at = Number.isInteger(edit.line) ? lineOffset(text, edit.line) : undefined;
      if (at === undefined) {
        const lines = lineStarts(text).length;
        throw new InvalidInputError([
          {
            loc: [...context.loc, 'line'],
            msg: `Value error, line must be from 1 to ${lines + 1}: the file has ${lines} lines`,
            type: 'value_error',
          },
        ]);
      }
      return splice(text, at, at, edit.text, context, lazySetextStarts(text, context));
    }
    default: {
      if (edit.section === undefined) {
        const at = edit.op === 'append' ? text.length : frontMatterLength(text);
        return splice(text, at, at, edit.text, context, lazySetextStarts(text, context));
      }
      const sectionLoc = [...context.loc, 'section'];
      const tree = context.headings.tree(text, sectionLoc);
      const section = locateSection(tree, edit.section, sectionLoc);
      const setextAt = setextStarts(tree);
      if (edit.op === 'replace_section')
        return splice(text, section.bodyStart, section.end, edit.text, context, setextAt);
      const at = edit.op === 'prepend' ? section.bodyStart : section.end;
      return splice(text, at, at, edit.text, context, setextAt);
    }
  }
}

/**
 * Where 1-based line `line` starts, `text.length` for the line after the last one, undefined for any
 * other line. Scans only as far as that line, so an insertion near the top of a large file is cheap.
 */
function lineOffset(text: string, line: number): number | undefined {
  if (line === 1) return 0;
  if (line < 1 || text.length === 0) return undefined;
  let start = 0;
  for (let current = 1; current < line; current++) {
    const lf = text.indexOf('\n', start);
    // No line after this one (a final LF starts no new line): only the line after the last is valid.
    if (lf === -1 || lf + 1 === text.length) return line === current + 1 ? text.length : undefined;
    start = lf + 1;
  }
  return start;
}

/** Every non-overlapping occurrence, left to right; there must be exactly `count` (at least one for `all`). */
function replaceOccurrences(
  text: string,
  edit: Extract<MarkdownEdit, { op: 'replace' }>,
  context: EditContext,
): string {
  const { old, count } = edit;
  const listed: number[] = [];
  let found = 0;
  for (let at = text.indexOf(old); at !== -1; at = text.indexOf(old, at + old.length)) {
    if (found < MAX_LISTED) listed.push(at);
    found++;
  }
  if (count === 'all' ? found === 0 : found !== count) {
    throw new EditConflictError([
      {
        loc: [...context.loc, 'old'],
        msg: matchCountMessage(text, listed, found, count),
        type: 'match_count',
      },
    ]);
  }
  // The result's length is known before it is built: the size limit and the step's bound come first.
  const resultLength = text.length + found * (edit.new.length - old.length);
  checkResultLength(resultLength, context);
  spendWork(context.budget, OCCURRENCE_COST * found + SCAN_COST * resultLength, [...context.loc, 'old']);
  // split/join replaces the same non-overlapping, left-to-right occurrences the loop counted.
  return text.split(old).join(edit.new);
}

/** At most this many occurrences are located for the message. */
const MAX_LISTED = 100;

function matchCountMessage(
  text: string,
  listed: readonly number[],
  found: number,
  count: number | 'all',
): string {
  const expected = count === 'all' ? 'at least 1' : String(count);
  const message = `The old text was found ${found} times (expected ${expected})`;
  if (found === 0) return message;
  const starts = lineStarts(text);
  const lines = [...new Set(listed.map((at) => lineAt(starts, at)))];
  return `${message}, on lines ${lines.join(', ')}${found > listed.length ? ' and more' : ''}`;
}

type SetextTest = (offset: number) => boolean;

function setextStarts(tree: readonly TreeHeading[]): SetextTest {
  const starts = new Set(tree.filter((heading) => heading.setext).map((heading) => heading.start));
  return (offset) => starts.has(offset);
}

/** A line that could underline a setext heading (it may sit in a container, after `>` or a list marker). */
const UNDERLINE_LIKE = /[=-][ \t]*$/m;

/** The first blank line (for the parser: LF, CRLF or a lone CR end lines) at or after `from`. */
const BLANK_LINE = /(?:\r\n|\n|\r(?!\n))[ \t]*(?=\r|\n|$)/g;
const LINE_BREAK = /\r\n|\n|\r/g;

/**
 * Whether a setext heading may start at `offset`: only if a line after the one at `offset` and before
 * the next blank line (a paragraph never spans one) could be its underline. A cheap, generous test: when
 * it says yes, the parser decides.
 */
function mayStartSetext(text: string, offset: number): boolean {
  LINE_BREAK.lastIndex = offset;
  const firstBreak = LINE_BREAK.exec(text);
  if (!firstBreak) return false;
  BLANK_LINE.lastIndex = offset;
  const blank = BLANK_LINE.exec(text);
  const end = blank ? blank.index : text.length;
  return end > firstBreak.index && UNDERLINE_LIKE.test(text.slice(firstBreak.index, end));
}

/** Parses only when text goes right before a line that may start a setext heading. */
function lazySetextStarts(text: string, context: EditContext): SetextTest {
  return (offset) =>
    mayStartSetext(text, offset) && setextStarts(context.headings.tree(text, context.loc))(offset);
}

/** Replaces `text[from, to)` with `insert`, adding the line breaks the module comment describes. */
function splice(
  text: string,
  from: number,
  to: number,
  insert: string,
  context: EditContext,
  setextAt: SetextTest,
): string {
  if (insert === '') return text.slice(0, from) + text.slice(to);
  let block = insert;
  if (from > 0 && !endsLine(text.charCodeAt(from - 1))) block = context.eol + block;
  if (to < text.length) {
    if (!block.endsWith('\n')) block += context.eol;
    if (setextAt(to) && !/(?:^|\n)[ \t]*\r?\n$/.test(block)) block += context.eol;
  }
  checkResultLength(text.length - (to - from) + block.length, context);
  return text.slice(0, from) + block + text.slice(to);
}

/** LF ends a line; so does a CR for the parser, which must not see the inserted text glued to it. */
const endsLine = (code: number): boolean => code === 10 || code === 13;
