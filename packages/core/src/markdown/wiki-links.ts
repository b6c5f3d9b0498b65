/**
 * `[[wiki links]]` as Obsidian and other wikis write them, found in the parser's plain text runs (so
 * never in code, HTML or JSX attributes):
 * - `[[target]]`: target `target`, text `target`;
 * - `[[target|text]]`: the text after the first `|` (when it is not blank);
 * - `[[target#heading]]`: the target keeps its `#heading` part verbatim, as the client must resolve
 *   it (`[[#heading]]` links within the file);
 * - `![[embed]]` is an embed, like an image: found only when asked for (`embeds`), marked `embed`;
 * - the brackets must be literal: an escaped `\[\[` is text, and a link spans one line.
 * Target and text are trimmed; a blank target is no link. When a definition `[target]: url` exists,
 * CommonMark itself reads `[[target]]` as `[` + a reference link + `]`: that is a Markdown link.
 */
const WIKI_LINK = /(!?)\[\[([^[\]\r\n]+)\]\]/g;

export interface WikiLink {
  readonly target: string;
  readonly text: string;
  /** Offset of the opening `[[` within the scanned source. */
  readonly index: number;
  /** `![[target]]`: an embed (only with `embeds`). */
  readonly embed: boolean;
}

export function findWikiLinks(source: string, o: { embeds?: boolean } = {}): WikiLink[] {
  const found: WikiLink[] = [];
  for (const match of source.matchAll(WIKI_LINK)) {
    const bang = match[1] === '!';
    // `![[x]]` is an embed, unless the `!` itself is escaped; `\[[x]]` is escaped text.
    const embed = bang && !isEscaped(source, match.index);
    if (embed ? !o.embeds : !bang && isEscaped(source, match.index)) continue;
    const inner = match[2]!;
    const bar = inner.indexOf('|');
    const target = (bar === -1 ? inner : inner.slice(0, bar)).trim();
    if (target === '') continue;
    const alias = bar === -1 ? '' : inner.slice(bar + 1).trim();
    found.push({ target, text: alias === '' ? target : alias, index: match.index + (bang ? 1 : 0), embed });
  }
  return found;
}

/** An odd run of backslashes before `at` escapes the character there. */
function isEscaped(source: string, at: number): boolean {
  let backslashes = 0;
  while (at - backslashes - 1 >= 0 && source[at - backslashes - 1] === '\\') backslashes++;
  return backslashes % 2 === 1;
}
