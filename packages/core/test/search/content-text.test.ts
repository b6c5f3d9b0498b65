import { ContentTextCollector, SEARCH_LIMITS, truncateUtf8 } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

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
