import { describe, expect, it } from 'vitest';
import {
  consoleFileHref,
  extractLinks,
  type RenderLinks,
  type RenderTarget,
  renderCost,
  renderHtml,
  resolveFileLink,
} from '../../src/index.js';
import { inlineContentWork, renderWithin } from '../../src/markdown/content-work.js';

const CONSOLE: RenderLinks = { kind: 'console', projectId: 'p1' };
const render = (text: string, o: { filename?: string; links?: RenderLinks; mdx?: boolean } = {}) =>
  renderHtml({
    text,
    mdx: o.mdx ?? false,
    filename: o.filename ?? 'docs/page.md',
    links: o.links ?? CONSOLE,
  });

describe('renderHtml: Markdown', () => {
  it('renders CommonMark with heading ids by the slug rule, repeated ones numbered', () => {
    expect(render('# Hello *World*\n\n## Hello World\n\ntext `code`\n')).toBe(
      '<h1 id="hello-world">Hello <em>World</em></h1>\n<h2 id="hello-world-1">Hello World</h2>\n' +
        '<p>text <code>code</code></p>\n',
    );
  });

  it('does not render front matter, nor a BOM', () => {
    expect(render('\uFEFF---\ntitle: Secret\n---\n# Body\n')).toBe('<h1 id="body">Body</h1>\n');
  });

  it('shows .mdx as its escaped source in a pre', () => {
    expect(render('---\na: 1\n---\n# T\n<Chart x={1} />\n<script>x</script>', { mdx: true })).toBe(
      '<pre class="mdx-source"><code># T\n&lt;Chart x={1} /&gt;\n&lt;script&gt;x&lt;/script&gt;</code></pre>\n',
    );
  });

  it('keeps the language class of a fenced code block', () => {
    expect(render('```ts\nlet a = 1;\n```\n')).toBe(
      '<pre><code class="language-ts">let a = 1;\n</code></pre>\n',
    );
  });
});

describe('links between files', () => {
  it('resolves relative .md/.mdx destinations against the linking file’s folder', () => {
    expect(resolveFileLink('other.md', 'docs/a.md')).toEqual({ filename: 'docs/other.md', anchor: null });
    expect(resolveFileLink('./sub/x.mdx#Part%20two', 'docs/a.md')).toEqual({
      filename: 'docs/sub/x.mdx',
      anchor: 'Part two',
    });
    // The link index's rule (extensions §9: a path to a `.md`/`.mdx` file): `.MDX` is not a file link
    // there, so not here either (issue 35: one resolver).
    expect(resolveFileLink('./sub/x.MDX', 'docs/a.md')).toBeNull();
    expect(resolveFileLink('../read%20me.md', 'docs/a.md')).toEqual({ filename: 'read me.md', anchor: null });
    for (const href of [
      '../../x.md',
      'https://x.org/a.md',
      '/abs.md',
      '//host/a.md',
      '#top',
      'a.png',
      'mailto:a@b.md',
    ]) {
      expect(resolveFileLink(href, 'docs/a.md')).toBeNull();
    }
  });

  it('makes them console links, other relative paths attachments’ links; other links stay as they are', () => {
    expect(consoleFileHref('p 1', 'a b/c.md', 'x')).toBe('/#/p/p%201/f/a%20b/c.md#x');
    expect(render('[a](other.md#sec) [b](https://example.org/x.md) [c](#local) [d](pic.png)')).toBe(
      '<p><a href="/#/p/p1/f/docs/other.md#sec">a</a> <a href="https://example.org/x.md">b</a> ' +
        '<a href="#local">c</a> <a href="/api/projects/p1/attachments/docs%2Fpic.png">d</a></p>\n',
    );
  });

  it('for a folder share: share links within its prefix, no target outside it', () => {
    const links: RenderLinks = { kind: 'share', base: '/s/TOKEN/', prefix: 'docs/' };
    expect(render('[in](sub/x.md#a) [out](../x.md)', { links })).toBe(
      '<p><a href="/s/TOKEN/docs/sub/x.md#a">in</a> <a>out</a></p>\n',
    );
  });

  it('for a one-file share: only anchors of the file itself', () => {
    const links: RenderLinks = { kind: 'share', base: '/s/TOKEN/', prefix: null };
    expect(render('[self](page.md#a) [other](x.md)', { links })).toBe(
      '<p><a href="#a">self</a> <a>other</a></p>\n',
    );
  });
});

describe('the sanitiser', () => {
  const cases: Array<[string, string, string]> = [
    ['a script element, with its content', 'a<script>window.__xss=1</script>b', '<p>ab</p>\n'],
    [
      'an event handler',
      '<img src="https://x.org/x.png" onerror="window.__xss=1">',
      '<img src="https://x.org/x.png" />',
    ],
    ['a javascript: link (Markdown)', '[x](javascript:alert(1))', '<p>[x](javascript:alert(1))</p>\n'],
    ['a javascript: link (HTML)', '<a href="javascript:alert(1)">x</a>', '<p><a>x</a></p>\n'],
    ['an entity-encoded javascript: link', '<a href="jav&#x09;ascript:alert(1)">x</a>', '<p><a>x</a></p>\n'],
    ['a data: link', '<a href="data:text/html,<script>alert(1)</script>">x</a>', '<p><a>x</a></p>\n'],
    ['an iframe', '<iframe src="https://evil.example"></iframe>', ''],
    ['object and embed', '<object data="x.swf"></object><embed src="x.swf">', '<p></p>'],
    ['a form', '<form action="https://evil.example"><input name="q"><button>go</button></form>', 'go'],
    ['a style attribute', '<div style="position:fixed;inset:0">x</div>', '<div>x</div>'],
    ['a style element', '<style>body{display:none}</style>', ''],
    ['base and meta', '<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=x">', ''],
    ['an SVG with script', '<svg><script>alert(1)</script></svg>', '<p></p>'],
    ['an SVG data: image', '<img src="data:image/svg+xml;base64,PHN2Zz4=">', '<img />'],
    ['landmarks of the page', '<main><nav>n</nav></main>', 'n'],
  ];
  for (const [what, source, html] of cases) {
    it(`removes ${what}`, () => expect(render(source).trim()).toBe(html.trim()));
  }

  it('keeps raster data: images and headings’ slug ids, drops other ids', () => {
    expect(render('<img src="data:image/png;base64,iVBORw0KGgo=" alt="a">')).toBe(
      '<img alt="a" src="data:image/png;base64,iVBORw0KGgo=" />',
    );
    expect(render('<h2 id="ok-id">a</h2><p id="x">b</p><h3 id="no way">c</h3>')).toBe(
      '<h2 id="ok-id">a</h2><p>b</p><h3>c</h3>',
    );
  });
});

describe('bounded rendering', () => {
  it('estimates before the work; inline past one step’s bound is the outline’s refusal (413)', async () => {
    const large = '[a](b.md) *c* '.repeat(100_000);
    expect(renderCost(large, false)).toBeGreaterThan(100_000_000);
    await expect(
      renderWithin(inlineContentWork, { text: large, mdx: false, filename: 'a.md', links: CONSOLE }),
    ).rejects.toMatchObject({ code: 'OUTLINE_TOO_LARGE' });
    const small = await renderWithin(inlineContentWork, {
      text: '# a',
      mdx: false,
      filename: 'a.md',
      links: CONSOLE,
    });
    expect(small).toBe('<h1 id="a">a</h1>\n');
  });
});

describe('wiki links and embeds (extensions §12)', () => {
  const targets: Array<[string, RenderTarget]> = [
    ['Target', { kind: 'file', filename: 'notes/Target.md', heading: null }],
    ['Target#Part Two', { kind: 'file', filename: 'notes/Target.md', heading: 'Part Two' }],
    ['#Intro', { kind: 'file', filename: 'docs/page.md', heading: 'Intro' }],
    ['image.png', { kind: 'attachment', path: 'img/image.png', image: true }],
    ['q3.pdf', { kind: 'attachment', path: 'q3.pdf', image: false }],
    ['Gone', { kind: 'broken', reason: 'missing' }],
  ];
  const wiki = (text: string, links: RenderLinks = CONSOLE) =>
    renderHtml({ text, mdx: false, filename: 'docs/page.md', links, targets });

  it('a wiki link, with an alias, with a heading (its id by the slug rule), and to its own file', () => {
    expect(wiki('[[Target]], [[Target|the target]], [[Target#Part Two]], [[#Intro|up]]')).toBe(
      '<p><a href="/#/p/p1/f/notes/Target.md">Target</a>, ' +
        '<a href="/#/p/p1/f/notes/Target.md">the target</a>, ' +
        '<a href="/#/p/p1/f/notes/Target.md#part-two">Target#Part Two</a>, ' +
        '<a href="/#/p/p1/f/docs/page.md#intro">up</a></p>\n',
    );
  });

  it('embeds an image attachment as an image (a size as Obsidian writes it)', () => {
    const rendered = wiki('![[image.png]] ![[image.png|A cat]] ![[image.png|300x200]]');
    const src = '/api/projects/p1/attachments/img%2Fimage.png';
    expect(rendered).toBe(
      `<p><img alt="image.png" src="${src}" /> <img alt="A cat" src="${src}" /> ` +
        `<img alt="img/image.png" width="300" height="200" src="${src}" /></p>\n`,
    );
  });

  it('embeds a note, or an attachment that is not an image, as a link; links to attachments', () => {
    const rendered = wiki('![[Target]] ![[q3.pdf|report]] [[q3.pdf]]');
    expect(rendered).toBe(
      '<p><a href="/#/p/p1/f/notes/Target.md">Target</a> ' +
        '<a href="/api/projects/p1/attachments/q3.pdf">report</a> ' +
        '<a href="/api/projects/p1/attachments/q3.pdf">q3.pdf</a></p>\n',
    );
  });

  it('shows an unresolved target as a broken link (no href), one not resolved as its text', () => {
    expect(wiki('[[Gone|g]] ![[Gone]] [[Unknown|u]]')).toBe(
      '<p><span class="broken-link">g</span> <span class="broken-link">Gone</span> u</p>\n',
    );
  });

  it('leaves a heading its id from the text as written, the slug the link index gives it', () => {
    expect(wiki('# See [[Target|the target]]\n')).toBe(
      '<h1 id="see-targetthe-target">See <a href="/#/p/p1/f/notes/Target.md">the target</a></h1>\n',
    );
    expect(extractLinks('# See [[Target|the target]]\n', { mdx: false }).slugs).toEqual([
      'see-targetthe-target',
    ]);
  });

  it('finds them where the link index does: not in code, not escaped, not inside a link', () => {
    expect(wiki('`[[Target]]` \\[[Target]] [a [[Target]]](https://x.org)\n\n    [[Target]]\n')).toBe(
      '<p><code>[[Target]]</code> [[Target]] <a href="https://x.org">a [[Target]]</a></p>\n' +
        '<pre><code>[[Target]]\n</code></pre>\n',
    );
  });

  it('on a share page: images under the share’s token, links within the share', () => {
    const share: RenderLinks = { kind: 'share', base: '/s/TOKEN/', prefix: 'notes/' };
    expect(wiki('![[image.png]] [[Target]] [[#Intro]] ![x](../pics/a%20b.png)', share)).toBe(
      '<p><img alt="image.png" src="/s/TOKEN/a/img/image.png?from=docs%2Fpage.md" /> ' +
        '<a href="/s/TOKEN/notes/Target.md">Target</a> #Intro ' +
        '<img alt="x" src="/s/TOKEN/a/pics/a%20b.png?from=docs%2Fpage.md" /></p>\n',
    );
  });

  it('keeps hostile names and texts inert', () => {
    const hostile: Array<[string, RenderTarget]> = [
      ['T1', { kind: 'file', filename: '"><img src=x onerror=alert(1)>.md', heading: '"><x' }],
      ['P1', { kind: 'attachment', path: '" onerror="alert(1).png', image: true }],
      ['P2', { kind: 'attachment', path: 'javascript:alert(1)', image: true }],
      ['B', { kind: 'broken', reason: 'missing' }],
    ];
    const html = renderHtml({
      text: '[[T1|a" onmouseover="x]] ![[P1|" onerror="alert(1)]] ![[P2]] [[B|1 < 2 & "q"]]',
      mdx: false,
      filename: 'a.md',
      links: CONSOLE,
      targets: hostile,
    });
    // Every name and text is an escaped attribute value or text: no element or attribute of its own.
    const tags = [...html.matchAll(/<\/?([a-z]+)((?:\s+[\w-]+="[^"]*")*)\s*\/?>/g)];
    expect(tags.map((tag) => tag[1])).toEqual(['p', 'a', 'a', 'img', 'img', 'span', 'span', 'p']);
    const attributes = tags.flatMap((tag) => [...tag[2]!.matchAll(/([\w-]+)="/g)].map((m) => m[1]));
    expect(new Set(attributes)).toEqual(new Set(['href', 'alt', 'src', 'class']));
    expect(html).not.toMatch(/="javascript:/i);
    expect(html).toBe(
      '<p><a href="/#/p/p1/f/%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.md#x">a" onmouseover="x</a> ' +
        '<img alt="&quot; onerror=&quot;alert(1)" src="/api/projects/p1/attachments/%22%20onerror%3D%22alert(1).png" /> ' +
        '<img alt="P2" src="/api/projects/p1/attachments/javascript%3Aalert(1)" /> ' +
        '<span class="broken-link">1 &lt; 2 &amp; "q"</span></p>\n',
    );
  });
});
