import { describe, expect, it } from 'vitest';
import { githubSlug, HeadingIds } from '../../src/index.js';

/** GitHub's anchors of these headings, as github.com renders them (and github-slugger's own fixtures). */
const GITHUB_CASES: Array<[string, string]> = [
  ['Hello World', 'hello-world'],
  ['foo.bar', 'foobar'],
  ['Snake_case stays', 'snake_case-stays'],
  ['Dash-separated-words', 'dash-separated-words'],
  ['What’s new?', 'whats-new'],
  ['1.2.3 release', '123-release'],
  ['C++ & C#', 'c--c'],
  ['I ♥ unicode', 'i--unicode'],
  ['Emoji 😄 test', 'emoji--test'],
  ['Привет non-latin 你好', 'привет-non-latin-你好'],
  ['Ünïcödé Lëttërs', 'ünïcödé-lëttërs'],
  ['API: `GET /files`', 'api-get-files'],
  ['(parenthesised) [bracketed] {braced}', 'parenthesised-bracketed-braced'],
  ['UPPER lower MiXeD', 'upper-lower-mixed'],
];

describe('githubSlug: GitHub’s heading anchor rule', () => {
  for (const [text, slug] of GITHUB_CASES) {
    it(`${JSON.stringify(text)} → ${slug}`, () => expect(githubSlug(text)).toBe(slug));
  }
});

describe('HeadingIds: one document’s ids', () => {
  it('numbers repeated slugs as GitHub does, without clashing with a literal one', () => {
    const ids = new HeadingIds();
    expect(['A', 'A', 'a-1', 'A'].map((text) => ids.next(text))).toEqual(['a', 'a-1', 'a-1-1', 'a-2']);
  });

  it('starts afresh for each document', () => {
    expect(new HeadingIds().next('A')).toBe('a');
    expect(new HeadingIds().next('A')).toBe('a');
  });
});
