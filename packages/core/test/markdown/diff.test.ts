import { diffCost, MAX_DIFF_COMPARISONS, unifiedDiff } from '@mdstore/core';
import { applyPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const names = { oldName: 'a/notes.md', newName: 'b/notes.md' };
const numbered = (count: number, name = (index: number) => `line ${index}`) =>
  Array.from({ length: count }, (_, index) => `${name(index + 1)}\n`).join('');

describe('unifiedDiff: format', () => {
  it('one change: file headers, one hunk, 3 lines of context on each side', () => {
    const before = numbered(20);
    const after = before.replace('line 10\n', 'line ten\n');
    expect(unifiedDiff(before, after, names)).toBe(
      [
        '--- a/notes.md',
        '+++ b/notes.md',
        '@@ -7,7 +7,7 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+line ten',
        ' line 11',
        ' line 12',
        ' line 13',
        '',
      ].join('\n'),
    );
  });

  it('context after the last change is 3 lines even when more follow, however few', () => {
    const before = numbered(15);
    expect(unifiedDiff(before, before.replace('line 10\n', 'x\n'), names)!.match(/^@@.*@@$/gm)).toEqual([
      '@@ -7,7 +7,7 @@',
    ]);
  });

  it('identical texts: an empty diff', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', names)).toBe('');
    expect(unifiedDiff('', '', names)).toBe('');
  });

  it('changes separated by up to 6 unchanged lines share a hunk; 7 split it', () => {
    const before = numbered(30);
    const sixApart = before.replace('line 10\n', 'x\n').replace('line 17\n', 'y\n');
    expect(unifiedDiff(before, sixApart, names)!.match(/^@@.*@@$/gm)).toEqual(['@@ -7,14 +7,14 @@']);
    const sevenApart = before.replace('line 10\n', 'x\n').replace('line 18\n', 'y\n');
    expect(unifiedDiff(before, sevenApart, names)!.match(/^@@.*@@$/gm)).toEqual([
      '@@ -7,7 +7,7 @@',
      '@@ -15,7 +15,7 @@',
    ]);
  });

  it('changes at the very start and end have less context', () => {
    const before = numbered(10);
    expect(unifiedDiff(before, `x\n${before}`, names)).toBe(
      '--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,4 @@\n+x\n line 1\n line 2\n line 3\n',
    );
    expect(unifiedDiff(before, `${before}x\n`, names)).toBe(
      '--- a/notes.md\n+++ b/notes.md\n@@ -8,3 +8,4 @@\n line 8\n line 9\n line 10\n+x\n',
    );
  });

  it('from and to an empty text', () => {
    expect(unifiedDiff('', 'a\nb\n', names)).toBe(
      '--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+a\n+b\n',
    );
    expect(unifiedDiff('a\n', '', names)).toBe('--- a/notes.md\n+++ b/notes.md\n@@ -1,1 +0,0 @@\n-a\n');
  });

  it('a last line without LF is marked', () => {
    expect(unifiedDiff('a\nb', 'a\nc', names)).toBe(
      '--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n',
    );
    expect(unifiedDiff('a\nb', 'a\nb\n', names)).toBe(
      '--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n',
    );
    expect(unifiedDiff('x\na', 'y\na', names)).toBe(
      '--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n-x\n+y\n a\n\\ No newline at end of file\n',
    );
  });

  it('CRLF lines keep their CR; a change of line ending is a change', () => {
    expect(unifiedDiff('a\r\nb\r\n', 'a\r\nc\r\n', names)).toBe(
      '--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n',
    );
    expect(unifiedDiff('a\r\n', 'a\n', names)).toBe(
      '--- a/notes.md\n+++ b/notes.md\n@@ -1,1 +1,1 @@\n-a\r\n+a\n',
    );
  });

  it('applying the diff to the old text gives the new text', () => {
    const line = fc.constantFrom('a', 'b', 'c', '# h', '', ' ');
    const text = fc
      .tuple(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.boolean())
      .map(([lines, finalNewline, crlf]) => {
        const eol = crlf ? '\r\n' : '\n';
        const joined = lines.join(eol);
        return finalNewline && lines.length > 0 ? joined + eol : joined;
      });
    fc.assert(
      fc.property(text, text, (before, after) => {
        const diff = unifiedDiff(before, after, names);
        expect(diff).not.toBeNull();
        if (before === after) expect(diff).toBe('');
        else expect(applyPatch(before, diff!)).toBe(after);
      }),
      { numRuns: 500 },
    );
  });
});

describe('unifiedDiff: the bound on comparisons', () => {
  it('is 10⁷', () => {
    expect(MAX_DIFF_COMPARISONS).toBe(10_000_000);
  });

  it('costs (m + n)² for the m and n lines left once common first and last lines are set aside', () => {
    const common = numbered(50, (index) => `common ${index}`);
    expect(diffCost(common + numbered(3, (i) => `old ${i}`) + common, common + numbered(4) + common)).toBe(
      49,
    );
    expect(diffCost(`x\n${common}`, `y\n${common}`)).toBe(4);
    expect(diffCost(common, common)).toBe(0);
  });

  it('a pure insertion or deletion costs nothing, wherever it is', () => {
    const head = numbered(1000, (index) => `head ${index}`);
    const tail = numbered(1000, (index) => `tail ${index}`);
    const block = numbered(200_000, (index) => `new ${index}`);
    expect(diffCost(head + tail, head + block + tail)).toBe(0);
    expect(diffCost(head + block + tail, head + tail)).toBe(0);
    // Its cost is the comparisons above (0), not a clock: tests assert work, benches time it.
    const diff = unifiedDiff(head + tail, head + block + tail, names)!;
    expect(diff.startsWith('--- a/notes.md\n+++ b/notes.md\n@@ -998,6 +998,200006 @@\n head 998\n')).toBe(
      true,
    );
    expect(diff.endsWith('+new 200000\n tail 1\n tail 2\n tail 3\n')).toBe(true);
  });

  it('up to the bound the diff is computed, past it the answer is null, before any diffing', () => {
    const atBound = 1581; // (1581 + 1581)² = 9 998 244
    const before = numbered(atBound, (index) => `old ${index}`);
    expect(diffCost(before, numbered(atBound))).toBeLessThanOrEqual(MAX_DIFF_COMPARISONS);
    expect(unifiedDiff(before, numbered(atBound), names)).toMatch(
      /^--- a\/notes\.md\n\+\+\+ b\/notes\.md\n@@ -1,1581 \+1,1581 @@\n/,
    );
    expect(diffCost(before, numbered(atBound + 1))).toBeGreaterThan(MAX_DIFF_COMPARISONS);
    expect(unifiedDiff(before, numbered(atBound + 1), names)).toBeNull();
  });

  it('a skewed pair is bounded as well: a few lines against many', () => {
    const many = numbered(3161);
    expect(diffCost('x\n', many)).toBe(3162 ** 2);
    expect(unifiedDiff('x\n', many, names)).not.toBeNull();
    expect(unifiedDiff('x\n', `${many}more\n`, names)).toBeNull();
  });

  it('a large hostile pair is refused by its priced cost, before any comparison', () => {
    const before = numbered(500_000, (index) => `a${index}`);
    const after = numbered(500_000, (index) => `b${index}`);
    expect(diffCost(before, after)).toBeGreaterThan(MAX_DIFF_COMPARISONS);
    expect(unifiedDiff(before, after, names)).toBeNull();
  });

  it('a large file with a small change is diffed', () => {
    const before = numbered(300_000);
    const after = before.replace('line 150000\n', 'changed\n');
    expect(unifiedDiff(before, after, names)).toContain('@@ -149997,7 +149997,7 @@\n');
  });
});
