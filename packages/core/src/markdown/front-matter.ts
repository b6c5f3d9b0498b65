/**
 * The YAML front matter block as extensions §3 defines it: the text (after an optional BOM, which the
 * caller strips) starts with a line `---`, and a later line `---` or `...` closes it. Trailing spaces
 * and tabs on the fence lines are allowed, as YAML allows them. Only the block's extent matters here:
 * whether its YAML is valid does not change that it is not Markdown.
 */
const OPENING = /^---[ \t]*\r?$/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*\r?$/;

/** Length of the front matter block including its closing line's line ending, or 0 when there is none. */
export function frontMatterLength(text: string): number {
  let end = lineEnd(text, 0);
  if (!OPENING.test(text.slice(0, end))) return 0;
  // Lines are LF-terminated (a lone CR is not a line ending), so the scan splits on LF only.
  while (end < text.length) {
    const start = end + 1;
    end = lineEnd(text, start);
    if (CLOSING.test(text.slice(start, end))) return Math.min(end + 1, text.length);
  }
  return 0;
}

/** Offset of the LF ending the line that starts at `start`, or the text's length. */
function lineEnd(text: string, start: number): number {
  const at = text.indexOf('\n', start);
  return at === -1 ? text.length : at;
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
