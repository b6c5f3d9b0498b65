import { isMdStoreError, MERGE_LIMITS, mergeDocument, type TextMerge } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * The laws of the merge engine (extensions §13, issue 38) on texts by lines. Generated documents are
 * built from blocks: unchanged runs of base lines and edits owned by one side, so the expected merge is
 * known. Base lines are distinct and edits bring fresh lines: with repeated lines, diff3 may align a
 * change to another copy of its line (GNU diff3 does too), which is what makes "overlap" ambiguous.
 */
const settings = { seed: 38_2026, numRuns: 300 };

type Side = 'A' | 'B';
interface Edit {
  readonly side: Side;
  /** base lines replaced (0: a pure insertion) */
  readonly removed: number;
  /** fresh lines put in their place */
  readonly added: number;
}
type Block = { keep: number } | Edit;

const edit = (side?: Side) =>
  fc
    .record({
      side: side ? fc.constant(side) : fc.constantFrom<Side>('A', 'B'),
      removed: fc.integer({ min: 0, max: 3 }),
      added: fc.integer({ min: 0, max: 3 }),
    })
    .filter((e) => e.removed + e.added > 0);

/** keep (edit keep)*: every two edits are separated by at least one unchanged base line. */
const layout = fc
  .tuple(
    fc.integer({ min: 1, max: 3 }),
    fc.array(fc.tuple(edit(), fc.integer({ min: 1, max: 3 })), { maxLength: 6 }),
    fc.boolean(),
    fc.constantFrom('\n', '\r\n'),
  )
  .map(([first, rest, finalNewline, eol]) => ({
    blocks: [{ keep: first }, ...rest.flatMap(([e, keep]) => [e, { keep }])] as Block[],
    finalNewline,
    eol,
  }));

interface Texts {
  base: string;
  current: string;
  proposed: string;
  both: string;
}

/** The three texts of a layout, and the text holding both sides' edits. */
function render(blocks: readonly Block[], finalNewline: boolean, eol: string): Texts {
  const lines = {
    base: [] as string[],
    current: [] as string[],
    proposed: [] as string[],
    both: [] as string[],
  };
  let n = 0;
  blocks.forEach((block, k) => {
    if ('keep' in block) {
      for (let i = 0; i < block.keep; i++) {
        const line = `base line ${n++}`;
        for (const text of Object.values(lines)) text.push(line);
      }
      return;
    }
    const removed = Array.from({ length: block.removed }, () => `base line ${n++}`);
    const added = Array.from({ length: block.added }, (_, i) => `${block.side} edit ${k}.${i}`);
    lines.base.push(...removed);
    lines.both.push(...added);
    (block.side === 'A' ? lines.current : lines.proposed).push(...added);
    (block.side === 'A' ? lines.proposed : lines.current).push(...removed);
  });
  const join = (text: string[]) => text.join(eol) + (finalNewline ? eol : '');
  return {
    base: join(lines.base),
    current: join(lines.current),
    proposed: join(lines.proposed),
    both: join(lines.both),
  };
}

const textOf = (result: TextMerge) => (result.kind === 'clean' ? result.text : undefined);

describe('mergeDocument on texts (diff3 by lines)', () => {
  it('merges edits that do not overlap into the text holding both, line endings kept exactly', () => {
    fc.assert(
      fc.property(layout, ({ blocks, finalNewline, eol }) => {
        const t = render(blocks, finalNewline, eol);
        const result = mergeDocument(t.base, t.current, t.proposed);
        expect(result.kind).toBe('clean');
        expect(textOf(result)).toBe(t.both);
        if (result.kind === 'clean' && t.current !== t.base && t.proposed !== t.base)
          expect(result.merged).toBe(true);
      }),
      settings,
    );
  });

  it('never merges overlapping edits silently: always a conflict with the hunks of both sides', () => {
    const overlapping = fc
      .record({
        baseLines: fc.integer({ min: 1, max: 12 }),
        a: fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 3 })),
        b: fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })),
        bOffset: fc.integer({ min: -3, max: 3 }),
      })
      .map(({ baseLines, a, b, bOffset }) => {
        const aStart = a[0] % (baseLines + 1);
        const aEnd = Math.min(baseLines, aStart + a[1]);
        // b's range meets a's (closed intervals intersect): it starts within [aStart - len, aEnd]
        const bStart = Math.max(0, Math.min(baseLines, Math.min(aEnd, aStart + bOffset)));
        const bEnd = Math.min(baseLines, bStart + b[1]);
        const meets = bStart <= aEnd && aStart <= bEnd;
        return { baseLines, aStart, aEnd, aAdded: a[2], bStart, bEnd, bAdded: b[2], meets };
      })
      .filter((x) => x.meets && (x.bEnd > x.bStart || x.bAdded > 0));
    fc.assert(
      fc.property(overlapping, (x) => {
        const base = Array.from({ length: x.baseLines }, (_, i) => `line ${i}\n`);
        const side = (start: number, end: number, added: number, name: string) => [
          ...base.slice(0, start),
          ...Array.from({ length: added }, (_, i) => `${name} ${i}\n`),
          ...base.slice(end),
        ];
        const result = mergeDocument(
          base.join(''),
          side(x.aStart, x.aEnd, x.aAdded, 'A').join(''),
          side(x.bStart, x.bEnd, x.bAdded, 'B').join(''),
        );
        expect(result.kind).toBe('conflict');
        if (result.kind !== 'conflict') return;
        const shown = result.hunks.map((h) => `${h.current}|${h.draft}`).join('\n');
        expect(shown).toContain('A 0');
        if (x.bAdded > 0) expect(shown).toContain('B 0');
        for (const hunk of result.hunks) expect(hunk.line).toBeGreaterThanOrEqual(1);
      }),
      settings,
    );
  });

  it('gives the other side byte for byte when one side is unchanged, and x when both sides are x', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (base, x) => {
        expect(mergeDocument(base, base, x)).toEqual({ kind: 'clean', text: x, merged: false });
        expect(mergeDocument(base, x, base)).toEqual({ kind: 'clean', text: x, merged: false });
        expect(mergeDocument(base, x, x)).toEqual({ kind: 'clean', text: x, merged: false });
      }),
      settings,
    );
  });

  it('is symmetric: swapping the sides swaps current and draft in the hunks, and a clean text is the same', () => {
    const text = fc
      .array(fc.constantFrom('a\n', 'b\n', 'c\n', 'd\n', '\n', 'e'), { maxLength: 10 })
      .map((lines) => lines.join(''));
    fc.assert(
      fc.property(text, text, text, (base, x, y) => {
        const xy = mergeDocument(base, x, y);
        const yx = mergeDocument(base, y, x);
        expect(yx.kind).toBe(xy.kind);
        if (xy.kind === 'conflict' && yx.kind === 'conflict')
          expect(yx.hunks).toEqual(xy.hunks.map((h) => ({ ...h, current: h.draft, draft: h.current })));
        if (xy.kind === 'clean' && yx.kind === 'clean') expect(yx.text).toBe(xy.text);
      }),
      { ...settings, numRuns: 1000 },
    );
  });

  it('merges a 1 MiB text with 100 changes on each side (its speed is `npm run bench -- --only merge`)', () => {
    const base = Array.from(
      { length: 20_000 },
      (_, i) => `line ${i} of a long paragraph of prose ${i % 7}\n`,
    );
    const current = base.slice();
    const proposed = base.slice();
    for (let k = 0; k < 100; k++) {
      current[k * 200] = `current ${k}\n`;
      proposed[k * 200 + 100] = `proposed ${k}\n`;
    }
    const result = mergeDocument(base.join(''), current.join(''), proposed.join(''));
    expect(result.kind).toBe('clean');
    const text = textOf(result) ?? '';
    expect(text).toContain('current 99\n');
    expect(text).toContain('proposed 99\n');
  });

  it('refuses, before any LCS, a merge past its bound of line comparisons (MERGE_TOO_LARGE)', () => {
    const same = 'x\n'.repeat(4000);
    const refuse = () => mergeDocument(same, `y\n${same}`, `${same}z\n`);
    expect(refuse).toThrow();
    try {
      refuse();
    } catch (error) {
      expect(isMdStoreError(error, 'MERGE_TOO_LARGE')).toBe(true);
      expect((error as { max?: number }).max).toBe(MERGE_LIMITS.maxLineComparisons);
    }
    const lines = 'l\n'.repeat(MERGE_LIMITS.maxLines + 1);
    expect(() => mergeDocument('', lines, 'other\n')).toThrow(/more than 200000 lines/);
  });
});
