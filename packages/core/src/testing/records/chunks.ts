import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { ChunkRecord } from '../../model/records.js';
import type { ChunkPosition, RecordsTransaction } from '../../ports/records.js';
import { chunkMarkdown } from '../../semantic/chunks.js';
import { hashedEmbedder } from '../../semantic/hashed-embedder.js';
import { vectorBytes } from '../../semantic/vectors.js';
import { createSemanticIndexer } from '../../use-cases/semantic/indexer.js';
import { scanVectors } from '../../use-cases/semantic/vector-scan.js';
import { BASE_TIME } from '../builders.js';
import { ascendingIds, type SuiteContext, seedAccount, seedFile, seedProject } from './support.js';

const MODEL = 'hashed-256';

const aChunk = (overrides: Partial<ChunkRecord> = {}): ChunkRecord => ({
  projectId: randomUUID(),
  fileId: randomUUID(),
  filename: 'notes/a.md',
  ordinal: 0,
  heading: 'Intro',
  hash: 'a'.repeat(64),
  model: MODEL,
  vector: vectorBytes(new Float32Array([0.6, -0.8, 0, 1e-7])),
  listGeneration: null,
  listNo: null,
  ...overrides,
});

/** Embedded chunks and the semantic indexer's cursors (extensions §15). */
export function chunksSuite({ test }: SuiteContext): void {
  describe('search chunks', () => {
    test('keeps chunks exactly (vector bytes, null heading) and lists a file’s in ordinal order', async ({
      repository,
    }) => {
      const base = aChunk();
      const rows = [2, 0, 1].map((ordinal) =>
        aChunk({
          ...base,
          ordinal,
          heading: ordinal === 0 ? null : `H${ordinal}`,
          hash: `${ordinal}`.repeat(64),
        }),
      );
      await repository.withTransaction((tx) =>
        tx.replaceFileChunks({
          projectId: base.projectId,
          fileId: base.fileId,
          filename: base.filename,
          chunks: rows,
        }),
      );
      const listed = await repository.listFileChunks({ fileId: base.fileId });
      expect(listed.map((c) => c.ordinal)).toEqual([0, 1, 2]);
      expect(listed[0]).toEqual({ ...rows[1], vector: expect.any(Uint8Array) });
      expect([...listed[0]!.vector]).toEqual([...base.vector]);
      expect(await repository.listFileChunks({ fileId: randomUUID() })).toEqual([]);
    });

    test('replacing a file’s chunks removes its old ones and those filed under its name', async ({
      repository,
    }) => {
      const projectId = randomUUID();
      const old = aChunk({ projectId, filename: 'a.md' });
      const sameName = aChunk({ projectId, filename: 'a.md' });
      const other = aChunk({ projectId, filename: 'b.md' });
      await repository.withTransaction(async (tx) => {
        for (const c of [old, sameName, other])
          await tx.replaceFileChunks({ projectId, fileId: c.fileId, filename: c.filename, chunks: [c] });
      });
      // The file `old` moved to `c.md`: its chunks follow, and the stale ones under `a.md` go.
      const moved = { ...old, filename: 'c.md', ordinal: 0 };
      await repository.withTransaction((tx) =>
        tx.replaceFileChunks({ projectId, fileId: old.fileId, filename: 'a.md', chunks: [moved] }),
      );
      expect(await repository.listFileChunks({ fileId: sameName.fileId })).toEqual([]);
      expect((await repository.listFileChunks({ fileId: old.fileId })).map((c) => c.filename)).toEqual([
        'c.md',
      ]);
      expect(
        await repository.withTransaction((tx) => tx.deleteFileChunks({ projectId, filename: 'c.md' })),
      ).toBe(1);
      expect(await repository.listFileChunks({ fileId: old.fileId })).toEqual([]);
      expect(await repository.listFileChunks({ fileId: other.fileId })).toHaveLength(1);
      expect(await repository.withTransaction((tx) => tx.deleteProjectChunks({ projectId, limit: 10 }))).toBe(
        1,
      );
      expect(await repository.listFileChunks({ fileId: other.fileId })).toEqual([]);
    });

    test("deleteProjectChunks removes at most `limit` of the project's chunks a call, no other's (issue 34)", async ({
      repository,
    }) => {
      const [projectId, otherId] = [randomUUID(), randomUUID()];
      const files = [
        { fileId: randomUUID(), filename: 'a.md', ordinals: [0, 1, 2] },
        { fileId: randomUUID(), filename: 'b.md', ordinals: [0, 1] },
      ];
      const kept = aChunk({ projectId: otherId });
      await repository.withTransaction(async (tx) => {
        for (const { fileId, filename, ordinals } of files)
          await tx.replaceFileChunks({
            projectId,
            fileId,
            filename,
            chunks: ordinals.map((ordinal) => aChunk({ projectId, fileId, filename, ordinal })),
          });
        await tx.replaceFileChunks({
          projectId: otherId,
          fileId: kept.fileId,
          filename: kept.filename,
          chunks: [kept],
        });
      });
      const left = async () =>
        (await repository.listChunkVectors({ projectIds: [projectId], model: MODEL, limit: 100 })).length;
      const batches: number[][] = [];
      for (;;) {
        const deleted = await repository.withTransaction((tx) =>
          tx.deleteProjectChunks({ projectId, limit: 2 }),
        );
        batches.push([deleted, await left()]);
        if (deleted < 2) break;
      }
      expect(batches).toEqual([
        [2, 3],
        [2, 1],
        [1, 0],
      ]);
      expect(await repository.listFileChunks({ fileId: kept.fileId })).toHaveLength(1);
    });

    test('scans the chunks of one model in the projects in (project, file, ordinal) order, paged', async ({
      repository,
    }) => {
      const [p1, p2, p3] = ascendingIds(3) as [string, string, string];
      const [f1, f2, f3] = ascendingIds(3) as [string, string, string];
      const rows = [
        ...[0, 1, 2].map((ordinal) => aChunk({ projectId: p2, fileId: f1, ordinal })),
        ...[0, 1].map((ordinal) => aChunk({ projectId: p1, fileId: f3, ordinal })),
        aChunk({ projectId: p1, fileId: f2, filename: 'b.md' }),
      ];
      const elsewhere = aChunk({ projectId: p3 });
      const otherModel = aChunk({ projectId: p1, model: 'other', filename: 'x.md' });
      await repository.withTransaction(async (tx) => {
        for (const c of [...rows, elsewhere, otherModel])
          await tx.replaceFileChunks({
            projectId: c.projectId,
            fileId: c.fileId,
            filename: c.filename,
            chunks: rows
              .filter((r) => r.fileId === c.fileId)
              .concat(c.model === 'other' || c === elsewhere ? [c] : []),
          });
      });
      const key = (c: ChunkRecord) => `${c.projectId}/${c.fileId}/${c.ordinal}`;
      const expected = rows.map(key).sort();
      const all = await repository.listChunkVectors({ projectIds: [p1, p2], model: MODEL, limit: 100 });
      expect(all.map(key)).toEqual(expected);
      const paged: ChunkRecord[] = [];
      let after: ChunkRecord | undefined;
      for (;;) {
        const page = await repository.listChunkVectors({
          projectIds: [p2, p1],
          model: MODEL,
          limit: 2,
          ...(after && {
            after: { projectId: after.projectId, fileId: after.fileId, ordinal: after.ordinal },
          }),
        });
        paged.push(...page);
        if (page.length < 2) break;
        after = page.at(-1);
      }
      expect(paged.map(key)).toEqual(expected);
      expect(await repository.listChunkVectors({ projectIds: [], model: MODEL, limit: 10 })).toEqual([]);
      expect(await repository.countEmbeddedFiles({ projectId: p1, model: MODEL })).toBe(2);
      expect(await repository.countEmbeddedFiles({ projectId: p1, model: 'other' })).toBe(1);
      expect(await repository.countEmbeddedFiles({ projectId: p3, model: 'none' })).toBe(0);
    });

    test('the exact scan gives the same best chunk per file and order of hits on every store', async ({
      repository,
    }) => {
      const embedder = hashedEmbedder();
      const projectId = randomUUID();
      const files = {
        'deploy.md': '# Deploying\n\nHow to deploy the service to production with the release script.',
        'cooking.md': '# Soup\n\nBoil water, add carrots and onions.\n\n# Bread\n\nKnead the dough.',
        'mixed.md': '# Garden\n\nWater the plants.\n\n## Release\n\nThe release script deploys the service.',
      };
      for (const [filename, text] of Object.entries(files)) {
        const fileId = randomUUID();
        const chunks = chunkMarkdown(text);
        const vectors = await embedder.embed({ texts: chunks.map((c) => c.text) });
        await repository.withTransaction((tx) =>
          tx.replaceFileChunks({
            projectId,
            fileId,
            filename,
            chunks: chunks.map((c, i) => ({
              projectId,
              fileId,
              filename,
              ordinal: c.ordinal,
              heading: c.heading,
              hash: c.hash,
              model: embedder.model,
              vector: vectorBytes(vectors[i]!),
              listGeneration: null,
              listNo: null,
            })),
          }),
        );
      }
      const [query] = await embedder.embed({ texts: ['how to deploy the service to production'] });
      const report = await scanVectors(repository, {
        projectIds: [projectId],
        model: embedder.model,
        query: query!,
        accepts: () => true,
        budget: { rows: 100, bytes: 1 << 20 },
      });
      const byName = new Map(
        (
          await repository.listChunkVectors({ projectIds: [projectId], model: embedder.model, limit: 100 })
        ).map((c) => [c.fileId, c.filename]),
      );
      const hits = [...report.hits.values()].sort((a, b) => b.similarity - a.similarity);
      expect(hits.map((h) => byName.get(h.fileId))).toEqual(['deploy.md', 'mixed.md', 'cooking.md']);
      expect(hits.map((h) => h.heading)).toEqual(['Deploying', 'Release', expect.any(String)]);
      expect(report).toMatchObject({ rows: 5, truncated: false });
      const cut = await scanVectors(repository, {
        projectIds: [projectId],
        model: embedder.model,
        query: query!,
        accepts: () => true,
        budget: { rows: 3, bytes: 1 << 20 },
      });
      expect(cut).toMatchObject({ rows: 3, truncated: true });
    });
  });

  describe('vector lists', () => {
    test('keeps an account’s lists per model exactly, the last saved replacing the one before', async ({
      repository,
    }) => {
      const accountId = randomUUID();
      const lists = {
        accountId,
        model: MODEL,
        generation: 1,
        dimensions: 2,
        count: 2,
        centroids: vectorBytes(new Float32Array([1, 0, 0, -1])),
        trainedRows: 16_384,
        createdAt: BASE_TIME,
      };
      expect(await repository.findVectorLists({ accountId, model: MODEL })).toBeNull();
      await repository.withTransaction((tx) => tx.saveVectorLists(lists));
      const found = await repository.findVectorLists({ accountId, model: MODEL });
      expect({ ...found, centroids: [...found!.centroids] }).toEqual({
        ...lists,
        centroids: [...lists.centroids],
      });
      expect(await repository.findVectorLists({ accountId, model: 'other' })).toBeNull();
      await repository.withTransaction((tx) => tx.saveVectorLists({ ...lists, generation: 2, count: 1 }));
      expect(await repository.findVectorLists({ accountId, model: MODEL })).toMatchObject({
        generation: 2,
        count: 1,
      });
    });

    test('files chunks in lists; a scan reads the lists asked for, list by list, or the unfiled ones', async ({
      repository,
    }) => {
      const projectId = randomUUID();
      const other = randomUUID();
      const files = ascendingIds(3);
      const rows = files.flatMap((fileId, f) =>
        [0, 1].map((ordinal) =>
          aChunk({ projectId, fileId, filename: `${f}.md`, ordinal, hash: `${f}${ordinal}`.repeat(32) }),
        ),
      );
      const elsewhere = aChunk({ projectId: other, fileId: randomUUID(), filename: 'x.md' });
      await repository.withTransaction(async (tx) => {
        for (const [f, fileId] of files.entries())
          await tx.replaceFileChunks({
            projectId,
            fileId,
            filename: `${f}.md`,
            chunks: rows.filter((r) => r.fileId === fileId),
          });
        await tx.replaceFileChunks({
          projectId: other,
          fileId: elsewhere.fileId,
          filename: 'x.md',
          chunks: [elsewhere],
        });
      });
      const scan = (
        lists: { generation: number; listNos: number[] } | null | undefined,
        limit = 100,
        after?: ChunkPosition,
      ) =>
        repository.listChunkVectors({
          projectIds: [projectId],
          model: MODEL,
          limit,
          ...(after && { after }),
          ...(lists !== undefined && { lists }),
        });
      const keys = (chunks: ChunkRecord[]) =>
        chunks.map((c) => `${c.listNo}:${files.indexOf(c.fileId)}.${c.ordinal}`);
      expect(keys(await scan(null))).toEqual([
        'null:0.0',
        'null:0.1',
        'null:1.0',
        'null:1.1',
        'null:2.0',
        'null:2.1',
      ]);
      expect(await scan({ generation: 1, listNos: [0, 1] })).toEqual([]);
      expect(await repository.countChunkVectors({ projectIds: [projectId], model: MODEL, limit: 100 })).toBe(
        6,
      );
      expect(
        await repository.countChunkVectors({ projectIds: [projectId, other], model: MODEL, limit: 4 }),
      ).toBe(4);
      expect(
        await repository.countChunkVectors({ projectIds: [projectId], model: 'other', limit: 100 }),
      ).toBe(0);
      // Files 0 and 2 in lists 1 and 0 (generation 1); file 1's first chunk in list 1 of an older generation.
      await repository.withTransaction(async (tx) => {
        await tx.setChunkLists({
          generation: 1,
          chunks: [
            { fileId: files[0]!, ordinal: 0, listNo: 1 },
            { fileId: files[0]!, ordinal: 1, listNo: 1 },
            { fileId: files[2]!, ordinal: 0, listNo: 0 },
            { fileId: files[2]!, ordinal: 1, listNo: 1 },
          ],
        });
        await tx.setChunkLists({ generation: 0, chunks: [{ fileId: files[1]!, ordinal: 0, listNo: 1 }] });
      });
      expect(keys(await scan({ generation: 1, listNos: [1, 0] }))).toEqual([
        '0:2.0',
        '1:0.0',
        '1:0.1',
        '1:2.1',
      ]);
      expect(keys(await scan({ generation: 1, listNos: [1] }))).toEqual(['1:0.0', '1:0.1', '1:2.1']);
      expect(keys(await scan({ generation: 1, listNos: [] }))).toEqual([]);
      expect(keys(await scan(null))).toEqual(['null:1.1']);
      expect(await scan(undefined)).toHaveLength(6);
      // Paging a scan of lists: the position names the list.
      const first = await scan({ generation: 1, listNos: [0, 1] }, 2);
      expect(keys(first)).toEqual(['0:2.0', '1:0.0']);
      const last = first.at(-1)!;
      const position = {
        projectId: last.projectId,
        fileId: last.fileId,
        ordinal: last.ordinal,
        listNo: last.listNo!,
      };
      expect(keys(await scan({ generation: 1, listNos: [0, 1] }, 10, position))).toEqual(['1:0.1', '1:2.1']);
      // A file's chunks written again are filed as written.
      await repository.withTransaction((tx) =>
        tx.replaceFileChunks({
          projectId,
          fileId: files[0]!,
          filename: '0.md',
          chunks: [aChunk({ projectId, fileId: files[0]!, filename: '0.md', listGeneration: 1, listNo: 0 })],
        }),
      );
      expect(keys(await scan({ generation: 1, listNos: [0] }))).toEqual(['0:0.0', '0:2.0']);
    });
  });

  describe('embedding cursors', () => {
    test('two indexers stepping at once: one works the account, each chunk is embedded once', async ({
      repository,
    }) => {
      const account = await seedAccount(repository);
      const project = await seedProject(repository, { accountId: account.id });
      for (const [filename, text] of [
        ['a.md', '# A\n\nalpha'],
        ['b.md', '# B\n\nbeta\n\n# C\n\ngamma'],
      ] as const) {
        const file = await seedFile(repository, { projectId: project.id, filename });
        await repository.withTransaction((tx) => tx.indexFile({ file, contentText: text }));
      }
      const embedded: string[] = [];
      const inner = hashedEmbedder();
      const embedder = {
        model: inner.model,
        dimensions: inner.dimensions,
        embed: async (o: { texts: readonly string[] }) => {
          embedded.push(...o.texts);
          return inner.embed(o);
        },
      };
      const clock = { now: () => BASE_TIME };
      const [one, two] = await Promise.all(
        ['one', 'two'].map((owner) =>
          createSemanticIndexer({ records: repository, embedder, clock, owner }).step(),
        ),
      );
      expect(embedded.sort()).toEqual(['# A\n\nalpha', '# B\n\nbeta', '# C\n\ngamma']);
      expect([one!.failed, two!.failed]).toEqual([0, 0]);
      expect(await repository.countEmbeddedFiles({ projectId: project.id, model: inner.model })).toBe(2);
      expect(await repository.findEmbeddingCursor({ accountId: account.id })).toMatchObject({
        model: inner.model,
        leaseOwner: null,
      });
    });

    test("a deleted project's chunks go in bounded batches, the rest at the next steps (issue 34)", async ({
      repository,
    }) => {
      const account = await seedAccount(repository);
      const project = await seedProject(repository, { accountId: account.id });
      for (const filename of ['a.md', 'b.md', 'c.md']) {
        const file = await seedFile(repository, { projectId: project.id, filename });
        await repository.withTransaction((tx) =>
          tx.indexFile({ file, contentText: `# ${filename}\n\nalpha\n\n# Two\n\nbeta ${filename}` }),
        );
      }
      const deletes: number[] = [];
      const counted = new Proxy(repository, {
        get(target, property) {
          if (property !== 'withTransaction') {
            const value = Reflect.get(target, property, target);
            return typeof value === 'function' ? value.bind(target) : value;
          }
          return <T>(work: (tx: RecordsTransaction) => Promise<T>) =>
            target.withTransaction((tx) =>
              work(
                new Proxy(tx, {
                  get(inner, name) {
                    const value = Reflect.get(inner, name, inner);
                    if (name !== 'deleteProjectChunks')
                      return typeof value === 'function' ? value.bind(inner) : value;
                    return async (c: { projectId: string; limit: number }) => {
                      const deleted = await inner.deleteProjectChunks(c);
                      deletes.push(deleted);
                      return deleted;
                    };
                  },
                }),
              ),
            );
        },
      });
      const indexer = createSemanticIndexer({
        records: counted,
        embedder: hashedEmbedder(),
        clock: { now: () => BASE_TIME },
        owner: 'one',
        limits: { chunkDeleteBatchRows: 2, chunkDeleteStepBatches: 2 },
      });
      const chunksLeft = async () =>
        (
          await repository.listChunkVectors({
            projectIds: [project.id],
            model: hashedEmbedder().model,
            limit: 100,
          })
        ).length;
      await indexer.step();
      expect(await chunksLeft()).toBe(6);
      await repository.withTransaction(async (tx) => {
        await tx.updateProject({ project: { ...project, status: 'deleting' } });
        await tx.appendChangeEvents({
          events: [
            {
              accountId: account.id,
              type: 'project.deleted',
              projectId: project.id,
              filename: null,
              from: null,
              revision: null,
              etag: null,
              sizeBytes: null,
              sha256: null,
              changesetId: null,
              at: BASE_TIME,
            },
          ],
        });
      });
      // Two full batches a step; the step that finds the project empty moves past its event.
      const steps = [];
      for (let step = 0; step < 3; step++) {
        deletes.length = 0;
        const report = await indexer.step();
        steps.push({
          deletes: [...deletes],
          left: await chunksLeft(),
          events: report.events,
          behind: report.behind,
        });
      }
      expect(steps).toEqual([
        { deletes: [2, 2], left: 2, events: 0, behind: 1 },
        { deletes: [2, 0], left: 0, events: 1, behind: 0 },
        { deletes: [], left: 0, events: 0, behind: 0 },
      ]);
      expect(await repository.findEmbeddingCursor({ accountId: account.id })).toMatchObject({
        seq: 1,
        leaseOwner: null,
      });
    });

    test('one claim wins until its lease expires; the holder saves and releases', async ({ repository }) => {
      const { id: accountId } = await seedAccount(repository);
      const claim = (owner: string, now: number) =>
        repository.withTransaction((tx) =>
          tx.claimEmbeddingCursor({ accountId, owner, now, until: now + 60_000 }),
        );
      expect(await repository.findEmbeddingCursor({ accountId })).toBeNull();
      expect(await claim('a', BASE_TIME)).toEqual({
        accountId,
        seq: 0,
        model: null,
        leaseOwner: 'a',
        leaseExpiresAt: BASE_TIME + 60_000,
        updatedAt: BASE_TIME,
      });
      expect(await claim('b', BASE_TIME + 59_999)).toBeNull();
      const save = (owner: string, seq: number, leaseExpiresAt: number | null) =>
        repository.withTransaction((tx) =>
          tx.saveEmbeddingCursor({ accountId, owner, seq, model: MODEL, leaseExpiresAt, now: BASE_TIME + 5 }),
        );
      expect(await save('b', 9, null)).toBe(false);
      expect(await save('a', 7, null)).toBe(true);
      expect(await repository.findEmbeddingCursor({ accountId })).toEqual({
        accountId,
        seq: 7,
        model: MODEL,
        leaseOwner: null,
        leaseExpiresAt: null,
        updatedAt: BASE_TIME + 5,
      });
      expect((await claim('b', BASE_TIME + 10))?.seq).toBe(7);
      expect(await claim('a', BASE_TIME + 11)).toBeNull();
      expect((await claim('a', BASE_TIME + 60_010))?.leaseOwner).toBe('a');
      expect(await save('b', 8, BASE_TIME + 1)).toBe(false);
    });
  });
}
