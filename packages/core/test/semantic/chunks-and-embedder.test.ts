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

  it('a setext heading (a paragraph underlined with === or ---) starts a section too', () => {
    const text = [
      'Intro.',
      '',
      'Title',
      '=====',
      'body one',
      '',
      'Two lines',
      'of heading',
      '---',
      'body two',
      '',
      '---',
      '===',
      'after a thematic break',
      '- item',
      '---',
      '> quoted',
      '---',
      '```',
      'code',
      '---',
      '```',
    ].join('\n');
    const chunks = chunkMarkdown(text);
    expect(chunks.map((c) => c.heading)).toEqual([null, 'Title', 'Two lines of heading']);
    expect(chunks[0]!.text).toBe('Intro.');
    expect(chunks[1]!.text).toBe('Title\n=====\nbody one');
    // A `---` after a blank line, a list item, a quote or inside code is no underline.
    expect(chunks[2]!.text.startsWith('Two lines\nof heading\n---\nbody two')).toBe(true);
    expect(chunks[2]!.text).toContain(
      '---\n===\nafter a thematic break\n- item\n---\n> quoted\n---\n```\ncode\n---\n```',
    );
  });

  it('setext and ATX headings give the same sections', () => {
    const atx = chunkMarkdown('# One\nbody\n\n## Two\nmore');
    const setext = chunkMarkdown('One\n===\nbody\n\nTwo\n---\nmore');
    expect(setext.map((c) => c.heading)).toEqual(atx.map((c) => c.heading));
    expect(setext.map((c) => c.text.split('\n').slice(-1)[0])).toEqual(['body', 'more']);
  });

  it('property: a document with setext headings has the sections of the same document with ATX ones', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const line = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));
    const section = fc.record({
      heading: line,
      level: fc.constantFrom(1, 2),
      paragraphs: fc.array(fc.array(line, { minLength: 1, maxLength: 3 }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(section, { minLength: 1, maxLength: 6 }), (sections) => {
        const body = (paragraphs: string[][]) => paragraphs.map((p) => p.join('\n')).join('\n\n');
        const atx = sections
          .map((x) => `${'#'.repeat(x.level)} ${x.heading}\n${body(x.paragraphs)}`)
          .join('\n\n');
        const setext = sections
          .map((x) => `${x.heading}\n${x.level === 1 ? '===' : '---'}\n${body(x.paragraphs)}`)
          .join('\n\n');
        expect(chunkMarkdown(setext).map((c) => c.heading)).toEqual(chunkMarkdown(atx).map((c) => c.heading));
      }),
    );
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
