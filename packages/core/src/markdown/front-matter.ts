/**
 * The YAML front matter block as extensions §3 defines it: the text (after an optional BOM, which the
 * caller strips) starts with a line `---`, and a later line `---` or `...` closes it. Spaces and tabs
 * may follow either marker, and lines end at LF, CRLF or a lone CR: the same rule as the search's
 * front matter reader (search/frontmatter.ts), so a block it reads is never read as Markdown here.
 * Only the block's extent matters: whether its YAML is valid, or its size, does not make it Markdown.
 */
const OPENING = /^---[ \t]*(?:\r\n|\n|\r)/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/;

/** Length of the front matter block including its closing line's line ending, or 0 when there is none. */
export function frontMatterLength(text: string): number {
  const opening = OPENING.exec(text);
  if (!opening) return 0;
  const lineEnds = /\r\n|\n|\r/g;
  lineEnds.lastIndex = opening[0].length;
  for (let lineStart = opening[0].length; lineStart < text.length; lineStart = lineEnds.lastIndex) {
    const found = lineEnds.exec(text);
    const lineEnd = found ? found.index : text.length;
    if (CLOSING.test(text.slice(lineStart, lineEnd))) return found ? lineEnds.lastIndex : text.length;
    if (!found) break;
  }
  return 0;
}

/**
 * The text with its front matter blanked out: every character of the block except CR and LF becomes
 * a space, so offsets and lines stay where they were and the parser sees blank lines.
 */
export function maskFrontMatter(text: string): string {
  const length = frontMatterLength(text);
  if (length === 0) return text;
  return text.slice(0, length).replace(/[^\r\n]/g, ' ') + text.slice(length);
}
