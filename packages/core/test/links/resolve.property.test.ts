import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { consoleFileHref, type RenderLinks, renderHtml, resolveFileLink } from '../../src/index.js';
import { markdownDestination, relativePath } from '../../src/links/paths.js';

/**
 * Issue 35, "each rule once": a relative link resolves by one rule. The link index (`markdownDestination`),
 * the renderer (`resolveFileLink`, and the console route it writes into the HTML, which the console
 * follows as it is) and the rewrite of links after a move (`relativePath`) agree, for generated names.
 */
const segment = fc.stringMatching(/^[a-zA-Z0-9 é_()-]{1,6}$/).filter((s) => s.trim() === s && s !== '');
const filename = fc
  .tuple(fc.array(segment, { maxLength: 3 }), segment, fc.constantFrom('.md', '.mdx'))
  .map(([folders, name, extension]) => [...folders, `${name}${extension}`].join('/'));
const encode = (path: string) =>
  path
    .split('/')
    .map((part) =>
      part === '..' ? part : encodeURIComponent(part).replaceAll('(', '%28').replaceAll(')', '%29'),
    )
    .join('/');
const CONSOLE: RenderLinks = { kind: 'console', projectId: 'p1' };
const hrefsIn = (html: string) =>
  [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));

describe('one relative link rule (index, renderer, console, rewrite)', () => {
  it('the path the rewrite writes from a note to a file leads back to that file, everywhere', () => {
    fc.assert(
      fc.property(filename, filename, (source, target) => {
        const href = encode(relativePath(source, target));
        expect(markdownDestination(href, source)?.path).toBe(target);
        expect(resolveFileLink(href, source)).toEqual({ filename: target, anchor: null });
        const html = renderHtml({ text: `[x](${href})`, mdx: false, filename: source, links: CONSOLE });
        expect(hrefsIn(html)).toEqual([consoleFileHref('p1', target)]);
      }),
      { numRuns: 300 },
    );
  });

  it('any destination: the renderer links a file exactly when the index does, to the same file', () => {
    const part = fc.oneof(
      segment,
      fc.constantFrom('.', '..', '', '%20', '%E0%A4%A', 'a.MD', 'b.md', 'c.mdx'),
    );
    const destination = fc
      .tuple(
        fc.constantFrom('', '/', '//', './', '../', 'https://x.org/', 'mailto:', '#'),
        fc.array(part, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('', '.md', '.mdx', '.png', '#part', '?q=1'),
      )
      .map(([start, parts, end]) => `${start}${parts.join('/')}${end}`);
    fc.assert(
      fc.property(filename, destination, (source, href) => {
        const indexed = markdownDestination(href, source);
        const expected = indexed?.path ? { filename: indexed.path, anchor: indexed.anchor || null } : null;
        expect(resolveFileLink(href, source)).toEqual(expected);
        if (/[\s<>()[\]]/.test(href)) return;
        const html = renderHtml({ text: `[x](${href})`, mdx: false, filename: source, links: CONSOLE });
        const consoleRoutes = hrefsIn(html).filter((h) => h.startsWith('/#/p/'));
        expect(consoleRoutes).toEqual(
          expected ? [consoleFileHref('p1', expected.filename, expected.anchor)] : [],
        );
      }),
      { numRuns: 500 },
    );
  });
});
