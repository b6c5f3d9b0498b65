import { normalizeText } from '@mdstore/core';
import { caseFold } from 'unicode-case-folding';
import { describe, expect, it } from 'vitest';
import { normalizeCodePoint } from '../../src/search/normalize.js';

const isSurrogate = (codePoint: number) => codePoint >= 0xd800 && codePoint <= 0xdfff;

describe('search normalisation', () => {
  it('maps every assigned code point to word characters and separators, stably', () => {
    const unassignedOrPrivate = /^[\p{Cn}\p{Co}]$/u;
    const notWordsAndSpaces: string[] = [];
    const unstable: string[] = [];
    let checked = 0;
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint += 1) {
      if (isSurrogate(codePoint) || unassignedOrPrivate.test(String.fromCodePoint(codePoint))) continue;
      checked += 1;
      const form = normalizeCodePoint(codePoint);
      if (!/^[\p{L}\p{N} ]*$/u.test(form)) notWordsAndSpaces.push(codePoint.toString(16));
      // Normalising a normalised form changes nothing.
      if (normalizeText(form) !== form) unstable.push(codePoint.toString(16));
    }
    expect(checked).toBeGreaterThan(150_000);
    expect(notWordsAndSpaces).toEqual([]);
    expect(unstable).toEqual([]);
    expect(normalizeCodePoint(0x20)).toBe(' ');
    expect(normalizeCodePoint(0x301)).toBe('');
    expect(normalizeCodePoint(0xd800)).toBe(' ');
    expect(normalizeCodePoint(0xe000)).toBe(' ');
  });

  /**
   * An independent check of "full case folding": for single code points it equals upper- then
   * lower-casing, except where Unicode defines folding differently: Cherokee folds to upper case, the
   * dotless ı has no folding, and capital ẞ folds to `ss` (its lower case is ß).
   */
  it('folds case fully: the folding table agrees with upper-then-lower casing but for three known rules', () => {
    const differences: number[] = [];
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint += 1) {
      if (isSurrogate(codePoint)) continue;
      const character = String.fromCodePoint(codePoint);
      if (caseFold(character) !== character.toUpperCase().toLowerCase()) differences.push(codePoint);
    }
    const cherokee = (codePoint: number) =>
      (codePoint >= 0x13a0 && codePoint <= 0x13fd) || (codePoint >= 0xab70 && codePoint <= 0xabbf);
    expect(differences.filter((codePoint) => !cherokee(codePoint))).toEqual([0x131, 0x1e9e]);
    expect(differences.filter(cherokee).length).toBeGreaterThan(150);
    expect(caseFold('\u1e9e')).toBe('ss');
  });

  it('does what toLowerCase does not', () => {
    expect('ß'.toLowerCase()).toBe('ß');
    expect(normalizeText('ß')).toBe('ss');
    expect('ΌΣΟΣ'.toLowerCase()).toBe('όσος');
    expect(normalizeText('ΌΣΟΣ όσος')).toBe('οσοσ οσοσ');
  });
});
