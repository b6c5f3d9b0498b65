/** What a link extractor reports, in offsets of the text it was given (BOM removed, front matter blanked). */
export interface RawIndexLink {
  readonly kind: 'markdown' | 'wiki';
  /** Markdown: the destination as the parser reads it (escapes resolved); wiki: `target#heading`. */
  readonly href: string;
  /** Where the link starts (its `[` or `![`), for its line. */
  readonly offset: number;
  /**
   * Where its destination is written, `[start, end)`: an inline link's destination (with its `<>`),
   * a reference link's definition's, a wiki link's `target#heading`. Null when it could not be located
   * exactly (such a link is indexed, but a rewrite leaves it alone).
   */
  readonly dest: readonly [number, number] | null;
}

export interface RawLinkDocument {
  readonly links: RawIndexLink[];
  /** Heading texts in document order (plain text, white space collapsed). */
  readonly headings: string[];
}
