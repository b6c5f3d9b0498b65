import {
  centroidBytes,
  centroidsOf,
  createSemanticIndexer,
  type Embedder,
  hashedEmbedder,
  listsByNearness,
  nearestList,
  normalized,
  sampled,
  scanVectors,
  trainLists,
  vectorBytes,
  wireBody,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture, textStream } from '../support/fixture.js';

/** A deterministic generator of numbers in [0, 1). */
function numbers(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 0x1_0000_0000;
  };
}

/** `perCluster` unit vectors around each of the first `clusters` axes of `dims` dimensions. */
function clustered(clusters: number, perCluster: number, dims: number, seed = 7) {
  const next = numbers(seed);
  const out: { cluster: number; vector: Float32Array }[] = [];
  for (let cluster = 0; cluster < clusters; cluster += 1)
    for (let i = 0; i < perCluster; i += 1) {
      const raw = Array.from({ length: dims }, (_, d) => (d === cluster ? 1 : 0) + (next() - 0.5) * 0.3);
      out.push({ cluster, vector: normalized(raw) });
    }
  return out;
}

describe('vector lists (extensions §15)', () => {
  it('k-means finds separated clusters: each cluster in one list, no two clusters in the same', async () => {
    const points = clustered(4, 40, 8);
    // Interleaved, as a sample sorted by hash would be.
    const sample = points.map((_, i) => points[(i * 37) % points.length]!.vector);
    const centroids = await trainLists(sample, { count: 4, iterations: 6 });
    expect(centroids).toHaveLength(4);
    const listOf = new Map<number, Set<number>>();
    for (const { cluster, vector } of points) {
      const lists = listOf.get(cluster) ?? new Set();
      lists.add(nearestList(centroids, vector));
      listOf.set(cluster, lists);
    }
    expect([...listOf.values()].map((lists) => lists.size)).toEqual([1, 1, 1, 1]);
    expect(new Set([...listOf.values()].map((lists) => [...lists][0])).size).toBe(4);
    for (const centroid of centroids) expect(Math.hypot(...centroid)).toBeCloseTo(1, 5);
    // The same sample trains the same lists, and their stored bytes give them back.
    expect(await trainLists(sample, { count: 4, iterations: 6 })).toEqual(centroids);
    expect(centroidsOf(centroidBytes(centroids), 8)).toEqual(centroids);
  });

  it('yields while it trains, and never trains more lists than vectors', async () => {
    let turns = 0;
    const sample = clustered(2, 3, 4).map((p) => p.vector);
    const centroids = await trainLists(sample, {
      count: 256,
      iterations: 2,
      turnEvery: 2,
      turn: async () => {
        turns += 1;
      },
    });
    expect(centroids).toHaveLength(6);
    expect(turns).toBe(6);
  });

  it('samples by hash: a share of 1 takes all, 0 none, and about the share in between', () => {
    const hashes = Array.from({ length: 4000 }, (_, i) =>
      ((i * 2_654_435_761) >>> 0).toString(16).padStart(8, '0'),
    );
    expect(hashes.every((hash) => sampled(hash, 1))).toBe(true);
    expect(hashes.some((hash) => sampled(hash, 0))).toBe(false);
    const taken = hashes.filter((hash) => sampled(hash, 0.25)).length;
    expect(taken).toBeGreaterThan(800);
    expect(taken).toBeLessThan(1200);
  });

  it('a scan that reads every list finds exactly what the scan of every chunk finds (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 2, max: 30 }),
        fc.integer({ min: 1, max: 5 }),
        async (seed, lists, files, batch) => {
          const fixture = createFixture();
          const projectId = 'p';
          const next = numbers(seed);
          const vector = () => normalized(Array.from({ length: 6 }, () => next() - 0.5));
          const centroids = Array.from({ length: lists }, vector);
          await fixture.records.withTransaction(async (tx) => {
            for (let f = 0; f < files; f += 1) {
              const fileId = `f${String(f).padStart(3, '0')}`;
              const chunks = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, ordinal) => {
                const v = vector();
                // A few chunks filed in no list (written before the lists, or a cut-short filing).
                const filed = next() > 0.2;
                return {
                  projectId,
                  fileId,
                  filename: `${fileId}.md`,
                  ordinal,
                  heading: null,
                  hash: `${fileId}${ordinal}`.padEnd(64, '0'),
                  model: 'm',
                  vector: vectorBytes(v),
                  listGeneration: filed ? 1 : null,
                  listNo: filed ? nearestList(centroids, v) : null,
                };
              });
              await tx.replaceFileChunks({ projectId, fileId, filename: `${fileId}.md`, chunks });
            }
          });
          const query = vector();
          const input = {
            projectIds: [projectId],
            model: 'm',
            query,
            accepts: (id: string) => id !== 'f001',
          };
          const exact = await scanVectors(fixture.records, input);
          const listed = await scanVectors(fixture.records, {
            ...input,
            lists: { generation: 1, centroids },
            probe: { rows: Number.POSITIVE_INFINITY, batch, exactBelow: 0 },
          });
          expect(listed.hits).toEqual(exact.hits);
          expect(listed.rows).toBe(exact.rows);
          expect(listed.listsRead).toBe(lists);
        },
      ),
      { numRuns: 40 },
    );
  });
});

/** An embedder whose vectors are the clusters of `clustered`: a text `c<cluster>-<i>` is its vector. */
function clusterEmbedder(): Embedder {
  const points = clustered(4, 200, 16);
  return {
    model: 'clusters-16',
    dimensions: 16,
    embed: async ({ texts }) =>
      texts.map((text) => {
        const [, cluster, index] = /c(\d+)-(\d+)/.exec(text) ?? ['', '0', '0'];
        return points[Number(cluster) * 200 + (Number(index) % 200)]!.vector;
      }),
  };
}

describe('the indexer and search with vector lists', () => {
  async function scene(embedder: Embedder = clusterEmbedder()) {
    const fixture = createFixture();
    const store = fixture.restart({ cursorKey: new Uint8Array(32).fill(3), embedder });
    const alice = await anAccount(store, 'alice');
    const at = { principal: alice.principal, projectId: alice.defaultProjectId };
    const put = (filename: string, text: string) =>
      store.files.upload({ ...at, filename, content: textStream(text) });
    const limits = { listsTrainAt: 24, listsCount: 4, listsSample: 1_000, listsIterations: 6 };
    const indexer = () =>
      createSemanticIndexer({
        records: fixture.records,
        embedder,
        clock: fixture.clock,
        owner: 'one',
        limits,
      });
    const chunks = (lists?: { generation: number; listNos: number[] } | null) =>
      fixture.records.listChunkVectors({
        projectIds: [at.projectId],
        model: embedder.model,
        limit: 1_000,
        ...(lists !== undefined && { lists }),
      });
    return { ...fixture, store, alice, at, put, indexer, chunks, embedder };
  }

  /** Files of two sections each, section `s` of file `f` in cluster `(f + s) % 4`. */
  const fileText = (f: number) => `# One\n\nc${f % 4}-${f}\n\n# Two\n\nc${(f + 1) % 4}-${f + 100}\n`;

  it('trains the lists once the account has enough chunks, files every chunk, and files new ones at write', async () => {
    const s = await scene();
    for (let f = 0; f < 11; f += 1) await s.put(`f${f}.md`, fileText(f));
    await s.indexer().step();
    // 22 chunks: under the threshold, no lists, nothing filed.
    expect(
      await s.records.findVectorLists({ accountId: s.alice.accountId, model: s.embedder.model }),
    ).toBeNull();
    expect(await s.chunks(null)).toHaveLength(22);
    await s.put('f11.md', fileText(11));
    await s.indexer().step();
    const lists = await s.records.findVectorLists({ accountId: s.alice.accountId, model: s.embedder.model });
    expect(lists).toMatchObject({ generation: 1, count: 4, dimensions: 16, trainedRows: 24 });
    expect(await s.chunks(null)).toEqual([]);
    // Each list holds the chunks of one cluster: the lists separate what the vectors separate.
    const centroids = centroidsOf(lists!.centroids, 16);
    for (const chunk of await s.chunks()) {
      expect(chunk.listGeneration).toBe(1);
      expect(chunk.listNo).toBe(
        nearestList(centroids, new Float32Array(new Uint8Array(chunk.vector).buffer)),
      );
    }
    // A file written after the training is filed by the write of its chunks.
    await s.put('late.md', fileText(13));
    await s.indexer().step();
    const late = (await s.chunks()).filter((c) => c.filename === 'late.md');
    expect(late).toHaveLength(2);
    for (const chunk of late) expect(chunk.listNo).toEqual(expect.any(Number));
    expect(await s.chunks(null)).toEqual([]);
  });

  it('a filing cut short is finished by the next batch; until then every search still reads the unfiled chunks', async () => {
    const s = await scene();
    for (let f = 0; f < 12; f += 1) await s.put(`f${f}.md`, fileText(f));
    // Embedded while the account had no lists: every chunk unfiled.
    await createSemanticIndexer({
      records: s.records,
      embedder: s.embedder,
      clock: s.clock,
      owner: 'one',
      limits: { listsTrainAt: Number.MAX_SAFE_INTEGER },
    }).step();
    const semantic = async () =>
      (
        await s.store.files.search({ ...s.at, body: wireBody({ query: 'c2-2', mode: 'semantic' }) })
      ).results.map((r) => r.file.filename);
    const exact = await semantic();
    // Then the lists were kept and the process died before filing a chunk.
    const axes = Array.from({ length: 4 }, (_, i) =>
      normalized(Array.from({ length: 16 }, (_, d) => (d === i ? 1 : 0))),
    );
    await s.records.withTransaction((tx) =>
      tx.saveVectorLists({
        accountId: s.alice.accountId,
        model: s.embedder.model,
        generation: 1,
        dimensions: 16,
        count: 4,
        centroids: centroidBytes(axes),
        trainedRows: 24,
        createdAt: s.clock.now(),
      }),
    );
    expect(await s.chunks(null)).toHaveLength(24);
    expect(await semantic()).toEqual(exact);
    // The next batch files them all, and the answers stay the same.
    await s.put('more.md', fileText(5));
    await s.indexer().step();
    expect(await s.chunks(null)).toEqual([]);
    expect((await semantic()).filter((name) => name !== 'more.md')).toEqual(exact);
  });

  it('a search reads the lists nearest its query first and stops once it compared enough chunks', async () => {
    const s = await scene();
    for (let f = 0; f < 40; f += 1) await s.put(`f${f}.md`, fileText(f));
    await s.indexer().step();
    const lists = (await s.records.findVectorLists({
      accountId: s.alice.accountId,
      model: s.embedder.model,
    }))!;
    const centroids = centroidsOf(lists.centroids, 16);
    const [query] = await s.embedder.embed({ texts: ['c3-7'] });
    const input = {
      projectIds: [s.at.projectId],
      model: s.embedder.model,
      query: query!,
      accepts: () => true,
    };
    const exact = await scanVectors(s.records, input);
    const probed = await scanVectors(s.records, {
      ...input,
      lists: { generation: lists.generation, centroids },
      probe: { rows: 5, batch: 1, exactBelow: 0 },
    });
    expect(exact.rows).toBe(80);
    // One list (the query's cluster, 20 chunks) was enough: a quarter of the chunks compared.
    expect(probed.listsRead).toBe(1);
    expect(probed.rows).toBe(20);
    expect(listsByNearness(centroids, query!)[0]).toBe(nearestList(centroids, query!));
    // Projects holding fewer chunks than `exactBelow` are read whole, lists or not.
    const small = await scanVectors(s.records, {
      ...input,
      lists: { generation: lists.generation, centroids },
      probe: { rows: 5, batch: 1, exactBelow: 81 },
    });
    expect(small).toMatchObject({ rows: 80, listsRead: 0 });
    const best = (hits: typeof exact.hits) =>
      [...hits.values()].sort((a, b) => b.similarity - a.similarity)[0];
    expect(best(probed.hits)).toEqual(best(exact.hits));
  });

  it('the deterministic provider of the tests trains lists too', async () => {
    const s = await scene(hashedEmbedder());
    for (let f = 0; f < 12; f += 1) await s.put(`f${f}.md`, `# A\n\nalpha ${f}\n\n# B\n\nbeta ${f}`);
    await s.indexer().step();
    expect(
      await s.records.findVectorLists({ accountId: s.alice.accountId, model: 'hashed-256' }),
    ).toMatchObject({
      generation: 1,
      dimensions: 256,
    });
    expect(await s.chunks(null)).toEqual([]);
  });
});
