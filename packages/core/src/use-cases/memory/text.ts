import { MEMORY_MAX_LINES } from '../../defaults/memory.js';

/**
 * The memory tool's text rules (extensions §14), pure: what `view`, `str_replace` and `insert` do to a
 * text and the strings they answer, exactly as `@anthropic-ai/sdk`'s reference backend
 * (`tools/memory/node.mjs`, `BetaLocalFilesystemMemoryTool`) words them. No I/O here.
 */

const LINE_NUMBER_WIDTH = String(MEMORY_MAX_LINES).length;

/** An outcome: the new text and the answer, or the tool's error text. */
export type TextOutcome = { ok: true; text: string; result: string } | { ok: false; error: string };

const numbered = (line: string, number: number): string =>
  `${String(number).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`;

/** The reference's `formatFileSize`: `0B`, `512B`, `1.5K`, `4K`, `2M`. */
export function formatFileSize(bytes: number): string {
  if (bytes === 0) return '0B';
  const k = 1024;
  const sizes = ['B', 'K', 'M', 'G'];
  const i = Math.floor(Math.log(bytes) / Math.log(k));
  const size = bytes / k ** i;
  return (size % 1 === 0 ? size.toString() : size.toFixed(1)) + sizes[i];
}

/** `view` of a file: its lines numbered, all of them or `view_range` (`[start, end]`, end `-1` = last). */
export function viewFileText(path: string, content: string, viewRange?: readonly number[]): TextOutcome {
  const lines = content.split('\n');
  if (lines.length > MEMORY_MAX_LINES) {
    return {
      ok: false,
      error: `File ${path} has too many lines (${lines.length}). Maximum is ${MEMORY_MAX_LINES.toLocaleString('en-US')} lines.`,
    };
  }
  let shown = lines;
  let first = 1;
  if (viewRange && viewRange.length === 2) {
    const start = Math.max(1, viewRange[0]!) - 1;
    const end = viewRange[1] === -1 ? lines.length : viewRange[1]!;
    shown = lines.slice(start, end);
    first = start + 1;
  }
  const body = shown.map((line, i) => numbered(line, i + first)).join('\n');
  return { ok: true, text: content, result: `Here's the content of ${path} with line numbers:\n${body}` };
}

/**
 * The 1-based lines where `oldStr` occurs. As the reference: a one-line `oldStr` is looked for line by
 * line (a line holding it twice counts once, and its first occurrence is replaced). One the reference
 * cannot find (it has a line break: no single line holds it) is looked for in the whole text, each
 * occurrence counted at the line it starts on (docs/agents.md: the one place we go further).
 */
export function occurrenceLines(content: string, oldStr: string): number[] {
  const lines = content.split('\n');
  if (!oldStr.includes('\n')) {
    const found: number[] = [];
    lines.forEach((line, index) => {
      if (line.includes(oldStr)) found.push(index + 1);
    });
    return found;
  }
  const found: number[] = [];
  let at = content.indexOf(oldStr);
  while (at >= 0) {
    found.push(lineOfOffset(content, at));
    at = content.indexOf(oldStr, at + 1);
  }
  return found;
}

function lineOfOffset(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf('\n'); i >= 0 && i < offset; i = content.indexOf('\n', i + 1)) line++;
  return line;
}

/** `str_replace`: `oldStr` must occur on exactly one line; its first occurrence becomes `newStr`. */
export function strReplaceText(path: string, content: string, oldStr: string, newStr: string): TextOutcome {
  const matching = occurrenceLines(content, oldStr);
  if (matching.length === 0) {
    return {
      ok: false,
      error: `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`,
    };
  }
  if (matching.length > 1) {
    return {
      ok: false,
      error: `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${matching.join(', ')}. Please ensure it is unique`,
    };
  }
  const text = content.replace(oldStr, () => newStr);
  const newLines = text.split('\n');
  const changed = matching[0]! - 1;
  const start = Math.max(0, changed - 2);
  const end = Math.min(newLines.length, changed + 3);
  const snippet = newLines.slice(start, end).map((line, i) => numbered(line, start + i + 1));
  return {
    ok: true,
    text,
    result: `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${snippet.join('\n')}`,
  };
}

/** `insert`: `insertText` (one trailing line break dropped) becomes line `insertLine + 1`. */
export function insertText(path: string, content: string, insertLine: number, text: string): TextOutcome {
  const lines = content.split('\n');
  if (insertLine < 0 || insertLine > lines.length) {
    return {
      ok: false,
      error: `Invalid \`insert_line\` parameter: ${insertLine}. It should be within the range of lines of the file: [0, ${lines.length}]`,
    };
  }
  lines.splice(insertLine, 0, text.replace(/\n$/, ''));
  return { ok: true, text: lines.join('\n'), result: `The file ${path} has been edited.` };
}

/** An entry of a folder listing: its path below the folder viewed (`a/`, `a/b.txt`) and its size. */
export interface ListingEntry {
  readonly path: string;
  readonly size: string;
}

/** `view` of a folder: the reference's header, the folder's own line, then each entry. */
export function folderListing(
  path: string,
  ownSize: string,
  entries: readonly ListingEntry[],
  note?: string,
): string {
  const header = `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`;
  const lines = [`${ownSize}\t${path}`, ...entries.map((entry) => `${entry.size}\t${path}/${entry.path}`)];
  if (note !== undefined) lines.push(note);
  return `${header}\n${lines.join('\n')}`;
}

/** The messages of the other commands, word for word. */
export const MEMORY_TEXT = {
  mustStartWith: (path: string) => `Path must start with /memories, got: ${path}`,
  wouldEscape: (path: string) => `Path ${path} would escape /memories directory`,
  notExist: (path: string) => `The path ${path} does not exist. Please provide a valid path.`,
  notAFile: (path: string) => `The path ${path} is not a file.`,
  goneConcurrently: (path: string) =>
    `The file ${path} no longer exists (may have been deleted or renamed concurrently).`,
  alreadyExists: (path: string) => `File ${path} already exists`,
  created: (path: string) => `File created successfully at: ${path}`,
  cannotDeleteRoot: 'Cannot delete the /memories directory itself',
  deleteMissing: (path: string) => `The path ${path} does not exist`,
  deleted: (path: string) => `Successfully deleted ${path}`,
  cannotRenameRoot: 'Cannot rename the /memories directory itself',
  destinationExists: (path: string) => `The destination ${path} already exists`,
  renameMissing: (path: string) => `The path ${path} does not exist`,
  renamed: (from: string, to: string) => `Successfully renamed ${from} to ${to}`,
  // Ours (no counterpart in the reference): the bounds of extensions §14, documented in docs/agents.md.
  tooLarge: (path: string, bytes: number, max: number) =>
    `File ${path} would be too large (${bytes} bytes). Maximum is ${max} bytes.`,
  tooLargeToView: (path: string, bytes: number, max: number) =>
    `File ${path} is too large to view (${bytes} bytes). Maximum is ${max} bytes.`,
  folderTooLarge: (path: string, files: number, max: number) =>
    `The directory ${path} holds ${files} files. At most ${max} can be renamed or deleted at once.`,
  empty: (path: string) => `File ${path} cannot be empty.`,
  outsideKey: (path: string) => `The path ${path} is outside the folders this key may write to.`,
  busy: (path: string, attempts: number) =>
    `The file ${path} changed ${attempts} times while the command was being applied; send it again.`,
} as const;
