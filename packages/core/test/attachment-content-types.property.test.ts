import { bytesMatchType, essenceOf, isInlineType, mayRunScript } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { typeCheckedContent } from '../src/attachments/content-types.js';

/**
 * The content-type rule of attachments (extensions §12): for the types a browser would render, the
 * bytes' head must be of that type. Properties: random bytes never pass as an image (or PDF, SVG);
 * each real head passes its own type and no other binary type; the streaming check throws before it
 * hands on anything past the head, and hands on every byte unchanged otherwise, however chunked.
 */

const HEADS: Record<string, Uint8Array> = {
  'image/png': Uint8Array.from(
    Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    ),
  ),
  'image/jpeg': Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]),
  'image/gif': new TextEncoder().encode('GIF89a\x01\x00\x01\x00\x80\x00\x00'),
  'image/webp': new TextEncoder().encode('RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00'),
  'image/bmp': Uint8Array.from([
    0x42, 0x4d, 0x3a, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0x18,
    0,
  ]),
  'image/x-icon': Uint8Array.from([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0]),
  'application/pdf': new TextEncoder().encode('%PDF-1.7\n%âãÏÓ\n'),
  'image/svg+xml': new TextEncoder().encode(
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>',
  ),
};
const BINARY_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/x-icon',
  'application/pdf',
] as const;

describe('attachment content types (extensions §12)', () => {
  it('random bytes never pass as an image type, PDF or SVG', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), (bytes) => {
        for (const type of [...BINARY_TYPES, 'image/svg+xml'])
          expect(bytesMatchType(type, bytes), type).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('each real head passes its own type (with any parameters and case) and no other binary type', () => {
    for (const [type, head] of Object.entries(HEADS)) {
      expect(bytesMatchType(type, head), type).toBe(true);
      expect(bytesMatchType(`${type.toUpperCase()}; charset=binary`, head), type).toBe(true);
      for (const other of BINARY_TYPES)
        if (other !== type) expect(bytesMatchType(other, head), `${type} as ${other}`).toBe(false);
    }
    // A PNG sent as image/jpeg, an HTML page as an image: refused.
    expect(bytesMatchType('image/jpeg', HEADS['image/png']!)).toBe(false);
    expect(bytesMatchType('image/png', new TextEncoder().encode('<html><script>x</script>'))).toBe(false);
    // Markup types need markup; a binary image is not HTML.
    expect(bytesMatchType('text/html', new TextEncoder().encode('  <!doctype html><p>hi'))).toBe(true);
    expect(bytesMatchType('text/html', HEADS['image/gif']!)).toBe(false);
    expect(bytesMatchType('text/html', HEADS['image/png']!)).toBe(false);
    // Unchecked types take any bytes.
    fc.assert(
      fc.property(fc.uint8Array(), (bytes) => {
        expect(bytesMatchType('application/octet-stream', bytes)).toBe(true);
        expect(bytesMatchType('audio/mpeg', bytes)).toBe(true);
      }),
    );
  });

  it('which types are inline and which are sandboxed', () => {
    expect(
      ['image/png', 'image/svg+xml', 'audio/ogg', 'video/mp4', 'application/pdf'].map(isInlineType),
    ).toEqual([true, true, true, true, true]);
    expect(['text/html', 'application/zip', 'text/plain'].map(isInlineType)).toEqual([false, false, false]);
    expect(
      ['image/svg+xml', 'text/html', 'application/xhtml+xml', 'text/xml', 'application/rss+xml'].map(
        mayRunScript,
      ),
    ).toEqual([true, true, true, true, true]);
    expect(['image/png', 'application/pdf', 'application/octet-stream'].map(mayRunScript)).toEqual([
      false,
      false,
      false,
    ]);
    expect(essenceOf(' Image/PNG ; x=y')).toBe('image/png');
    expect(essenceOf('nonsense')).toBeNull();
  });

  it('the streaming check hands on every byte unchanged, however chunked; a mismatch stops at the head', async () => {
    const collect = async (chunks: Uint8Array[], type: string, pulled: { n: number }) => {
      async function* source() {
        for (const chunk of chunks) {
          pulled.n++;
          yield chunk;
        }
      }
      const out: number[] = [];
      for await (const chunk of typeCheckedContent(source(), type)) out.push(...chunk);
      return Uint8Array.from(out);
    };
    await fc.assert(
      fc.asyncProperty(
        // Any tail after a binary head; after SVG (text), text: a NUL in the head is no SVG.
        fc
          .constantFrom(...Object.keys(HEADS))
          .chain((type) =>
            fc.tuple(
              fc.constant(type),
              type === 'image/svg+xml'
                ? fc
                    .string({ maxLength: 500 })
                    .map((text) => new TextEncoder().encode(text.replaceAll('\0', ' ')))
                : fc.uint8Array({ maxLength: 2000 }),
            ),
          ),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 10 }),
        async ([type, tail], sizes) => {
          const whole = Uint8Array.from([...HEADS[type]!, ...tail]);
          const chunks: Uint8Array[] = [];
          let at = 0;
          for (let i = 0; at < whole.length; i++) {
            const size = sizes[i % sizes.length]!;
            chunks.push(whole.subarray(at, at + size));
            at += size;
          }
          expect(await collect(chunks, type, { n: 0 })).toEqual(whole);
        },
      ),
      { numRuns: 200 },
    );
    // A PNG sent as JPEG, in 100 chunks of 600 bytes: refused before more than the head is pulled.
    const png = Uint8Array.from([...HEADS['image/png']!, ...new Uint8Array(60_000)]);
    const chunks = Array.from({ length: 100 }, (_, i) => png.subarray(i * 600, (i + 1) * 600));
    const pulled = { n: 0 };
    await expect(collect(chunks, 'image/jpeg', pulled)).rejects.toMatchObject({
      code: 'CONTENT_TYPE_MISMATCH',
    });
    expect(pulled.n).toBe(1);
  });
});
