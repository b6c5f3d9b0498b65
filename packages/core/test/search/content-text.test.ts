import { ContentTextCollector, SEARCH_LIMITS, truncateUtf8 } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchFields } from '../../src/use-cases/files/content.js';

const encoder = new TextEncoder();

function collect(chunks: readonly Uint8Array[], maxBytes?: number) {
  const collector = new ContentTextCollector(maxBytes);
  for (const chunk of chunks) collector.push(chunk);
  return { text: collector.text(), truncated: collector.truncated };
}

/** Splits bytes at the given cut points. */
const split = (bytes: Uint8Array, cuts: readonly number[]) => {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((start, index) => bytes.subarray(start, points[index] ?? bytes.length));
};

describe('ContentTextCollector', () => {
  it('decodes characters split across chunks anywhere', () => {
    const text = 'Grüße 𝄞 東京 — ok';
    const bytes = encoder.encode(text);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      expect(collect([bytes.subarray(0, cut), bytes.subarray(cut)]).text).toBe(text);
    }
    expect(collect(Array.from(bytes, (byte) => new Uint8Array([byte]))).text).toBe(text);
  });

  it('gives back the text for any chunking', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 50 }), fc.array(fc.nat()), (text, cuts) => {
        expect(collect(split(encoder.encode(text), cuts))).toEqual({ text, truncated: false });
      }),
    );
  });

  it('keeps exactly the first maxBytes and drops a character cut by the limit', () => {
    expect(collect([encoder.encode('abcdef')], 6)).toEqual({ text: 'abcdef', truncated: false });
    expect(collect([encoder.encode('abcdefg')], 6)).toEqual({ text: 'abcdef', truncated: true });
    expect(collect([encoder.encode('abcd𝄞')], 7)).toEqual({ text: 'abcd', truncated: true });
    expect(collect([encoder.encode('abcd𝄞')], 8)).toEqual({ text: 'abcd𝄞', truncated: false });
    expect(collect([encoder.encode('abc'), encoder.encode('def'), encoder.encode('g')], 6)).toEqual({
      text: 'abcdef',
      truncated: true,
    });
    expect(collect([encoder.encode('abcdef'), new Uint8Array(0)], 6)).toEqual({
      text: 'abcdef',
      truncated: false,
    });
  });

  it('decodes the whole text up to the limit for any chunking', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 30 }),
        fc.array(fc.nat()),
        fc.nat(40),
        (text, cuts, max) => {
          const bytes = encoder.encode(text);
          const { text: kept, truncated } = collect(split(bytes, cuts), max);
          expect(kept).toBe(truncateUtf8(text, max));
          expect(truncated).toBe(bytes.length > max);
        },
      ),
    );
  });

  it('keeps a BOM and flushes an incomplete sequence at the end as U+FFFD when nothing was cut', () => {
    expect(collect([new Uint8Array([0xef, 0xbb, 0xbf, 0x61])]).text).toBe('\ufeffa');
    expect(collect([new Uint8Array([0x61, 0xe2, 0x82])]).text).toBe('a\ufffd');
  });

  it('defaults to 1 MiB and stays bounded on a larger stream', () => {
    expect(SEARCH_LIMITS.contentMaxBytes).toBe(1024 * 1024);
    const collector = new ContentTextCollector();
    const chunk = encoder.encode('é'.repeat(32 * 1024));
    for (let index = 0; index < 48; index += 1) collector.push(chunk);
    expect(collector.text()).toBe('é'.repeat(512 * 1024));
    expect(collector.truncated).toBe(true);
  });

  it('ends with text(): the same text again, no more chunks', () => {
    const collector = new ContentTextCollector();
    collector.push(encoder.encode('ab'));
    expect(collector.text()).toBe('ab');
    expect(collector.text()).toBe('ab');
    expect(() => collector.push(encoder.encode('c'))).toThrow();
  });
});

describe('ContentTextCollector and the word limit', () => {
  const searchOf = (text: string) => searchFields(truncateUtf8(text, SEARCH_LIMITS.contentMaxBytes));
  const fromChunks = (text: string, chunkBytes: number) => {
    const bytes = encoder.encode(text);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += chunkBytes) chunks.push(bytes.subarray(at, at + chunkBytes));
    return collect(chunks);
  };

  it('stops keeping text once it holds more than 16 000 words, and search makes the same of it', () => {
    const frontMatter = `---\ntitle: Notes\ntags: [a, b]\n---\n`;
    const prose =
      '## Section\n\nThe quick brown fox jumps over the lazy dog. Markdown *emphasis*, `code`.\n\n';
    const text = frontMatter + prose.repeat(Math.ceil((1024 * 1024) / prose.length));
    const { text: kept, truncated } = fromChunks(text, 64 * 1024);
    expect(truncated).toBe(true);
    // 16 000 words of this prose take about 80 KiB: the first check, at 128 KiB, stops the collection.
    expect(kept.length).toBe(128 * 1024);
    expect(searchFields(kept)).toEqual(searchOf(text));
    expect(searchFields(kept).frontmatterJson).toBe('{"title":"Notes","tags":["a","b"]}');
  });

  it('keeps everything up to 1 MiB when the text has fewer words than the limit', () => {
    const words = 'word '.repeat(SEARCH_LIMITS.contentMaxWords - 1);
    const text = words + 'x'.repeat(300 * 1024);
    const { text: kept } = fromChunks(text, 16 * 1024);
    expect(kept).toBe(text);
  });

  it('gives search the same text as the whole content, for any words, separators and chunking', () => {
    const letter = fc.constantFrom('a', 'b', 'z', 'é', 'e\u0301', '½', '东', '𝄞');
    const word = fc.array(letter, { minLength: 1, maxLength: 8 }).map((letters) => letters.join(''));
    const separator = fc.constantFrom(' ', '\n', ', ', ' — ', '\u0301 ', '  ');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(word, separator), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 15_900, max: 40_000 }),
        fc.integer({ min: 1, max: 200_000 }),
        (unit, words, chunkBytes) => {
          const block = unit.map(([w, sep]) => w + sep).join('');
          const text = block.repeat(Math.ceil(words / unit.length));
          const { text: kept } = fromChunks(text, chunkBytes);
          expect(searchFields(kept)).toEqual(searchOf(text));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('truncateUtf8', () => {
  it('keeps whole code points within the byte limit', () => {
    expect(truncateUtf8('aé東𝄞', 0)).toBe('');
    expect(truncateUtf8('aé東𝄞', 1)).toBe('a');
    expect(truncateUtf8('aé東𝄞', 2)).toBe('a');
    expect(truncateUtf8('aé東𝄞', 3)).toBe('aé');
    expect(truncateUtf8('aé東𝄞', 5)).toBe('aé');
    expect(truncateUtf8('aé東𝄞', 6)).toBe('aé東');
    expect(truncateUtf8('aé東𝄞', 9)).toBe('aé東');
    expect(truncateUtf8('aé東𝄞', 10)).toBe('aé東𝄞');
    expect(truncateUtf8('a\ud800b', 3)).toBe('a');
    expect(truncateUtf8('a\ud800b', 4)).toBe('a\ud800');
  });

  it('is the longest prefix that fits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.nat(100), (text, max) => {
        const kept = truncateUtf8(text, max);
        expect(text.startsWith(kept)).toBe(true);
        expect(encoder.encode(kept).length).toBeLessThanOrEqual(max);
        const next = Array.from(text.slice(kept.length))[0];
        if (next !== undefined) expect(encoder.encode(kept + next).length).toBeGreaterThan(max);
      }),
    );
  });
});
