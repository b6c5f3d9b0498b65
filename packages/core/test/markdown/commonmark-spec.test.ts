import { frontMatterLength, parseDocument } from '@mdstore/core';
import { tests } from 'commonmark-spec';
import { describe, expect, it } from 'vitest';
import { parseCommonMark } from '../../src/markdown/parse-commonmark.js';
import { parseWithMicromark } from '../../src/markdown/parse-mdx.js';

/**
 * Every example of the CommonMark spec (the `commonmark-spec` package): the headings we find must be
 * the `<h1>`…`<h6>` of the spec's own expected HTML (rendered by the reference implementation), which
 * covers headings in code blocks, HTML blocks, lists, block quotes and the setext edge cases. Both
 * tree walks are checked: markdown-it's (what `.md` files use) and micromark's (what `.mdx` files
 * use, here in CommonMark mode), and the two must agree on lines, offsets and links. A few examples
 * start with what our documents read as front matter (`---` … `---`); for them the parsers are
 * checked on the raw text, and the document model's own reading is checked apart.
 */
const examples = tests.map((example) => ({
  number: example.number,
  section: example.section,
  // The spec writes tabs as →.
  markdown: example.markdown.replace(/→/g, '\t'),
  html: example.html.replace(/→/g, '\t'),
}));

const collapse = (text: string) => text.replace(/\p{White_Space}+/gu, ' ').trim();

const decodeHtml = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** Plain text of rendered HTML: tags dropped, an image replaced by its alt text, entities decoded. */
const htmlText = (html: string) =>
  collapse(decodeHtml(html.replace(/<img [^>]*?alt="([^"]*)"[^>]*>/g, '$1').replace(/<[^>]*>/g, '')));

const expectedHeadings = (html: string) =>
  [...html.matchAll(/<h([1-6])>([\s\S]*?)<\/h\1>/g)].map((match) => ({
    level: Number(match[1]),
    text: htmlText(match[2]!),
  }));

/** Links of the reference output; `<a>` elements that were raw HTML in the source are not links. */
const expectedLinkTexts = (html: string) =>
  [...html.matchAll(/<a href="[^"]*"(?: title="[^"]*")?>([\s\S]*?)<\/a>/g)].map((match) =>
    htmlText(match[1]!),
  );

const plain = examples.filter((example) => frontMatterLength(example.markdown) === 0);
const withFrontMatter = examples.filter((example) => frontMatterLength(example.markdown) > 0);
const withoutRawLinks = examples.filter((example) => !/<a /.test(example.markdown));

const comparable = (headings: readonly { level: number; text: string }[]) =>
  headings.map(({ level, text }) => ({ level, text }));

describe('headings of every CommonMark spec example', () => {
  it('the spec package has its 652 examples, 40 with headings, 2 that start with a front matter block', () => {
    expect(examples).toHaveLength(652);
    expect(examples.filter((example) => expectedHeadings(example.html).length > 0)).toHaveLength(40);
    expect(withFrontMatter.map((example) => example.number)).toEqual([96, 98]);
  });

  it.each(examples)('example $number ($section): markdown-it finds the reference headings', (example) => {
    expect(comparable(parseCommonMark(example.markdown).headings)).toEqual(expectedHeadings(example.html));
  });

  it.each(plain)('example $number ($section): the document model reads the same headings', (example) => {
    expect(comparable(parseDocument(example.markdown, { mdx: false }).headings)).toEqual(
      expectedHeadings(example.html),
    );
  });

  it.each(examples)('example $number ($section): the micromark walk agrees, offsets included', (example) => {
    expect(parseWithMicromark(example.markdown, { mdx: false }).headings).toEqual(
      parseCommonMark(example.markdown).headings,
    );
  });

  it.each(withFrontMatter)('example $number: no heading comes from the front matter block', (example) => {
    const end = frontMatterLength(example.markdown);
    const headings = parseDocument(example.markdown, { mdx: false }).headings;
    expect(headings.every((heading) => heading.start >= end)).toBe(true);
    expect(comparable(headings)).toEqual(comparable(parseCommonMark(example.markdown.slice(end)).headings));
  });
});

describe('links of every CommonMark spec example', () => {
  it.each(withoutRawLinks)(
    'example $number ($section): Markdown links are the reference <a> elements',
    (example) => {
      const found = parseCommonMark(example.markdown).links.filter((link) => link.kind === 'markdown');
      expect(found.map((link) => link.text)).toEqual(expectedLinkTexts(example.html));
    },
  );

  it.each(examples)('example $number ($section): the micromark walk finds the same links', (example) => {
    const lineOf = (text: string, offset: number) => text.slice(0, offset).split(/\r\n|\r|\n/).length;
    const comparableLinks = (
      links: readonly { kind: string; target: string; text: string; offset: number }[],
    ) => links.map((link) => ({ ...link, offset: lineOf(example.markdown, link.offset) }));
    expect(comparableLinks(parseWithMicromark(example.markdown, { mdx: false }).links)).toEqual(
      comparableLinks(parseCommonMark(example.markdown).links),
    );
  });
});
