/** Small text rules shared by the Markdown modules. */

export const BOM = '\uFEFF';

/** 1 when the text starts with a byte order mark, else 0: the offset where the Markdown starts. */
export const bomLength = (text: string): number => (text.startsWith(BOM) ? 1 : 0);

const WHITE_SPACE_RUN = /\p{White_Space}+/gu;

/**
 * Heading texts (and link texts) compare after trimming and collapsing white space. Unicode's
 * White_Space property, not JS `\s` (which wrongly includes U+FEFF and lacks U+0085).
 */
export const collapseWhiteSpace = (text: string): string => text.replace(WHITE_SPACE_RUN, ' ').trim();

/** The text's own line ending: that of its first LF (CRLF when a CR precedes it), LF when it has none. */
export function detectLineEnding(text: string): '\n' | '\r\n' {
  const at = text.indexOf('\n');
  return at > 0 && text[at - 1] === '\r' ? '\r\n' : '\n';
}

/**
 * Offsets where CommonMark lines start: after LF, CRLF or a lone CR (the parser's notion of a line,
 * which differs from the interface's LF-only lines only where a lone CR occurs).
 */
export function parserLineStarts(text: string): number[] {
  const starts = [0];
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 10) starts.push(at + 1);
    else if (code === 13 && text.charCodeAt(at + 1) !== 10) starts.push(at + 1);
  }
  return starts;
}
