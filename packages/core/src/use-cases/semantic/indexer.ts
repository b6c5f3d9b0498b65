import { giveTurn } from '../../markdown/work-budget.js';
import type { ChangeEventRecord } from '../../model/changes.js';
import type { ChunkRecord, EmbeddingCursorRecord, FileRecord } from '../../model/records.js';
import type { ChangeNotifier } from '../../ports/changes.js';
import type { Embedder } from '../../ports/embedder.js';
import type { ChunkPosition, RecordsRepository } from '../../ports/records.js';
import type { Clock } from '../../ports/runtime.js';
import { chunkMarkdown } from '../../semantic/chunks.js';
import { SEMANTIC_LIMITS } from '../../semantic/limits.js';
import { centroidBytes, centroidsOf, nearestList, sampled, trainLists } from '../../semantic/lists.js';
import { normalized, vectorBytes, vectorOf } from '../../semantic/vectors.js';
import type { MdStoreEvents } from '../context.js';

export interface SemanticIndexerOptions {
  readonly records: RecordsRepository;
  readonly embedder: Embedder;
  readonly clock: Clock;
  /** This instance's name on the leases it takes (unique per process). */
  readonly owner: string;
  readonly events?: MdStoreEvents;
  /**
   * Awaited before each file the indexer syncs and each call of the embedder: the server waits there
   * while writes are being served (at most a bound each time), so that writes come first (extensions
   * §15: turning embeddings on never slows a write). Absent, the indexer never waits.
   */
  readonly giveWay?: () => Promise<void>;
  /** Bounds (tests shorten them); the defaults are `SEMANTIC_LIMITS`. */
  readonly limits?: Partial<
    Record<
      | 'feedBatch'
      | 'leaseMs'
      | 'embedBatch'
      | 'chunkDeleteBatchRows'
      | 'chunkDeleteStepBatches'
      | 'listsTrainAt'
      | 'listsCount'
      | 'listsSample'
      | 'listsIterations'
      | 'listsAssignBatch',
      number
    >
  >;
}

/** What one step did. */
export interface IndexerStepReport {
  /** Accounts whose lease this step took and worked under. */
  readonly accounts: number;
  /** Change events handled (cursor moved past them). */
  readonly events: number;
  /** Files whose chunks were written (or removed). */
  readonly files: number;
  /** Chunk texts sent to the embedder (unchanged hashes are not). */
  readonly embedded: number;
  /** Accounts left with events after this step (another step has work). */
  readonly behind: number;
  /** Accounts whose batch failed (the embedder, the store): retried at a later step. */
  readonly failed: number;
}

/** An account's vector lists as the indexer files chunks in them. */
interface Lists {
  readonly generation: number;
  readonly centroids: readonly Float32Array[];
}

/** Thrown when the lease was lost mid-batch: the batch stops, the new holder redoes it. */
class LeaseLost extends Error {}

/**
 * The semantic indexer (extensions §15): follows each account's change feed after the commit, off the
 * request path, and keeps the chunks of every file embedded. Per account, one batch per step under the
 * account's lease (a conditional write on its cursor row, so instances sharing a store never work on one
 * account at once; a crashed holder's lease expires after `leaseMs`), its position (`seq`) saved with the
 * lease after the batch: a crash repeats at most one batch, which is idempotent (a file is synced to
 * what is stored now; an unchanged chunk hash is never embedded again). A cursor without a model (a first
 * start), with another model (the embedder changed), or behind the feed's retention (events pruned) is
 * caught up by a resync of every file of the account instead of the events.
 */
export function createSemanticIndexer(o: SemanticIndexerOptions) {
  const limits = { ...SEMANTIC_LIMITS, ...o.limits };
  const { records, embedder } = o;
  const warn = (message: string, details: Record<string, unknown>) => o.events?.warn(message, details);

  const claim = (accountId: string) => {
    const now = o.clock.now();
    return records.withTransaction((tx) =>
      tx.claimEmbeddingCursor({ accountId, owner: o.owner, now, until: now + limits.leaseMs }),
    );
  };

  const save = async (accountId: string, seq: number, release: boolean) => {
    const now = o.clock.now();
    const kept = await records.withTransaction((tx) =>
      tx.saveEmbeddingCursor({
        accountId,
        owner: o.owner,
        seq,
        model: embedder.model,
        leaseExpiresAt: release ? null : now + limits.leaseMs,
        now,
      }),
    );
    if (!kept) throw new LeaseLost();
  };

  const counters = { files: 0, embedded: 0 };

  /** The account's lists of the model as this step knows them (read once per account and step). */
  const listsKnown = new Map<string, Lists | null>();
  async function listsOf(accountId: string): Promise<Lists | null> {
    if (!listsKnown.has(accountId)) {
      const found = await records.findVectorLists({ accountId, model: embedder.model });
      listsKnown.set(
        accountId,
        found && { generation: found.generation, centroids: centroidsOf(found.centroids, found.dimensions) },
      );
    }
    return listsKnown.get(accountId)!;
  }

  /** The list a vector is filed in, or none without lists. */
  const filing = (lists: Lists | null, vector: Uint8Array) =>
    lists === null
      ? { listGeneration: null, listNo: null }
      : { listGeneration: lists.generation, listNo: nearestList(lists.centroids, vectorOf(vector)) };

  /**
   * Vector lists (extensions §15, `semantic/lists.ts`): trains an account's lists once it has
   * `listsTrainAt` chunks of the model, then files every chunk filed in none, `listsAssignBatch` a
   * transaction, renewing the lease between two. Run after each batch, it also finishes a filing a
   * crash cut short (the unfiled chunks are an index range of their own, empty in the usual case).
   */
  async function fileInLists(accountId: string): Promise<void> {
    const projectIds = (await records.listProjects({ accountId })).map((project) => project.id);
    if (projectIds.length === 0) return;
    let lists = await listsOf(accountId);
    if (lists === null) {
      const count = await records.countChunkVectors({
        projectIds,
        model: embedder.model,
        limit: limits.listsTrainAt,
      });
      if (count < limits.listsTrainAt) return;
      lists = await train(accountId, projectIds);
    }
    for (;;) {
      const unfiled = await records.listChunkVectors({
        projectIds,
        model: embedder.model,
        limit: limits.listsAssignBatch,
        lists: null,
      });
      if (unfiled.length === 0) return;
      const chunks: { fileId: string; ordinal: number; listNo: number }[] = [];
      for (const chunk of unfiled) {
        chunks.push({
          fileId: chunk.fileId,
          ordinal: chunk.ordinal,
          listNo: filing(lists, chunk.vector).listNo!,
        });
        if (chunks.length % 64 === 0) await giveTurn();
      }
      if ((await claim(accountId)) === null) throw new LeaseLost();
      await records.withTransaction((tx) => tx.setChunkLists({ generation: lists.generation, chunks }));
      if (unfiled.length < limits.listsAssignBatch) return;
    }
  }

  /** Trains and keeps the account's lists from a sample of its chunks (picked by hash). */
  async function train(accountId: string, projectIds: readonly string[]): Promise<Lists> {
    const total = await records.countChunkVectors({
      projectIds,
      model: embedder.model,
      limit: Number.MAX_SAFE_INTEGER,
    });
    const share = limits.listsSample / total;
    const sample: { hash: string; vector: Float32Array }[] = [];
    let after: ChunkPosition | undefined;
    for (;;) {
      const page = await records.listChunkVectors({
        projectIds,
        model: embedder.model,
        limit: SEMANTIC_LIMITS.vectorScanBatch,
        ...(after && { after }),
      });
      for (const chunk of page)
        if (sampled(chunk.hash, share)) sample.push({ hash: chunk.hash, vector: vectorOf(chunk.vector) });
      const last = page.at(-1);
      if (page.length < SEMANTIC_LIMITS.vectorScanBatch || last === undefined) break;
      after = { projectId: last.projectId, fileId: last.fileId, ordinal: last.ordinal };
      await giveTurn();
    }
    sample.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    const centroids = await trainLists(
      sample.map((entry) => entry.vector),
      { count: limits.listsCount, iterations: limits.listsIterations, turn: giveTurn },
    );
    if ((await claim(accountId)) === null) throw new LeaseLost();
    const previous = await records.findVectorLists({ accountId, model: embedder.model });
    const lists = { generation: (previous?.generation ?? 0) + 1, centroids };
    await records.withTransaction((tx) =>
      tx.saveVectorLists({
        accountId,
        model: embedder.model,
        generation: lists.generation,
        dimensions: embedder.dimensions,
        count: centroids.length,
        centroids: centroidBytes(centroids),
        trainedRows: total,
        createdAt: o.clock.now(),
      }),
    );
    listsKnown.set(accountId, lists);
    return lists;
  }

  /** Embeds the texts of the hashes not kept yet; the vectors as stored bytes, by hash. */
  async function vectorsOf(texts: ReadonlyMap<string, string>): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    const entries = [...texts];
    for (let start = 0; start < entries.length; start += limits.embedBatch) {
      const batch = entries.slice(start, start + limits.embedBatch);
      await o.giveWay?.();
      const vectors = await embedder.embed({ texts: batch.map(([, text]) => text), purpose: 'document' });
      if (vectors.length !== batch.length)
        throw new Error('The embedder answered a different number of vectors');
      for (const [i, [hash]] of batch.entries()) {
        const vector = vectors[i]!;
        if (vector.length !== embedder.dimensions)
          throw new Error(`The embedder answered ${vector.length} dimensions, not ${embedder.dimensions}`);
        out.set(hash, vectorBytes(normalized(vector)));
      }
      counters.embedded += batch.length;
    }
    return out;
  }

  /**
   * Deletes the chunks of a project that is no longer active, `chunkDeleteBatchRows` a transaction
   * (renewing the lease between two), until none is left (true) or `budget.batches` full batches have
   * been spent (false): the batch that finds fewer rows, which ends a project, is not counted, so that
   * every step either finishes its projects or deletes `budget.batches` full batches.
   */
  async function dropProjectChunks(
    accountId: string,
    projectId: string,
    budget: { batches: number },
  ): Promise<boolean> {
    for (let first = true; ; first = false) {
      if (!first && (await claim(accountId)) === null) throw new LeaseLost();
      const deleted = await records.withTransaction((tx) =>
        tx.deleteProjectChunks({ projectId, limit: limits.chunkDeleteBatchRows }),
      );
      if (deleted < limits.chunkDeleteBatchRows) return true;
      budget.batches -= 1;
      if (budget.batches <= 0) return false;
    }
  }

  /** Brings the chunks filed under `(projectId, filename)` to what is stored there now. */
  async function syncFile(accountId: string, projectId: string, filename: string): Promise<void> {
    counters.files += 1;
    const file = await records.findFile({ projectId, filename });
    if (file === null) {
      await records.withTransaction((tx) => tx.deleteFileChunks({ projectId, filename }));
      return;
    }
    await syncRecord(accountId, file);
  }

  async function syncRecord(accountId: string, file: FileRecord): Promise<void> {
    await o.giveWay?.();
    const [indexed] = await records.findSearchCandidates({
      projectIds: [file.projectId],
      query: null,
      conditions: [],
      fileIds: [file.id],
      withText: true,
      limit: 1,
    });
    const chunks = chunkMarkdown(indexed?.contentText ?? '');
    const kept = new Map<string, Uint8Array>();
    for (const chunk of await records.listFileChunks({ fileId: file.id }))
      if (chunk.model === embedder.model) kept.set(chunk.hash, chunk.vector);
    const missing = new Map<string, string>();
    for (const chunk of chunks) if (!kept.has(chunk.hash)) missing.set(chunk.hash, chunk.text);
    const fresh = await vectorsOf(missing);
    const lists = await listsOf(accountId);
    const rows: ChunkRecord[] = chunks.map((chunk) => {
      const vector = kept.get(chunk.hash) ?? fresh.get(chunk.hash)!;
      return {
        projectId: file.projectId,
        fileId: file.id,
        filename: file.filename,
        ordinal: chunk.ordinal,
        heading: chunk.heading,
        hash: chunk.hash,
        model: embedder.model,
        vector,
        ...filing(lists, vector),
      };
    });
    await records.withTransaction((tx) =>
      tx.replaceFileChunks({
        projectId: file.projectId,
        fileId: file.id,
        filename: file.filename,
        chunks: rows,
      }),
    );
  }

  /** Every file of the account's projects, synced; then the cursor at the head read before. */
  async function resync(cursor: EmbeddingCursorRecord, headSeq: number): Promise<void> {
    const projects = await records.listProjects({ accountId: cursor.accountId });
    for (const project of projects) {
      if (project.status !== 'active') {
        // A resync walks every file of the account anyway: it finishes the deletion, batch by batch.
        await dropProjectChunks(cursor.accountId, project.id, { batches: Number.POSITIVE_INFINITY });
        continue;
      }
      let after: { filename: string } | undefined;
      for (;;) {
        const page = await records.listFilePage({
          projectId: project.id,
          sort: 'filename',
          descending: false,
          prefix: '',
          limit: limits.feedBatch,
          ...(after && { after }),
        });
        for (const file of page) {
          counters.files += 1;
          await syncRecord(cursor.accountId, file);
        }
        // Renews the lease between pages (the cursor, model included, moves only at the end: a crash
        // mid-resync resyncs again, cheaply, since unchanged hashes are kept).
        if ((await claim(cursor.accountId)) === null) throw new LeaseLost();
        if (page.length < limits.feedBatch) break;
        after = { filename: page.at(-1)!.filename };
      }
    }
    await fileInLists(cursor.accountId);
    await save(cursor.accountId, headSeq, true);
  }

  /** The files an event batch touches, each once, in the order to sync them; deleted projects apart. */
  function plan(events: readonly ChangeEventRecord[]) {
    const files = new Map<string, { projectId: string; filename: string }>();
    const projects = new Set<string>();
    const touch = (projectId: string, filename: string | null) => {
      if (filename === null) return;
      const key = `${projectId}\u0000${filename}`;
      files.delete(key);
      files.set(key, { projectId, filename });
    };
    for (const event of events) {
      if (event.type === 'project.deleted') projects.add(event.projectId);
      if (!event.type.startsWith('file.')) continue;
      // A move syncs the new name first (its chunks keep their vectors), then the old one (none left).
      touch(event.projectId, event.filename);
      if (event.from !== null) touch(event.projectId, event.from);
    }
    return { files: [...files.values()], projects };
  }

  async function indexAccount(accountId: string): Promise<{ events: number; behind: boolean } | null> {
    const head = await records.findChangeFeedHead({ accountId });
    const known = await records.findEmbeddingCursor({ accountId });
    const current = known !== null && known.model === embedder.model && known.seq >= head.prunedThrough;
    if (current && known.seq >= head.lastSeq) return { events: 0, behind: false };
    // Writes first, before the lease is even claimed (a transaction of its own): under a steady load the
    // account's events gather into larger batches instead of one step per commit.
    await o.giveWay?.();
    const cursor = await claim(accountId);
    if (cursor === null) return null;
    if (cursor.model !== embedder.model || cursor.seq < head.prunedThrough) {
      await resync(cursor, head.lastSeq);
      return { events: 0, behind: false };
    }
    const events = await records.listChangeEvents({
      accountId,
      afterSeq: cursor.seq,
      limit: limits.feedBatch,
    });
    const { files, projects } = plan(events);
    const budget = { batches: limits.chunkDeleteStepBatches };
    for (const projectId of projects) {
      // Past the step's batches the position stays before these events: the next step deletes on.
      if (!(await dropProjectChunks(accountId, projectId, budget))) {
        await save(accountId, cursor.seq, true);
        return { events: 0, behind: true };
      }
    }
    for (const { projectId, filename } of files)
      if (!projects.has(projectId)) await syncFile(accountId, projectId, filename);
    await fileInLists(accountId);
    const last = events.at(-1)?.seq ?? cursor.seq;
    await save(accountId, last, true);
    return { events: events.length, behind: last < head.lastSeq };
  }

  return {
    /** One batch for every account that has events past its cursor (and whose lease is free). */
    async step(): Promise<IndexerStepReport> {
      counters.files = 0;
      counters.embedded = 0;
      listsKnown.clear();
      let accounts = 0;
      let events = 0;
      let behind = 0;
      let failed = 0;
      for (const account of await records.listAccounts()) {
        try {
          const done = await indexAccount(account.id);
          if (done === null) continue;
          if (done.events > 0 || done.behind) accounts += 1;
          events += done.events;
          if (done.behind) behind += 1;
        } catch (error) {
          failed += 1;
          if (!(error instanceof LeaseLost))
            warn('semantic indexer: batch failed, retried later', {
              accountId: account.id,
              error: String(error),
            });
          // The lease is left to expire: the batch is retried after `leaseMs` (by any instance), which
          // also spaces out the retries of a failing embedder.
        }
      }
      return { accounts, events, files: counters.files, embedded: counters.embedded, behind, failed };
    },
  };
}

export type SemanticIndexer = ReturnType<typeof createSemanticIndexer>;

/** Timers, injectable so that tests drive time themselves. */
export interface IndexerTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/**
 * Runs an indexer in the background: a step when the notifier says an account has new events, a sweep
 * every `intervalMs` (work another instance left, expired leases, retries), and steps back to back while
 * accounts are behind. `stop` waits for the step in flight.
 */
export function runSemanticIndexer(
  indexer: SemanticIndexer,
  o: { notifier?: ChangeNotifier; intervalMs: number; timers: IndexerTimers; events?: MdStoreEvents },
) {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let timer: unknown;
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const report = await indexer.step();
          if (report.behind > 0) again = true;
        } while (again && !stopped);
      } catch (error) {
        o.events?.warn('semantic indexer: step failed', { error: String(error) });
      } finally {
        running = null;
      }
    })();
  };
  const schedule = () => {
    timer = o.timers.set(() => {
      run();
      if (!stopped) schedule();
    }, o.intervalMs);
  };
  const unsubscribe = o.notifier?.subscribe(() => run());
  schedule();
  run();
  return {
    async stop(): Promise<void> {
      stopped = true;
      unsubscribe?.();
      o.timers.clear(timer);
      await running;
    },
  };
}
