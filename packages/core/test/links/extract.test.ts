import { tests } from 'commonmark-spec';
import markdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { extractLinks, rawLinksOf } from '../../src/links/extract.js';

const reference = markdownIt('commonmark');
const SECTIONS = new Set(['Links', 'Images', 'Link reference definitions']);
const examples = tests.filter((example) => SECTIONS.has(example.section));

/** Every `href`/`src` of the rendered HTML, in order, as the renderer wrote them. */
function renderedDestinations(html: string): string[] {
  return [...html.matchAll(/<(?:a|img) [^>]*?(?:href|src)="([^"]*)"/g)].map((match) => match[1]!);
}

/** What the renderer would write for a destination the extractor read. */
const rendered = (href: string) => reference.utils.escapeHtml(reference.normalizeLink(href));

describe('link extraction against the CommonMark spec (Links, Images, Link reference definitions)', () => {
  it('covers the sections', () => {
    expect(examples.length).toBeGreaterThan(130);
  });

  for (const example of examples) {
    it(`example ${example.number} (${example.section})`, () => {
      const html = reference.render(example.markdown);
      const expected = renderedDestinations(html);
      const found = rawLinksOf(example.markdown, false).links.filter((link) => link.kind === 'markdown');
      expect(found.map((link) => rendered(link.href))).toEqual(expected);
      // Every inline or reference link's destination is located where it is written.
      for (const link of found) {
        if (link.dest === null) continue;
        const written = example.markdown.slice(link.dest[0], link.dest[1]);
        expect(reference.utils.unescapeAll(written.replace(/^<(.*)>$/s, '$1'))).toBe(link.href);
      }
    });
  }

  it('locates the destination of every inline and reference link of the sections', () => {
    const missing = examples.flatMap((example) =>
      rawLinksOf(example.markdown, false)
        .links.filter(
          (link) =>
            link.kind === 'markdown' &&
            link.href !== '' &&
            link.dest === null &&
            !/^<[a-z]+:/i.test(example.markdown.slice(link.offset)),
        )
        .map(() => example.number),
    );
    expect(missing).toEqual([]);
  });
});

describe('extractLinks', () => {
  const md = (content: string) => extractLinks(content, { mdx: false });
  const mdx = (content: string) => extractLinks(content, { mdx: true });

  it('keeps relative destinations only (files and attachments), with lines and written ranges', () => {
    const content =
      '# T\n\n[a](b.md) [u](https://x.io/a.md) [abs](/a.md) [img](![p](pic.png)) [#](#top)\n![i](./img.mdx#top)\n[r][ref]\n\n[ref]: <../x y.md#h>\n';
    const found = md(content);
    expect(found.links.map(({ kind, line, raw }) => ({ kind, line, raw }))).toEqual([
      { kind: 'markdown', line: 3, raw: 'b.md' },
      // An attachment's path (extensions §12), as odd as it is.
      { kind: 'markdown', line: 3, raw: '![p](pic.png)' },
      { kind: 'markdown', line: 4, raw: './img.mdx#top' },
      { kind: 'markdown', line: 5, raw: '../x y.md#h' },
    ]);
    for (const link of found.links)
      expect(content.slice(link.start!, link.end!).replace(/[<>]/g, '')).toBe(link.raw);
  });

  it('finds links to attachments: images, links and embeds (extensions §12)', () => {
    const content =
      '![cat](pics/cat.png) [report](../q3.pdf#page=2) ![[a b.png|300]] \\![[note]] [d](docs/) [u](..) [h](./#x)\n';
    const found = md(content);
    expect(found.links.map(({ kind, raw }) => [kind, raw])).toEqual([
      ['markdown', 'pics/cat.png'],
      ['markdown', '../q3.pdf#page=2'],
      ['wiki', 'a b.png'],
      ['wiki', 'note'],
    ]);
    for (const link of found.links) expect(content.slice(link.start!, link.end!)).toBe(link.raw);
  });

  it('finds wiki links in every form, never in code, HTML blocks or front matter', () => {
    const content = [
      '---',
      'x: "[[front]]"',
      '---',
      '[[a]] and [[b|Bee]] and [[c#Some heading]] and [[#Local]]',
      '`[[code]]`',
      '',
      '    [[indented]]',
      '',
      '```',
      '[[fenced]] [f](f.md)',
      '```',
      '',
      '<div>',
      '[[html]] [h](h.md)',
      '</div>',
      '',
      '> quote [[q]]',
    ].join('\n');
    const found = md(content);
    expect(found.links.map((link) => [link.kind, link.raw, link.line])).toEqual([
      ['wiki', 'a', 4],
      ['wiki', 'b', 4],
      ['wiki', 'c#Some heading', 4],
      ['wiki', '#Local', 4],
      ['wiki', 'q', 17],
    ]);
    for (const link of found.links) expect(content.slice(link.start!, link.end!)).toBe(link.raw);
    // MDX has no indented code and no HTML (`<div>` is JSX, whose content is Markdown).
    expect(mdx(content).links.map((link) => link.raw)).toEqual([
      'a',
      'b',
      'c#Some heading',
      '#Local',
      'indented',
      'html',
      'h.md',
      'q',
    ]);
  });

  it('reports ranges in the content as given: BOM, CRLF and multi-line paragraphs', () => {
    const content = '\uFEFFintro line\r\n  and [x](dir/x.md "t")\r\n> [[w|alias]] [y][]\r\n\r\n[y]: y.md\r\n';
    const found = md(content);
    expect(found.links.map((link) => [link.raw, link.line, content.slice(link.start!, link.end!)])).toEqual([
      ['dir/x.md', 2, 'dir/x.md'],
      ['w', 3, 'w'],
      ['y.md', 3, 'y.md'],
    ]);
  });

  it('MDX: links in JSX content and reference links, none in expressions or ESM', () => {
    const content =
      'import X from "./x.js"\n\n<Box>\n  [in](in.md)\n</Box>\n\n{"[e](e.md)"}\n\n[r][d] ![i](i.md)\n\n[d]: d.mdx\n';
    const found = mdx(content);
    expect(found.links.map((link) => [link.raw, content.slice(link.start!, link.end!)])).toEqual([
      ['in.md', 'in.md'],
      ['d.mdx', 'd.mdx'],
      ['i.md', 'i.md'],
    ]);
  });

  it('headings give GitHub slugs and texts', () => {
    const found = md('# Hello, World!\n## Hello, World!\n### Ünïcode `code` *em*\n');
    expect(found.slugs).toEqual(['hello-world', 'hello-world-1', 'ünïcode-code-em']);
    expect(found.headings).toEqual(['Hello, World!', 'Hello, World!', 'Ünïcode code em']);
  });
});
