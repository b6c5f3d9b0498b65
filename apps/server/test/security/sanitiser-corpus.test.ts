import { renderHtml } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { dangerousUrl, FORBIDDEN_ELEMENTS, URL_ATTRIBUTES, xssVectors } from './xss-corpus.js';

/**
 * The XSS corpus through the renderer, without a browser (the browser test, xss-browser.test.ts, runs
 * the same corpus in Chromium): the sanitiser's output is well-formed (every attribute double-quoted,
 * `"` and `<` escaped in values), so its tags and attributes can be read with a regular expression.
 */

const TAG = /<([a-zA-Z][a-zA-Z0-9:-]*)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)\s*\/?>/g;
const ATTRIBUTE = /\s+([^\s=>/]+)(?:="([^"]*)")?/g;

const decode = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replace(/&amp;/g, '&');

function problems(html: string): string[] {
  const found: string[] = [];
  for (const [, rawName, attributes] of html.matchAll(TAG)) {
    const element = rawName!.toLowerCase();
    if (FORBIDDEN_ELEMENTS.includes(element)) found.push(`<${element}>`);
    for (const [, rawAttribute, value = ''] of attributes!.matchAll(ATTRIBUTE)) {
      const name = rawAttribute!.toLowerCase();
      if (name.startsWith('on')) found.push(`${element}[${name}]`);
      if (name === 'style') found.push(`${element}[style]`);
      if (URL_ATTRIBUTES.includes(name) && dangerousUrl(element, name, decode(value))) {
        found.push(`${element}[${name}=${value}]`);
      }
    }
  }
  return found;
}

const vectors = xssVectors();
const links = { kind: 'console', projectId: 'p' } as const;

describe('the sanitiser on the XSS corpus (no browser)', () => {
  it('holds over a hundred vectors', () => expect(vectors.length).toBeGreaterThan(100));

  it('the check itself finds what it looks for', () => {
    expect(problems('<p onclick="x"><a href="jav&#x09;ascript:x">a</a><script></script></p>')).toEqual([
      'p[onclick]',
      'a[href=jav&#x09;ascript:x]',
      '<script>',
    ]);
  });

  vectors.forEach((vector, index) => {
    it(`vector ${index + 1}: ${JSON.stringify(vector.slice(0, 60))}`, () => {
      const html = renderHtml({ text: vector, mdx: false, filename: 'v.md', links });
      expect(problems(html)).toEqual([]);
      expect(html).not.toMatch(/<script/i);
    });
  });
});
