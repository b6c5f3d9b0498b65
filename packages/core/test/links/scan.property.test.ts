import { tests } from 'commonmark-spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractLinks, extractLinksParsed } from '../../src/links/extract.js';
import { extractCommonMarkLinks } from '../../src/links/extract-commonmark.js';
import { scanCommonMarkLinks } from '../../src/links/scan.js';

/**
 * The link scanner (links/scan.ts, issue 36) reads a subset of CommonMark without markdown-it and must
 * give exactly what the parser-based extractor gives: every link (kind, destination, offset, written
 * range) and every heading text, or nothing (`null`), in which case the parser runs. Checked on every
 * example of the CommonMark spec, on generated Markdown made of the constructs the scanner reads and
 * of those near its edges (which it must either read exactly or give up on), and through
 * `extractLinks` (slugs and lines included) against the parse alone. Seeded: a failure reproduces.
 */

/** Pieces of documents the scanner reads whole: it must not give up on them. */
const INSIDE = [
  '# Title\n',
  '## A heading with `code` and [a link](a.md)\n',
  '### snake_case_name ###\n',
  'Some words, a [link](b.md) and [another](../c/d.md#e).\n',
  'Text with *emphasis* and **strong** and `code [x](y.md)` and ``a ` b``.\n',
  'An image ![alt [x](z.md)](img.png) and [![inner](i.png)](outer.md).\n',
  'A wiki [[Target]] and [[t#Heading|alias]] and ![[embed]].\n',
  'Reference [text][ref] and [ref] and [ref][] and [nope][missing].\n',
  '[ref]: ref-target.md\n',
  '[Other Ref]: https://example.com/x.md\n',
  '- [Install](setup/install.md)\n',
  '- item with [[wiki]]\n',
  '* star item\n',
  '+ plus item\n',
  '1. first [one](1.md)\n',
  '2) second\n',
  '10. tenth\n',
  '```md\n[in code](no.md)\n```\n',
  '~~~\n[[no wiki]]\n~~~\n',
  '````\n```\n````\n',
  'lazy continuation [x](y.md)\n',
  'trailing spaces  \nnext line\n',
  '[[a]](b.md) and [[b] c](d.md) and [a [b](c.md)](d.md)\n',
  'q & a, 3 > 2 and 5% more\n',
  '`unclosed code and [link](u.md)\n',
  'multi-line [link\ntext](m.md)\n',
  '\n',
  '\n\n',
];

/** Pieces that take a document to the scanner's edges or beyond (it may give up on them). */
const EDGES = [
  '    indented\n',
  '> quote [q](q.md)\n',
  '<div>\n',
  '<a.md>',
  '\\[x](y.md)',
  '&#91;x](y.md)',
  '---\n',
  '===\n',
  '***\n',
  '-\n',
  '1.\n',
  '- \n',
  '\t- tab\n',
  '\r\n',
  '[label]:\n',
  '[label]: <x.md>\n',
  '[label]: x.md "title"\n',
  '"title"\n',
  '[x](a b)',
  '[x](<a b>)',
  '[x]()',
  '[x](a(b)c)',
  '[x]( a.md )',
  '[x](a.md "t")',
  '*',
  '_',
  '[[',
  ']]',
  '[',
  ']',
  '(',
  ')',
  '![',
  '`',
  '``',
  '#',
  '# ',
  '[ref]',
  '[ref]: r.md\n',
  '\n',
  'word ',
  'é',
];

const inside = fc.array(fc.constantFrom(...INSIDE), { maxLength: 40 }).map((pieces) => pieces.join(''));
const mixed = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...INSIDE) },
      { weight: 3, arbitrary: fc.constantFrom(...EDGES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 5 }) },
    ),
    { maxLength: 60 },
  )
  .map((pieces) => pieces.join(''));

const SEED = 36_036;

describe('the link scanner gives the parser’s links and headings, or gives up', () => {
  it('on every example of the CommonMark spec', () => {
    let scanned = 0;
    for (const example of tests) {
      const found = scanCommonMarkLinks(example.markdown);
      if (found === null) continue;
      scanned++;
      expect(found, `spec example ${example.number}`).toEqual(extractCommonMarkLinks(example.markdown));
    }
    // It reads a good part of the spec, not only trivial texts.
    expect(scanned).toBeGreaterThan(200);
  });

  it('on documents of the constructs it reads: never gives up, same answer', () => {
    fc.assert(
      fc.property(inside, (text) => {
        const found = scanCommonMarkLinks(text);
        expect(found).not.toBeNull();
        expect(found).toEqual(extractCommonMarkLinks(text));
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('on documents mixing them with constructs at and past its edges: same answer when it answers', () => {
    let scanned = 0;
    fc.assert(
      fc.property(mixed, (text) => {
        const found = scanCommonMarkLinks(text);
        if (found === null) return;
        scanned++;
        expect(found).toEqual(extractCommonMarkLinks(text));
      }),
      { seed: SEED, numRuns: 1500 },
    );
    expect(scanned).toBeGreaterThan(50);
  });

  it('through extractLinks (front matter, BOM, slugs, lines): the answer of the parse alone', () => {
    const head = fc.constantFrom(
      '',
      '---\ntitle: x\nlink: "[[c]]"\n---\n',
      '\ufeff',
      '\ufeff---\na: 1\n---\n',
    );
    fc.assert(
      fc.property(head, fc.oneof(inside, mixed), (front, text) => {
        expect(extractLinks(front + text, { mdx: false })).toEqual(
          extractLinksParsed(front + text, { mdx: false }),
        );
      }),
      { seed: SEED, numRuns: 400 },
    );
  });
});
