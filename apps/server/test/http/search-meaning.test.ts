import { createSemanticIndexer, hashedEmbedder } from '@mdstore/core';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Search by meaning (extensions §15) over HTTP, on whichever adapter set runs the suite (matrix): the
 * deterministic embedder, the indexer stepped by the test (the server runs it among its duties), the
 * same hits on memory, SQLite and Postgres.
 */
const embedder = hashedEmbedder();
const test = serverTest({ embedder });

type Json = Record<string, unknown>;
interface Hit {
  file: { filename: string };
  score: number;
  text_rank?: number | null;
  vector_rank?: number | null;
  heading?: string | null;
  snippet?: string | null;
}

async function scene(h: HttpHarness) {
  const { apiKey } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Meaning');
  const search = async (body: Json, path = `/api/projects/${projectId}/search`) => {
    const response = await h.json(path, 'POST', apiKey, body);
    return { status: response.status, body: (await response.json()) as Json & { results: Hit[] } };
  };
  const status = async () => {
    const response = await h.fetch(`/api/projects/${projectId}/search/status`, { key: apiKey });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const index = () =>
    createSemanticIndexer({ records: h.adapters.records, embedder, clock: h.clock, owner: 'test' }).step();
  await h.uploadFile(apiKey, projectId, 'deploy.md', '# Release process\n\nHow we deploy the service.\n', {
    team: 'ops',
  });
  await h.uploadFile(apiKey, projectId, 'soup.md', '# Soup\n\nCarrots and onions.\n', { team: 'kitchen' });
  await h.uploadFile(apiKey, projectId, 'notes.md', '# Notes\n\nThe service release went fine.\n', {
    team: 'ops',
  });
  return { apiKey, projectId, search, status, index };
}

describe('search by meaning (extensions §15)', () => {
  test('status reports pending changes, then what the indexer embedded', async (h) => {
    const s = await scene(h);
    expect(await s.status()).toEqual({
      status: 200,
      body: { enabled: true, model: embedder.model, embedded: 0, pending: 3, lag_ms: expect.any(Number) },
    });
    await s.index();
    expect((await s.status()).body).toMatchObject({ embedded: 3, pending: 0, lag_ms: 0 });
    // Another account's project is 403, on the status as on every route; a semantic search too.
    const other = await h.account();
    const foreign = await h.fetch(`/api/projects/${s.projectId}/search/status`, { key: other.apiKey });
    expect(foreign.status).toBe(403);
    const searched = await h.json(`/api/projects/${s.projectId}/search`, 'POST', other.apiKey, {
      query: 'deploy',
      mode: 'semantic',
    });
    expect(searched.status).toBe(403);
  });

  test("hybrid's full-text side ranks the files holding any of the words; text mode still wants them all", async (h) => {
    const s = await scene(h);
    await s.index();
    // No file holds both words: text mode finds nothing, hybrid ranks each file holding either.
    expect((await s.search({ query: 'carrots release' })).body.results).toEqual([]);
    const hybrid = await s.search({ query: 'carrots release', mode: 'hybrid' });
    expect(hybrid.status).toBe(200);
    const textRanked = hybrid.body.results
      .filter((hit) => hit.text_rank !== null)
      .map((hit) => hit.file.filename);
    expect(textRanked.sort()).toEqual(['deploy.md', 'notes.md', 'soup.md']);
    // An excluded word still excludes.
    const without = await s.search({ query: 'carrots release -soup', mode: 'hybrid' });
    expect(
      without.body.results.filter((hit) => hit.text_rank !== null).map((hit) => hit.file.filename),
    ).not.toContain('soup.md');
  });

  test('semantic and hybrid hits carry their ranks, heading and snippet; text answers are unchanged', async (h) => {
    const s = await scene(h);
    await s.index();
    const text = await s.search({ query: 'release' });
    expect(text.status).toBe(200);
    expect(Object.keys(text.body.results[0]!).sort()).toEqual(['file', 'score', 'snippets']);
    const semantic = await s.search({ query: 'how do we deploy the service', mode: 'semantic' });
    expect(semantic.status).toBe(200);
    expect(semantic.body.results[0]).toMatchObject({
      file: { filename: 'deploy.md' },
      text_rank: null,
      vector_rank: 1,
      heading: 'Release process',
      snippet: '# Release process\n\nHow we deploy the service.',
    });
    const hybrid = await s.search({
      query: 'release',
      mode: 'hybrid',
      filter: { field: 'metadata.team', op: 'eq', value: 'ops' },
    });
    expect(hybrid.body.results.map((r) => r.file.filename).sort()).toEqual(['deploy.md', 'notes.md']);
    for (const hit of hybrid.body.results) {
      const expected = [hit.text_rank, hit.vector_rank]
        .filter((r): r is number => typeof r === 'number')
        .reduce((sum, r) => sum + 1 / (60 + r), 0);
      expect(hit.score).toBeCloseTo(expected, 12);
    }
    const bad = await s.search({ query: 'x', mode: 'nearest' });
    expect(bad.status).toBe(422);
    expect((bad.body.detail as { loc: unknown[] }[])[0]!.loc).toEqual(['body', 'mode']);
  });
});
