import { frontMatterLength, parseDocument, parseFrontmatter } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskFrontMatter } from '../../src/markdown/front-matter.js';

const md = (content: string) => parseDocument(content, { mdx: false });
const mdx = (content: string) => parseDocument(content, { mdx: true });
const texts = (content: string, parse = md) => parse(content).headings.map((heading) => heading.text);

describe('front matter block (extensions §3)', () => {
  it.each([
    ['---\na: 1\n---\n# T\n', 13],
    ['---\na: 1\n...\n# T\n', 13],
    ['---\r\na: 1\r\n---\r\n# T\r\n', 16],
    ['---  \na: 1\n---\t\n# T\n', 16],
    ['---\n---\n', 8],
    ['---\na: 1\n---', 12],
    ['---\n\n---\nrest', 9],
    // Lines end at a lone CR too, as for the search's front matter reader.
    ['---\ra: 1\n---\n', 13],
    ['---\ra: 1\r...\r# T', 13],
  ])('%j: a block of %i characters', (text, length) => {
    expect(frontMatterLength(text)).toBe(length);
  });

  it.each([
    ['no closing line', '---\na: 1\n# T\n'],
    ['not at the start', '\n---\na: 1\n---\n'],
    ['four dashes', '----\na: 1\n---\n'],
    ['text after the dashes', '--- a\nb: 1\n---\n'],
    ['closing line with text', '---\na: 1\n--- x\n'],
    ['no line after the opening one', '---'],
    ['empty', ''],
  ])('%s: no block', (_, text) => {
    expect(frontMatterLength(text)).toBe(0);
  });

  it('is found wherever the search reads front matter', () => {
    const line = fc.constantFrom('---', '...', '--- ', '---\t', 'a: 1', 'b: [x]', '# h', '', ' ---');
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    const content = fc
      .tuple(fc.boolean(), fc.array(fc.tuple(line, eol), { maxLength: 8 }))
      .map(([bom, lines]) => (bom ? '\uFEFF' : '') + lines.map(([text, end]) => text + end).join(''));
    fc.assert(
      fc.property(content, (text) => {
        if (parseFrontmatter(text) !== null)
          expect(frontMatterLength(text.replace(/^\uFEFF/, ''))).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('the first closing line ends it, `...` or `---`', () => {
    expect(frontMatterLength('---\na\n...\nb\n---\n')).toBe(10);
  });

  it('masking keeps offsets and line endings and blanks everything else', () => {
    const text = '---\r\ntitle: x\n---\nbody';
    const masked = maskFrontMatter(text);
    expect(masked).toBe('   \r\n        \n   \nbody');
    expect(maskFrontMatter('no front matter\n---\n')).toBe('no front matter\n---\n');
  });

  it('no heading comes from inside it, setext-looking lines included', () => {
    const content = '---\n# not a heading\ntitle: x\n---\n# Real\n';
    expect(md(content).headings).toEqual([
      { level: 1, text: 'Real', line: 5, start: 33, bodyStart: 40, setext: false },
    ]);
    // Without the block rule, `title: x` over `---` would be a setext heading.
    expect(texts('---\ntitle: x\n---\n')).toEqual([]);
    expect(texts('x\n---\ntitle: x\n---\n')).toEqual(['x', 'title: x']);
  });

  it('is found after a BOM, and counts for line numbers', () => {
    const content = '\uFEFF---\r\na: 1\r\n---\r\n\r\n## Two\r\n';
    expect(md(content).headings).toEqual([
      { level: 2, text: 'Two', line: 5, start: 19, bodyStart: 27, setext: false },
    ]);
  });

  it('in MDX too', () => {
    expect(texts('---\ntitle: x\n# no\n---\n# Yes\n', mdx)).toEqual(['Yes']);
    expect(mdx('---\ntitle: x\n---\n# Yes\n').syntax).toBe('mdx');
  });
});

describe('headings are what CommonMark finds', () => {
  it('ATX and setext, with their lines, offsets and body starts', () => {
    const content = '# One\ntext\n\nTwo\n===\n\nThree\nlines\n---\n## Four ##\n';
    expect(md(content).headings).toEqual([
      { level: 1, text: 'One', line: 1, start: 0, bodyStart: 6, setext: false },
      { level: 1, text: 'Two', line: 4, start: 12, bodyStart: 20, setext: true },
      { level: 2, text: 'Three lines', line: 7, start: 21, bodyStart: 37, setext: true },
      { level: 2, text: 'Four', line: 10, start: 37, bodyStart: 48, setext: false },
    ]);
  });

  it('never inside fenced code, indented code or HTML blocks', () => {
    const content = [
      '```',
      '# fenced',
      '```',
      '',
      '~~~md',
      '## tilde',
      '~~~',
      '',
      '    # indented',
      '',
      '<div>',
      '# html',
      '</div>',
      '',
      '<!--',
      '# comment',
      '-->',
      '',
      '# Only',
    ].join('\n');
    expect(md(content).headings.map(({ text, line }) => ({ text, line }))).toEqual([
      { text: 'Only', line: 19 },
    ]);
  });

  it('inside block quotes and list items they are headings', () => {
    expect(
      md('> # Quoted\n\n- ## Listed\n').headings.map(({ text, line, start }) => ({ text, line, start })),
    ).toEqual([
      { text: 'Quoted', line: 1, start: 0 },
      { text: 'Listed', line: 3, start: 12 },
    ]);
  });

  it('the text is the inline content as plain text, white space collapsed', () => {
    expect(
      texts(
        [
          '## Install **now**',
          '# `npm` *i*  <span>x</span>',
          '# ![logo](l.png) Name',
          '# a\\*b &amp; c &#65;',
          '#    spaced\tout   #',
          '# [link](http://x) text',
          '#',
          'multi\nline  \nsetext\n===',
        ].join('\n\n'),
      ),
    ).toEqual([
      'Install now',
      'npm i x',
      'logo Name',
      'a*b & c A',
      'spaced out',
      'link text',
      '',
      'multi line setext',
    ]);
  });

  it('CRLF: lines and offsets stay those of the file', () => {
    const content = 'intro\r\n\r\n# A\r\ntext\r\nB\r\n--\r\n';
    expect(md(content).headings).toEqual([
      { level: 1, text: 'A', line: 3, start: 9, bodyStart: 14, setext: false },
      { level: 2, text: 'text B', line: 4, start: 14, bodyStart: 27, setext: true },
    ]);
  });

  it('a lone CR ends a line for the parser but not for line numbers', () => {
    expect(md('intro\r# H\nbody').headings).toEqual([
      { level: 1, text: 'H', line: 1, start: 6, bodyStart: 10, setext: false },
    ]);
  });

  it('a BOM is skipped and counted in offsets', () => {
    expect(md('\uFEFF# T\nx').headings).toEqual([
      { level: 1, text: 'T', line: 1, start: 1, bodyStart: 5, setext: false },
    ]);
  });

  it('a heading on the last line without LF has its body start at the end', () => {
    expect(md('x\n# End').headings[0]).toMatchObject({ start: 2, bodyStart: 7 });
  });
});

describe('MDX', () => {
  const content = [
    "import { Note } from './note.js'",
    'export const meta = { title: "x" }',
    '',
    '# Title {meta.title}',
    '',
    '<Note>',
    '# not a document heading',
    '',
    '[inside](./in.md)',
    '</Note>',
    '',
    '<Tabs items={["a", "b"]}>',
    '  ## also JSX content',
    '</Tabs>',
    '',
    '## Badge <Badge>new</Badge> `code`',
    '',
    '{/* # a comment */}',
  ].join('\n');

  it('headings inside JSX, ESM and expressions are not headings; the rest are', () => {
    const parsed = mdx(content);
    expect(parsed.syntax).toBe('mdx');
    expect(parsed.mdxFallback).toBeNull();
    expect(parsed.headings.map(({ level, text, line }) => ({ level, text, line }))).toEqual([
      { level: 1, text: 'Title', line: 4 },
      { level: 2, text: 'Badge new code', line: 16 },
    ]);
  });

  it('Markdown links inside JSX content are links', () => {
    expect(mdx(content).links).toEqual([{ kind: 'markdown', target: './in.md', text: 'inside', line: 9 }]);
  });

  it('the same file read as CommonMark would differ: the MDX grammar is what is used', () => {
    expect(texts(content, md)).not.toEqual(texts(content, mdx));
  });

  it('invalid MDX is read as CommonMark instead of failing', () => {
    const broken = '# Before\n\n<Note>\n\n## Inside an unclosed tag\n\n{ unbalanced\n';
    const parsed = mdx(broken);
    expect(parsed.syntax).toBe('commonmark');
    expect(parsed.mdxFallback).toBe('parse_error');
    expect(parsed.headings.map((heading) => heading.text)).toEqual(['Before', 'Inside an unclosed tag']);
  });

  it('a `.md` file is never parsed as MDX', () => {
    const parsed = md('<Note>\n# x\n</Note>\n');
    expect(parsed).toMatchObject({ syntax: 'commonmark', mdxFallback: null });
  });
});

describe('links', () => {
  it('inline, reference (resolved through its definition) and autolinks, with their lines', () => {
    const content = [
      'See [the docs](./docs.md "Docs") and [ref][r],',
      'then [collapsed][] or [shortcut] and <https://example.com/a?b> or <me@example.com>.',
      '',
      '[r]: https://r.example',
      '[collapsed]: ./c.md',
      '[shortcut]: <./s s.md>',
      '[unused]: ./unused.md',
    ].join('\n');
    expect(md(content).links).toEqual([
      { kind: 'markdown', target: './docs.md', text: 'the docs', line: 1 },
      { kind: 'markdown', target: 'https://r.example', text: 'ref', line: 1 },
      { kind: 'markdown', target: './c.md', text: 'collapsed', line: 2 },
      { kind: 'markdown', target: './s s.md', text: 'shortcut', line: 2 },
      { kind: 'markdown', target: 'https://example.com/a?b', text: 'https://example.com/a?b', line: 2 },
      { kind: 'markdown', target: 'mailto:me@example.com', text: 'me@example.com', line: 2 },
    ]);
  });

  it('images are not links; an image inside a link gives the link its text', () => {
    expect(md('![alt](a.png) [![logo](l.png)](home.md) ![r][img]\n\n[img]: i.png').links).toEqual([
      { kind: 'markdown', target: 'home.md', text: 'logo', line: 1 },
    ]);
  });

  it('none in code spans, code blocks or HTML', () => {
    const content = [
      '`[a](b)` and `[[c]]`',
      '',
      '```',
      '[d](e) [[f]]',
      '```',
      '',
      '    [g](h)',
      '',
      '<div>',
      '[i](j) [[k]]',
      '</div>',
      '',
      'text <span title="[l](m)">[n](o)</span>',
    ].join('\n');
    expect(md(content).links).toEqual([{ kind: 'markdown', target: 'o', text: 'n', line: 13 }]);
  });

  it('targets are kept as written: not percent-encoded, and no scheme is refused', () => {
    expect(md('[a](<ü b.md>) [b](javascript:alert(1)) [c](%20x)').links.map((link) => link.target)).toEqual([
      'ü b.md',
      'javascript:alert(1)',
      '%20x',
    ]);
    expect(md('<https://xn--d1acpjx3f.xn--p1ai/a%20b>').links).toEqual([
      {
        kind: 'markdown',
        target: 'https://xn--d1acpjx3f.xn--p1ai/a%20b',
        text: 'https://xn--d1acpjx3f.xn--p1ai/a%20b',
        line: 1,
      },
    ]);
  });

  it('wiki links: target, alias, heading part, embeds and escapes', () => {
    const content = [
      '[[Page]] and [[ Other page | shown text ]] and [[Guide#Install]] and [[#Local]]',
      '![[embedded.png]] and \\[[escaped]] and [[]] and [[ |alias]] and [[a|]]',
      '\\![[not an embed]] and [[broken',
      'line]] and [[x [y] z]]',
    ].join('\n');
    expect(md(content).links).toEqual([
      { kind: 'wiki', target: 'Page', text: 'Page', line: 1 },
      { kind: 'wiki', target: 'Other page', text: 'shown text', line: 1 },
      { kind: 'wiki', target: 'Guide#Install', text: 'Guide#Install', line: 1 },
      { kind: 'wiki', target: '#Local', text: '#Local', line: 1 },
      { kind: 'wiki', target: 'a', text: 'a', line: 2 },
      { kind: 'wiki', target: 'not an embed', text: 'not an embed', line: 3 },
    ]);
  });

  it('wiki links and Markdown links read the same in MDX, in document order', () => {
    const content = 'A [[Page|p]] and [m](u).\n\n# [[In heading]]\n';
    expect(mdx(content).links).toEqual(md(content).links);
    const escapes = 'a \\\\[[real]] b \\[[not]] c \\\\\\[[not either]] d \\![[shown]]';
    expect(mdx(escapes)).toMatchObject({ syntax: 'mdx', links: md(escapes).links });
    expect(md(escapes).links.map((link) => link.target)).toEqual(['real', 'shown']);
    const references = 'See [ref][r], [inline](u) and [[w]].\n\n[r]: /r\n';
    expect(mdx(references)).toMatchObject({ syntax: 'mdx', links: md(references).links });
    expect(md(references).links.map((link) => link.target)).toEqual(['/r', 'u', 'w']);
    expect(md(content).links.map((link) => link.line)).toEqual([1, 1, 3]);
  });

  it('a defined label makes `[[x]]` a reference link, as CommonMark says', () => {
    expect(md('[[x]]\n\n[x]: /defined').links).toEqual([
      { kind: 'markdown', target: '/defined', text: 'x', line: 1 },
    ]);
  });

  it('links on later lines of a paragraph, in block quotes, lists and headings get their own line', () => {
    const content = '> a\n> [q](1)\n\n- x\n  y [l](2)\n\n# [h](3)\n\npara `code\nspan` [after](4)\n';
    expect(md(content).links.map(({ target, line }) => ({ target, line }))).toEqual([
      { target: '1', line: 2 },
      { target: '2', line: 5 },
      { target: '3', line: 7 },
      { target: '4', line: 10 },
    ]);
  });
});
