import {
  createSemanticIndexer,
  type Embedder,
  hashedEmbedder,
  type SearchAnswer,
  wireBody,
} from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture, textStream } from '../support/fixture.js';
import { issueOf } from '../support/search-scene.js';

/** Counts what reaches the embedder, and fails on demand. */
function countingEmbedder(inner: Embedder = hashedEmbedder()) {
  const seen: string[] = [];
  let failing = false;
  const embedder: Embedder = {
    model: inner.model,
    dimensions: inner.dimensions,
    embed: async (o) => {
      if (failing) throw new Error('endpoint down');
      seen.push(...o.texts);
      return inner.embed(o);
    },
  };
  return { embedder, seen, fail: (on: boolean) => (failing = on) };
}

async function semanticScene(o: { embeddings?: boolean } = {}) {
  const fixture = createFixture();
  const counting = countingEmbedder();
  const store = fixture.restart({
    cursorKey: new Uint8Array(32).fill(3),
    ...(o.embeddings !== false && { embedder: counting.embedder }),
  });
  const alice = await anAccount(store, 'alice');
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  const put = (filename: string, text: string, metadata?: unknown) =>
    store.files.upload({
      ...at,
      filename,
      content: textStream(text),
      ...(metadata !== undefined && { metadata: JSON.stringify(metadata) }),
    });
  const indexer = (owner = 'one') =>
    createSemanticIndexer({
      records: fixture.records,
      embedder: counting.embedder,
      clock: fixture.clock,
      owner,
    });
  const search = (body: unknown) => store.files.search({ ...at, body: wireBody(body) });
  const status = () => store.files.searchStatus(at);
  return { ...fixture, store, alice, at, put, indexer, search, status, counting };
}

const names = (answer: SearchAnswer) => answer.results.map((r) => r.file.filename);

const DOCS = {
  'deploy.md': '# Release process\n\nHow we deploy the service to production: run the release script.',
  'soup.md': '# Soup\n\nBoil water, add carrots and onions, simmer.',
  'garden.md': '# Garden\n\nWater the plants every morning.\n\n## Tools\n\nA spade and a rake.',
};

describe('the semantic indexer (extensions §15)', () => {
  it('embeds after the write, off the request path, and never embeds an unchanged chunk again', async () => {
    const s = await semanticScene();
    for (const [name, text] of Object.entries(DOCS)) await s.put(name, text);
    // The writes returned without embedding anything: the indexer does it later.
    expect(s.counting.seen).toEqual([]);
    expect(await s.status()).toMatchObject({ enabled: true, embedded: 0, pending: 3 });
    const first = await s.indexer().step();
    expect(first).toMatchObject({ embedded: 4, failed: 0 });
    expect(await s.status()).toEqual({
      enabled: true,
      model: 'hashed-256',
      embedded: 3,
      pending: 0,
      lagMs: 0,
    });
    s.counting.seen.length = 0;
    // One section changes: only that chunk is embedded again.
    await s.store.files.updateContent({
      ...s.at,
      filename: 'garden.md',
      content: textStream('# Garden\n\nWater the plants every evening.\n\n## Tools\n\nA spade and a rake.'),
    });
    s.clock.advance(1_500);
    expect(await s.status()).toMatchObject({ pending: 1, lagMs: 1_500 });
    await s.indexer().step();
    expect(s.counting.seen).toEqual(['# Garden\n\nWater the plants every evening.']);
    // A move re-files the chunks without embedding; a delete removes them.
    s.counting.seen.length = 0;
    await s.store.files.move({
      ...s.at,
      filename: 'soup.md',
      body: wireBody({ to: 'food/soup.md' }),
    });
    await s.store.files.delete({ ...s.at, filename: 'deploy.md' });
    await s.indexer().step();
    expect(s.counting.seen).toEqual([]);
    const chunks = await s.records.listChunkVectors({
      projectIds: [s.at.projectId],
      model: 'hashed-256',
      limit: 50,
    });
    expect(chunks.map((c) => c.filename).sort()).toEqual(['food/soup.md', 'garden.md', 'garden.md']);
    expect(await s.status()).toMatchObject({ embedded: 2, pending: 0 });
  });

  it('resumes from its saved position after a crash, and one holder works an account at a time', async () => {
    const s = await semanticScene();
    await s.put('a.md', '# A\n\nalpha');
    await s.indexer('one').step();
    await s.put('b.md', '# B\n\nbeta');
    // Another instance holds the account's lease (it crashed mid-batch): nobody else works it until expiry.
    const now = s.clock.now();
    await s.records.withTransaction((tx) =>
      tx.claimEmbeddingCursor({ accountId: s.alice.accountId, owner: 'crashed', now, until: now + 60_000 }),
    );
    s.counting.seen.length = 0;
    expect(await s.indexer('two').step()).toMatchObject({ accounts: 0, events: 0 });
    expect(s.counting.seen).toEqual([]);
    s.clock.advance(60_000);
    // A fresh process (new indexer) continues after the saved position: only b.md is embedded.
    expect(await s.indexer('two').step()).toMatchObject({ events: 1, embedded: 1 });
    expect(s.counting.seen).toEqual(['# B\n\nbeta']);
  });

  it('gives way before each file it syncs: nothing is read or embedded until the writes let it', async () => {
    const s = await semanticScene();
    for (const [name, text] of Object.entries(DOCS)) await s.put(name, text);
    let waits = 0;
    let release: () => void = () => {};
    const indexer = createSemanticIndexer({
      records: s.records,
      embedder: s.counting.embedder,
      clock: s.clock,
      owner: 'one',
      giveWay: () => {
        waits += 1;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    const step = indexer.step();
    // Held before it claims the account: nothing read or embedded yet.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(waits).toBe(1);
    expect(s.counting.seen).toEqual([]);
    // Let every wait through as it comes.
    const pump = setInterval(() => release(), 1);
    const report = await step;
    clearInterval(pump);
    expect(report).toMatchObject({ embedded: 4, failed: 0 });
    // One wait before the account's lease, one per file and one per call of the embedder.
    expect(waits).toBe(7);
  });

  it('an embedder failure never fails a write; the batch is retried and the position kept', async () => {
    const s = await semanticScene();
    s.counting.fail(true);
    await s.put('a.md', '# A\n\nalpha');
    expect(await s.indexer().step()).toMatchObject({ failed: 1 });
    expect(await s.status()).toMatchObject({ embedded: 0, pending: 1 });
    s.counting.fail(false);
    s.clock.advance(60_000);
    expect(await s.indexer().step()).toMatchObject({ failed: 0, embedded: 1 });
    expect(await s.status()).toMatchObject({ embedded: 1, pending: 0 });
  });
});

describe('semantic and hybrid search (extensions §15)', () => {
  async function indexed() {
    const s = await semanticScene();
    await s.put('deploy.md', DOCS['deploy.md'], { team: 'ops' });
    await s.put('soup.md', DOCS['soup.md'], { team: 'kitchen' });
    await s.put('garden.md', DOCS['garden.md'], { team: 'ops' });
    await s.put('notes.md', '# Notes\n\nThe production service release went fine.', { team: 'ops' });
    await s.indexer().step();
    return s;
  }

  it('text mode answers as before: no new fields', async () => {
    const s = await indexed();
    const answer = await s.search({ query: 'release' });
    expect(names(answer)).toEqual(['deploy.md', 'notes.md']);
    expect(Object.keys(answer.results[0]!).sort()).toEqual(['file', 'score', 'snippets']);
    expect(await s.search({ query: 'release', mode: 'text' })).toEqual(answer);
  });

  it('semantic and hybrid need embeddings on, a query, and relevance order', async () => {
    const off = await semanticScene({ embeddings: false });
    expect(await issueOf(() => off.search({ query: 'x', mode: 'semantic' }))).toEqual([
      ['body', 'mode'],
      'value_error',
      expect.any(String),
    ]);
    expect((await issueOf(() => off.search({ query: 'x', mode: 'hybrid' })))[0]).toEqual(['body', 'mode']);
    const s = await indexed();
    expect((await issueOf(() => s.search({ mode: 'fuzzy', query: 'x' })))[0]).toEqual(['body', 'mode']);
    expect((await issueOf(() => s.search({ mode: 'semantic' })))[0]).toEqual(['body', 'query']);
    expect((await issueOf(() => s.search({ mode: 'hybrid', query: 'x', sort: 'filename' })))[0]).toEqual([
      'body',
      'sort',
    ]);
    expect(await s.status()).toMatchObject({ enabled: true });
    expect(await off.status()).toEqual({ enabled: false, model: null, embedded: 0, pending: 0, lagMs: 0 });
  });

  it('semantic ranks by the best chunk, with its heading and text; ranks count only filtered files', async () => {
    const s = await indexed();
    const answer = await s.search({ query: 'how do we deploy the service', mode: 'semantic' });
    expect(answer.results[0]).toMatchObject({
      file: { filename: 'deploy.md' },
      textRank: null,
      vectorRank: 1,
      heading: 'Release process',
      snippet: DOCS['deploy.md'],
    });
    expect(answer.results.map((r) => r.vectorRank)).toEqual([1, 2, 3, 4]);
    const scores = answer.results.map((r) => r.score!);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // The filter applies before ranking: soup.md (kitchen) is neither a hit nor counted in the ranks.
    const ops = await s.search({
      query: 'how do we deploy the service',
      mode: 'semantic',
      filter: { field: 'metadata.team', op: 'eq', value: 'ops' },
    });
    expect(names(ops)).toEqual(names(answer).filter((n) => n !== 'soup.md'));
    expect(ops.results.map((r) => r.vectorRank)).toEqual([1, 2, 3]);
    expect(ops.totalCount).toBe(3);
  });

  it("hybrid's full-text side is any of the words: a question no file holds whole still ranks by them", async () => {
    const s = await indexed();
    const question = 'how does the release script water plants';
    // §3's text mode wants every word: no file has them all.
    expect(names(await s.search({ query: question }))).toEqual([]);
    const anyWord = await s.search({ query: question.split(' ').join(' OR ') });
    expect(anyWord.results.length).toBeGreaterThan(1);
    const hybrid = await s.search({ query: question, mode: 'hybrid' });
    const textRanked = hybrid.results
      .filter((r) => r.textRank !== null)
      .sort((a, b) => a.textRank! - b.textRank!)
      .map((r) => r.file.filename);
    expect(textRanked).toEqual(names(anyWord));
    // Exclusions still exclude.
    const without = await s.search({ query: `${question} -plants`, mode: 'hybrid' });
    expect(without.results.filter((r) => r.textRank !== null).map((r) => r.file.filename)).not.toContain(
      'garden.md',
    );
  });

  it('hybrid fuses the two rankings by reciprocal rank (k = 60) and pages stably', async () => {
    const s = await indexed();
    const text = await s.search({ query: 'release' });
    const semantic = await s.search({ query: 'release', mode: 'semantic' });
    const hybrid = await s.search({ query: 'release', mode: 'hybrid' });
    const rank = (answer: SearchAnswer, name: string) => {
      const i = names(answer).indexOf(name);
      return i < 0 ? null : i + 1;
    };
    for (const result of hybrid.results) {
      const name = result.file.filename;
      expect(result.textRank).toBe(rank(text, name));
      expect(result.vectorRank).toBe(rank(semantic, name));
      const expected = [result.textRank, result.vectorRank]
        .filter((r): r is number => r !== null)
        .reduce((sum, r) => sum + 1 / (60 + r), 0);
      expect(result.score).toBeCloseTo(expected, 12);
    }
    expect(hybrid.totalCount).toBe(4);
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: SearchAnswer = await s.search({ query: 'release', mode: 'hybrid', limit: 1, cursor });
      pages.push(names(page));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(pages.flat()).toEqual(names(hybrid));
    // A cursor of one mode is not one of another.
    const first = await s.search({ query: 'release', mode: 'hybrid', limit: 1 });
    expect(
      (
        await issueOf(() =>
          s.search({ query: 'release', mode: 'semantic', limit: 1, cursor: first.nextCursor }),
        )
      )[0],
    ).toEqual(['body', 'cursor']);
  });
});
