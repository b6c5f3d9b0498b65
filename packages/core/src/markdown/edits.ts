import { EditConflictError, InvalidInputError } from '../errors.js';
import { issueAt } from '../validation/issues.js';
import { lineAt, lineStarts } from './lines.js';
import { headingTree, type TreeHeading } from './outline.js';
import { type ParseOptions, parseDocument } from './parse.js';
import { type HeadingPath, locateSection } from './sections.js';
import { BOM, bomLength, detectLineEnding } from './text.js';

/**
 * The edits of `PATCH …/files/{filename}` (extensions §4), applied in order, each to the result of the
 * previous one, all or nothing (the first failing edit throws and nothing is returned).
 *
 * Bytes: the text outside each edited span is kept exactly (line endings, trailing spaces, front
 * matter); inserted text is used as given, with no line-ending conversion. A BOM stays first: edits
 * see the text after it (`replace` cannot match it, `prepend` and `insert` at line 1 go after it).
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
 */
export type MarkdownEdit =
  | { readonly op: 'replace'; readonly old: string; readonly new: string; readonly count: number | 'all' }
  | { readonly op: 'append' | 'prepend'; readonly text: string; readonly section?: HeadingPath }
  | { readonly op: 'replace_section'; readonly section: HeadingPath; readonly text: string }
  | { readonly op: 'insert'; readonly line: number; readonly text: string };

export interface ApplyEditsOptions extends ParseOptions {
  /** Where the edits are in the request, for `loc`s; `["body","edits"]` by default. */
  readonly loc?: readonly (string | number)[];
}

export function applyEdits(
  content: string,
  edits: readonly MarkdownEdit[],
  options: ApplyEditsOptions,
): string {
  const bom = bomLength(content) === 1 ? BOM : '';
  const eol = detectLineEnding(content);
  const prefix = options.loc ?? ['body', 'edits'];
  let text = content.slice(bom.length);
  edits.forEach((edit, index) => {
    text = applyEdit(text, edit, { eol, mdx: options.mdx, loc: [...prefix, index] });
  });
  return bom + text;
}

interface EditContext {
  readonly eol: string;
  readonly mdx: boolean;
  readonly loc: readonly (string | number)[];
}

function applyEdit(text: string, edit: MarkdownEdit, context: EditContext): string {
  switch (edit.op) {
    case 'replace':
      // parseEditRequest refuses an empty `old`; a direct caller must not get an endless search.
      if (edit.old === '') throw new InvalidInputError([issueAt([...context.loc, 'old'], 'tooShort')]);
      return replaceOccurrences(text, edit.old, edit.new, edit.count, [...context.loc, 'old']);
    case 'insert': {
      const starts = lineStarts(text);
      if (!Number.isInteger(edit.line) || edit.line < 1 || edit.line > starts.length + 1) {
        throw new InvalidInputError([
          {
            loc: [...context.loc, 'line'],
            msg: `Value error, line must be from 1 to ${starts.length + 1}: the file has ${starts.length} lines`,
            type: 'value_error',
          },
        ]);
      }
      const at = starts[edit.line - 1] ?? text.length;
      return splice(text, at, at, edit.text, context, lazySetextStarts(text, context));
    }
    default: {
      if (edit.section === undefined) {
        const at = edit.op === 'append' ? text.length : 0;
        return splice(text, at, at, edit.text, context, lazySetextStarts(text, context));
      }
      const tree = headingTree(parseDocument(text, context).headings, text.length);
      const section = locateSection(tree, edit.section, [...context.loc, 'section']);
      const setextAt = setextStarts(tree);
      if (edit.op === 'replace_section')
        return splice(text, section.bodyStart, section.end, edit.text, context, setextAt);
      const at = edit.op === 'prepend' ? section.bodyStart : section.end;
      return splice(text, at, at, edit.text, context, setextAt);
    }
  }
}

/** Every non-overlapping occurrence, left to right; there must be exactly `count` (at least one for `all`). */
function replaceOccurrences(
  text: string,
  old: string,
  replacement: string,
  count: number | 'all',
  loc: readonly (string | number)[],
): string {
  const listed: number[] = [];
  let found = 0;
  for (let at = text.indexOf(old); at !== -1; at = text.indexOf(old, at + old.length)) {
    if (found < MAX_LISTED) listed.push(at);
    found++;
  }
  if (count === 'all' ? found === 0 : found !== count) {
    throw new EditConflictError([
      { loc, msg: matchCountMessage(text, listed, found, count), type: 'match_count' },
    ]);
  }
  // split/join replaces the same non-overlapping, left-to-right occurrences the loop counted.
  return text.split(old).join(replacement);
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

/** Looks for setext headings only when a line could underline one, so that most edits parse nothing. */
const UNDERLINE_LIKE = /[=-][ \t]*$/m;

function lazySetextStarts(text: string, context: EditContext): SetextTest {
  if (!UNDERLINE_LIKE.test(text)) return () => false;
  let test: SetextTest | undefined;
  return (offset) => {
    test ??= setextStarts(headingTree(parseDocument(text, context).headings, text.length));
    return test(offset);
  };
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
  return text.slice(0, from) + block + text.slice(to);
}

/** LF ends a line; so does a CR for the parser, which must not see the inserted text glued to it. */
const endsLine = (code: number): boolean => code === 10 || code === 13;
