import { frontMatterLength as blockLength } from '../../../packages/core/src/markdown/front-matter.ts';

/**
 * The leading YAML front matter block of a Markdown text, and its lines cut into the parts the console
 * colours (keys, values, comments, markers), for the file view and the editor alike. The block is the
 * core's (extensions §3: a first line `---`, closed by a later `---` or `...`), by the core's own
 * function (a pure module the console's bundle takes as it is), so the console colours as front matter
 * exactly what the server reads as front matter.
 */

/** Length of the front matter block up to the end of its closing line (no line ending), or 0. */
export function frontMatterLength(text: string): number {
  const length = blockLength(text);
  if (length === 0) return 0;
  const block = text.slice(0, length);
  return length - (block.endsWith('\r\n') ? 2 : /[\r\n]$/.test(block) ? 1 : 0);
}

export type YamlPart = 'mark' | 'key' | 'punct' | 'value' | 'comment';

export interface YamlToken {
  readonly from: number;
  readonly to: number;
  readonly part: YamlPart;
}

const KEY_LINE = /^([ \t]*(?:-[ \t]+)?)((?:"[^"]*"|'[^']*'|[^\s#:'"][^:#]*?)[ \t]*)(:)(?=[ \t]|$)/;
const ITEM_LINE = /^([ \t]*)(-)(?=[ \t]|$)/;

/** A value, and a ` #` comment after it (not one inside quotes: good enough for colouring). */
function valueTokens(line: string, from: number, out: YamlToken[]): void {
  const rest = line.slice(from);
  const start = from + (rest.length - rest.trimStart().length);
  if (start >= line.length) return;
  const comment = /(^|[ \t])#/.exec(line.slice(start));
  const quoted = /^["']/.test(line.slice(start));
  const commentAt = comment && !quoted ? start + comment.index + comment[1]!.length : -1;
  const valueEnd = commentAt >= 0 ? commentAt : line.length;
  const trimmedEnd = start + line.slice(start, valueEnd).trimEnd().length;
  if (trimmedEnd > start) out.push({ from: start, to: trimmedEnd, part: 'value' });
  if (commentAt >= 0) out.push({ from: commentAt, to: line.length, part: 'comment' });
}

/** The coloured parts of one line of the block (offsets within the line). */
export function yamlLineTokens(line: string, marker: boolean): YamlToken[] {
  if (marker) return line.length > 0 ? [{ from: 0, to: line.length, part: 'mark' }] : [];
  const out: YamlToken[] = [];
  const lead = line.length - line.trimStart().length;
  if (line.startsWith('#', lead)) return [{ from: lead, to: line.length, part: 'comment' }];
  const key = KEY_LINE.exec(line);
  if (key) {
    const [, indent = '', name = ''] = key;
    const dash = indent.indexOf('-');
    if (dash >= 0) out.push({ from: dash, to: dash + 1, part: 'punct' });
    const nameEnd = indent.length + name.trimEnd().length;
    out.push({ from: indent.length, to: nameEnd, part: 'key' });
    const colon = indent.length + name.length;
    out.push({ from: colon, to: colon + 1, part: 'punct' });
    valueTokens(line, colon + 1, out);
    return out;
  }
  const item = ITEM_LINE.exec(line);
  if (item) {
    const dash = item[1]!.length;
    out.push({ from: dash, to: dash + 1, part: 'punct' });
    valueTokens(line, dash + 1, out);
    return out;
  }
  valueTokens(line, 0, out);
  return out;
}

/** The block's lines with their tokens: the first and last lines are the markers. */
export function frontMatterLines(block: string): { text: string; tokens: YamlToken[] }[] {
  const lines = block.split(/\r\n|\n|\r/);
  return lines.map((text, i) => ({ text, tokens: yamlLineTokens(text, i === 0 || i === lines.length - 1) }));
}
