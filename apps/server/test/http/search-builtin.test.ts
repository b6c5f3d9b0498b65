import { createSemanticIndexer } from '@mdstore/core';
import { afterAll, describe, expect } from 'vitest';
import { builtinEmbedder } from '../../src/embeddings/index.js';
import { serverTest } from '../support/http-harness.js';

/**
 * Search by meaning with the builtin model (extensions §15, `MDSTORE_EMBEDDINGS=builtin`) over HTTP: a
 * question sharing no word with the note that answers it finds that note first, which the deterministic
 * provider of the other suites cannot do (it matches words and word pieces only).
 */
const embedder = builtinEmbedder();
afterAll(() => embedder.close());
const test = serverTest({ embedder });

const NOTES: Record<string, string> = {
  'ops/shipping.md':
    '# Release process\n\nTag the commit, build the artifacts and upload them to production.\n',
  'home/pasta.md': '# Cooking pasta\n\nBoil salted water, add the spaghetti, drain after nine minutes.\n',
  'trips/weather.md': '# Weather\n\nIt rained all week in the mountains and the rivers are high.\n',
};

describe('search by meaning with the builtin model', () => {
  test('a question finds the note that answers it without sharing a word; text search finds nothing', async (h) => {
    const { apiKey } = await h.account();
    const { id: projectId } = await h.createProject(apiKey, 'Builtin');
    for (const [filename, content] of Object.entries(NOTES))
      await h.uploadFile(apiKey, projectId, filename, content);
    await createSemanticIndexer({
      records: h.adapters.records,
      embedder,
      clock: h.clock,
      owner: 'test',
    }).step();
    const status = await h.fetch(`/api/projects/${projectId}/search/status`, { key: apiKey });
    expect(await status.json()).toMatchObject({
      enabled: true,
      model: embedder.model,
      embedded: 3,
      pending: 0,
    });
    const search = async (query: string, mode: string) => {
      const response = await h.json(`/api/projects/${projectId}/search`, 'POST', apiKey, { query, mode });
      expect(response.status).toBe(200);
      return ((await response.json()) as { results: { file: { filename: string } }[] }).results;
    };
    expect(await search('how do we deploy', 'text')).toEqual([]);
    const asked = {
      'how do we deploy': 'ops/shipping.md',
      'what should I make for dinner': 'home/pasta.md',
      'is it going to rain': 'trips/weather.md',
    };
    for (const [question, answer] of Object.entries(asked)) {
      expect((await search(question, 'semantic'))[0]?.file.filename, question).toBe(answer);
      expect((await search(question, 'hybrid'))[0]?.file.filename, question).toBe(answer);
    }
  });
});
