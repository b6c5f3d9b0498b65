import { tests } from 'commonmark-spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractLinks, extractLinksParsed, linksCost, mayHoldLinks } from '../../src/links/extract.js';
import { outlineCost } from '../../src/markdown/cost.js';

/**
 * The link extractor's pre-check (links/extract.ts `mayHoldLinks`): a CommonMark text without `[`
 * (front matter aside) skips the whole parse and takes its headings from the headings-only parse. It
 * must change nothing: for every such text the answer is the one of the whole parse, links (none) and
 * headings, slugs included. Texts are made of every construct near a link without its `[`: autolinks
 * and e-mail autolinks to `.md` names, bare URLs, `](x.md)`, raw HTML anchors, headings of both kinds
 * (with code, emphasis, autolinks, escapes), code, HTML blocks, front matter holding `[`; plus every
 * example of the CommonMark spec without `[`. Seeded, so a failure is reproducible.
 */

const PIECES = [
  '\n\n# A *heading* with `code` and <http://x/a.md>\n\n',
  '\nSetext heading\n===\n',
  '# ',
  '## ',
  '###### ',
  'Title',
  '\n',
  '\r\n',
  '\n\n',
  '===\n',
  '---\n',
  '> ',
  '- ',
  '1. ',
  '    ',
  '\t',
  '*',
  '_',
  '**',
  '`',
  '```\n',
  '~~~\n',
  ']',
  '](a.md)',
  '](../b.md#c)',
  ']: x.md',
  '(',
  ')',
  '!',
  '<',
  '>',
  '<a.md>',
  '<http://x/a.md>',
  '<mailto:x@y.md>',
  '<x@y.md>',
  'http://example.com/a.md',
  'www.example.com/a.md',
  'b.md',
  '<a href="a.md">x</a>',
  '<div>\n',
  '</div>\n',
  '<!-- a.md -->',
  '\\',
  '\\]',
  '&#91;',
  '&lsqb;x](a.md)',
  '|',
  '#anchor',
  'é',
  '\ud83d\ude00',
  'word ',
];

const piece = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).map((text) => text.replaceAll('[', '')) },
);
const frontMatter = fc.constantFrom('', '---\ntitle: x\ntags: [a, b]\nlink: "[[c]]"\n---\n', '\ufeff');
const body = fc.array(piece, { maxLength: 120 }).map((pieces) => pieces.join(''));
const withoutBrackets = fc.tuple(frontMatter, body).map(([head, rest]) => head + rest);

describe('the link pre-check (no `[`, no parse of links)', () => {
  it('a text without `[` gets the answer of the whole parse: no links, the same headings and slugs', () => {
    let withHeadings = 0;
    fc.assert(
      fc.property(withoutBrackets, (text) => {
        const parsed = extractLinksParsed(text, { mdx: false });
        expect(extractLinks(text, { mdx: false })).toEqual(parsed);
        expect(parsed.links).toEqual([]);
        if (parsed.headings.length > 0) withHeadings++;
      }),
      { seed: 26_2026, numRuns: 1_500 },
    );
    // Not vacuous: headings were there to be found.
    expect(withHeadings).toBeGreaterThan(200);
  });

  it('the CommonMark spec examples without `[`: the same answer', () => {
    const examples = tests.filter((example) => !example.markdown.includes('['));
    expect(examples.length).toBeGreaterThan(400);
    for (const example of examples) {
      expect(extractLinks(example.markdown, { mdx: false })).toEqual(
        extractLinksParsed(example.markdown, { mdx: false }),
      );
    }
  });

  it('a text holding a link is never taken for one without', () => {
    fc.assert(
      fc.property(
        body,
        body,
        fc.constantFrom('[a](b.md)', '[[b]]', '![i](b.md)', '[a][r]\n\n[r]: b.md'),
        (a, b, link) => {
          const text = `${a}\n\n${link}\n\n${b}`;
          expect(mayHoldLinks(text)).toBe(true);
          expect(extractLinks(text, { mdx: false })).toEqual(extractLinksParsed(text, { mdx: false }));
        },
      ),
      { seed: 26_2027, numRuns: 300 },
    );
  });

  it('its estimate is the headings-only parse: lower than a whole parse for prose, the same with a `[`', () => {
    const prose = '# Notes\n\nPlain words, *emphasis* and `code`.\n\n- a list\n\n'.repeat(50);
    expect(linksCost(prose, false)).toBeLessThan(outlineCost(prose, false) / 2);
    expect(linksCost(`${prose}[a](b.md)`, false)).toBe(outlineCost(`${prose}[a](b.md)`, false));
    expect(linksCost(prose, true)).toBe(outlineCost(prose, true));
  });
});
