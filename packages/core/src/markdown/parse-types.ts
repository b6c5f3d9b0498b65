/** What a parser backend reports, in offsets of the text it was given (BOM removed, front matter blanked). */

export type HeadingLevel = 1 | 2 | 3 | 4 | 5 | 6;

export interface RawHeading {
  readonly level: HeadingLevel;
  /** Plain text, white space collapsed and trimmed. */
  readonly text: string;
  /** Start of the (parser) line where the heading starts. */
  readonly start: number;
  /** Start of the line after the heading (after a setext heading's underline), or the text's end. */
  readonly bodyStart: number;
  readonly setext: boolean;
}

export interface RawLink {
  /** A Markdown link (inline, reference or autolink) or a `[[wiki link]]`. */
  readonly kind: 'markdown' | 'wiki';
  readonly target: string;
  readonly text: string;
  /** An offset on the line where the link starts. */
  readonly offset: number;
}

export interface RawDocument {
  readonly headings: RawHeading[];
  readonly links: RawLink[];
}
