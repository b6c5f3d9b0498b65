import { echoedName, IMPORT_ANSWER_LIMITS, SkippedList } from '@mdstore/core';
import { describe, expect, it } from 'vitest';

/** What an import echoes of an archive's names (issue 34, finding 4): bounded entries and bytes. */
describe('skipped entries as an answer lists them', () => {
  const bytes = (text: string) => new TextEncoder().encode(text).length;

  it('cuts a name past the bound on a character boundary, ending with …, within the bound', () => {
    expect(echoedName('a'.repeat(10), 10)).toBe('a'.repeat(10));
    expect(echoedName('a'.repeat(11), 10)).toBe(`${'a'.repeat(7)}…`);
    // 2-, 3- and 4-byte characters are never split.
    for (const unit of ['é', '日', '😀']) {
      for (let max = 8; max < 20; max++) {
        const cut = echoedName(unit.repeat(50), max);
        expect(bytes(cut)).toBeLessThanOrEqual(max);
        expect(cut.endsWith('…')).toBe(true);
        expect(cut.slice(0, -1)).toBe(unit.repeat(cut.slice(0, -1).length / unit.length));
      }
    }
    const long = 'x'.repeat(4 * 1024 * 1024);
    expect(bytes(echoedName(long))).toBe(IMPORT_ANSWER_LIMITS.nameMaxBytes);
  });

  it('lists at most `max` entries and counts the others', () => {
    const list = new SkippedList(3);
    for (let i = 0; i < 5; i++) list.push({ name: `n${i}`, reason: 'r' });
    expect(list.entries.map((entry) => entry.name)).toEqual(['n0', 'n1', 'n2']);
    expect(list.omitted).toBe(2);
  });
});
