import {
  chunkHash,
  chunkMarkdown,
  cosine,
  hashedEmbedder,
  SEMANTIC_LIMITS,
  vectorBytes,
  vectorOf,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('chunkMarkdown (extensions §15: a heading’s section, bounded in size)', () => {
  it('cuts per heading section, keeps the text before the first heading, skips front matter and code', () => {
    const text = [
      '---',
      'title: x',
      '---',
      'Intro line.',
      '',
      '# One',
      'first body',
      '```',
      '# not a heading',
      '```',
      '## Two ##',
      'second body',
      '#nospace is text',
    ].join('\n');
    const chunks = chunkMarkdown(text);
    expect(chunks.map((c) => [c.ordinal, c.heading])).toEqual([
      [0, null],
      [1, 'One'],
      [2, 'Two'],
    ]);
    expect(chunks[0]!.text).toBe('Intro line.');
    expect(chunks[1]!.text).toContain('# not a heading');
    expect(chunks[2]!.text).toBe('## Two ##\nsecond body\n#nospace is text');
    expect(chunks.every((c) => c.hash === chunkHash(c.text))).toBe(true);
    expect(chunkMarkdown('   \n\n')).toEqual([]);
  });

  it('a section longer than the bound is cut between paragraphs, then at white space', () => {
    const paragraph = 'word '.repeat(300).trim(); // 1 499 code points
    const chunks = chunkMarkdown(`# Big\n\n${paragraph}\n\n${paragraph}\n\n${'x'.repeat(4_500)}`);
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(chunks.every((c) => [...c.text].length <= SEMANTIC_LIMITS.chunkMaxCodePoints)).toBe(true);
    expect(chunks.every((c) => c.heading === 'Big')).toBe(true);
    expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i));
  });

  it('property: every chunk is within the bound, and the chunks of an unchanged section keep their hash', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3000 }), { maxLength: 6 }),
        fc.string(),
        (bodies, extra) => {
          const sections = bodies.map((body, i) => `# S${i}\n${body}`);
          const before = chunkMarkdown(sections.join('\n'));
          for (const chunk of before) expect([...chunk.text].length).toBeLessThanOrEqual(2_000);
          const after = chunkMarkdown([...sections, `# Added\n${extra}`].join('\n'));
          const hashes = new Set(after.map((c) => c.hash));
          for (const chunk of before) expect(hashes.has(chunk.hash)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('hashedEmbedder (the deterministic provider)', () => {
  it('gives unit vectors of its dimension, the same for the same text', async () => {
    const embedder = hashedEmbedder({ dimensions: 64 });
    const [a, b] = await embedder.embed({ texts: ['Release process', 'release PROCESS'] });
    expect(a).toHaveLength(64);
    expect(embedder.model).toBe('hashed-64');
    expect(cosine(a!, b!)).toBeCloseTo(1, 6);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 6);
  });

  it('puts texts that share words closer than texts that share none', async () => {
    const embedder = hashedEmbedder();
    const [query, near, far] = await embedder.embed({
      texts: ['deploy the service', 'how we deploy our service to production', 'carrot soup with onions'],
    });
    expect(cosine(query!, near!)).toBeGreaterThan(cosine(query!, far!) + 0.2);
  });

  it('vectors survive their stored bytes exactly', () => {
    const vector = new Float32Array([0.1, -2.5, 3e-8, 0]);
    expect([...vectorOf(vectorBytes(vector))]).toEqual([...vector]);
  });
});
