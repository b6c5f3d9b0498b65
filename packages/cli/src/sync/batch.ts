import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import {
  type ChangesetOperation,
  type ChangesetResult,
  MdStoreApiError,
  type MdStoreClient,
} from '@mdstore/client';
import { extract } from 'tar-stream';
import { LocalChangedError, readLocal, writeLocal } from './local.js';

/**
 * Batched transfers (issue 27): a push sends its writes as changesets (extensions §9), a pull reads its
 * downloads as one export of their common folder (§10), so a folder of 1 000 files costs a handful of
 * requests instead of one per file. Each file keeps its own outcome: a write the server refuses (412, 409…)
 * is reported for that file and the rest of its changeset sent again without it.
 */

/** At most this many operations per changeset (the server's limit). */
export const CHANGESET_MAX_OPERATIONS = 1000;
/** Content per changeset: well under the server's `MDSTORE_MAX_FILE_BYTES` × 4 at its default (40 MiB). */
export const CHANGESET_MAX_CONTENT_BYTES = 8 * 1024 * 1024;

export interface BatchStep {
  readonly name: string;
  readonly action: 'upload' | 'delete-remote' | 'download' | 'delete-local';
  readonly etag?: string;
  readonly sha256?: string;
}

export interface StepOutcome {
  readonly step: BatchStep;
  /** undefined: done. */
  readonly error?: unknown;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A push's uploads and remote deletes, as changesets; `single` handles what a changeset cannot carry. */
export async function pushInChangesets(
  client: MdStoreClient,
  root: string,
  projectId: string,
  steps: readonly BatchStep[],
  o: {
    single: (step: BatchStep) => Promise<void>;
    done: (outcome: StepOutcome) => void;
    /** Operations per changeset (default and most: `CHANGESET_MAX_OPERATIONS`). */
    maxOperations?: number;
  },
): Promise<void> {
  const maxOperations = Math.min(o.maxOperations ?? CHANGESET_MAX_OPERATIONS, CHANGESET_MAX_OPERATIONS);
  let batch: Array<{ step: BatchStep; op: ChangesetOperation; bytes: number }> = [];
  let bytes = 0;
  /** The server has no changesets: everything goes file by file. */
  let single = false;
  const flush = async () => {
    const sending = batch;
    batch = [];
    bytes = 0;
    if (sending.length === 0) return;
    const settled = new Set<BatchStep>();
    const done = (outcome: StepOutcome) => {
      settled.add(outcome.step);
      o.done(outcome);
    };
    try {
      await applyBatch(client, projectId, sending, done, maxOperations);
    } catch (error) {
      if (!lacksExtension(error)) throw error;
      single = true;
      for (const { step } of sending) if (!settled.has(step)) await runSingle(step, o);
    }
  };
  for (const step of steps) {
    if (single) {
      await runSingle(step, o);
      continue;
    }
    let entry: { step: BatchStep; op: ChangesetOperation; bytes: number };
    if (step.action === 'delete-remote') {
      entry = { step, op: { op: 'delete', filename: step.name, if_match: step.etag! }, bytes: 0 };
    } else {
      const now = await readLocal(root, step.name);
      if (now === undefined) {
        o.done({ step, error: new LocalChangedError(step.name) });
        continue;
      }
      let content: string;
      try {
        content = decoder.decode(now.bytes);
      } catch {
        // Not UTF-8 text: sent on its own, for the server to judge.
        await runSingle(step, o);
        continue;
      }
      const op: ChangesetOperation = { op: 'put', filename: step.name, content, if_match: step.etag ?? null };
      entry = { step, op, bytes: now.bytes.length };
    }
    if (
      batch.length >= maxOperations ||
      (batch.length > 0 && bytes + entry.bytes > CHANGESET_MAX_CONTENT_BYTES)
    ) {
      await flush();
    }
    batch.push(entry);
    bytes += entry.bytes;
  }
  await flush();
}

async function runSingle(
  step: BatchStep,
  o: { single: (step: BatchStep) => Promise<void>; done: (outcome: StepOutcome) => void },
) {
  try {
    await o.single(step);
    o.done({ step });
  } catch (error) {
    o.done({ step, error });
  }
}

/**
 * Whether a batched request failed because the server lacks the extension (changesets or export, of
 * extensions §9 and §10): a server of the interface alone answers their routes 404 (or 405, 501) and
 * names no file. Transfers then go file by file, as they did before the extensions.
 */
export function lacksExtension(error: unknown): boolean {
  return (
    error instanceof MdStoreApiError &&
    [404, 405, 501].includes(error.status) &&
    failedOperation(error) === undefined
  );
}

/** The operation a changeset's refusal names (`["body","operations",i,…]`), or undefined. */
function failedOperation(error: unknown): number | undefined {
  if (!(error instanceof MdStoreApiError) || typeof error.detail === 'string') return undefined;
  const loc = error.detail[0]?.loc;
  return loc?.[0] === 'body' && loc[1] === 'operations' && typeof loc[2] === 'number' ? loc[2] : undefined;
}

/**
 * One changeset; when the server refuses one of its operations, that file gets the refusal and the others
 * go again (a changeset is all or nothing, a push is per file). Other failures fail every file of it.
 */
async function applyBatch(
  client: MdStoreClient,
  projectId: string,
  batch: Array<{ step: BatchStep; op: ChangesetOperation }>,
  done: (outcome: StepOutcome) => void,
  maxOperations: number,
): Promise<void> {
  await applyChangesets(
    client,
    projectId,
    batch.map(({ step, op }) => ({ key: step, op })),
    { applied: (step) => done({ step }), refused: (step, error) => done({ step, error }), maxOperations },
  );
}

/** What a changeset answered for one operation: the file after it (or a delete's name). */
export type AppliedFile = ChangesetResult['files'][number];

/**
 * Operations sent as changesets of at most `CHANGESET_MAX_OPERATIONS` and `CHANGESET_MAX_CONTENT_BYTES`;
 * an operation the server refuses (the refusal names it) is handed to `refused` and the rest of its
 * changeset sent again. A failure that names no operation is thrown.
 */
export async function applyChangesets<K>(
  client: MdStoreClient,
  projectId: string,
  entries: ReadonlyArray<{ key: K; op: ChangesetOperation }>,
  o: {
    applied: (key: K, file: AppliedFile) => void;
    refused: (key: K, error: unknown) => void;
    /** Runs after each changeset the server took, once `applied` has seen its files, before the next goes. */
    acknowledged?: () => Promise<void>;
    message?: string;
    /** Operations per changeset (default and most: `CHANGESET_MAX_OPERATIONS`). */
    maxOperations?: number;
  },
): Promise<void> {
  const batches: Array<Array<{ key: K; op: ChangesetOperation }>> = [[]];
  const maxOperations = Math.min(o.maxOperations ?? CHANGESET_MAX_OPERATIONS, CHANGESET_MAX_OPERATIONS);
  let bytes = 0;
  for (const entry of entries) {
    const size = changesetBytes(entry.op);
    const current = batches.at(-1)!;
    if (
      current.length >= maxOperations ||
      (current.length > 0 && bytes + size > CHANGESET_MAX_CONTENT_BYTES)
    ) {
      batches.push([]);
      bytes = 0;
    }
    batches.at(-1)!.push(entry);
    bytes += size;
  }
  for (let pending of batches) {
    while (pending.length > 0) {
      try {
        const result = await client.changesets.apply(
          projectId,
          pending.map((entry) => entry.op),
          { message: o.message ?? 'mdstore push' },
        );
        for (const [i, entry] of pending.entries()) o.applied(entry.key, result.files[i]!);
        await o.acknowledged?.();
        break;
      } catch (error) {
        const index = failedOperation(error);
        if (index === undefined || index >= pending.length) throw error;
        o.refused(pending[index]!.key, error);
        pending = pending.filter((_, i) => i !== index);
      }
    }
  }
}

/** What an operation counts against `CHANGESET_MAX_CONTENT_BYTES`: its content's UTF-8 size. */
export const changesetBytes = (op: ChangesetOperation): number =>
  op.op === 'put' ? Buffer.byteLength(op.content, 'utf8') : 0;

/** The longest folder prefix (ending in `/`, or empty) shared by every name. */
export function commonFolder(names: readonly string[]): string {
  if (names.length === 0) return '';
  let prefix = names[0]!.slice(0, names[0]!.lastIndexOf('/') + 1);
  for (const name of names) {
    while (!name.startsWith(prefix)) prefix = prefix.slice(0, prefix.slice(0, -1).lastIndexOf('/') + 1);
  }
  return prefix;
}

/**
 * Reads one export (tar.gz) of the common folder of `names` as it streams, handing each of those files'
 * bytes to `take` (the others are passed over); resolves with the names the export did not hold.
 */
export async function readExported(
  client: MdStoreClient,
  projectId: string,
  names: readonly string[],
  take: (name: string, bytes: Buffer) => Promise<void> | void,
): Promise<string[]> {
  const wanted = new Set(names);
  const prefix = commonFolder(names);
  const archive = await client.projects.export(projectId, {
    format: 'tar.gz',
    ...(prefix !== '' && { prefix }),
  });
  const reader = extract();
  Readable.fromWeb(archive.body as Parameters<typeof Readable.fromWeb>[0])
    .pipe(createGunzip())
    .on('error', (error) => reader.destroy(error))
    .pipe(reader);
  for await (const entry of reader) {
    const name = entry.header.name;
    if (!wanted.has(name) || entry.header.type !== 'file') {
      entry.resume();
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
    wanted.delete(name);
    await take(name, Buffer.concat(chunks));
  }
  return [...wanted];
}

/**
 * A pull's downloads from one export of their common folder: each file is written in place (with the
 * local check of its step) as it comes. A file the export lacks (deleted meanwhile) is reported as gone.
 * Resolves with the steps left to download one by one: all of them on a server without export.
 */
export async function pullFromExport(
  client: MdStoreClient,
  root: string,
  projectId: string,
  steps: readonly BatchStep[],
  done: (outcome: StepOutcome) => void,
): Promise<BatchStep[]> {
  const byName = new Map(steps.map((step) => [step.name, step]));
  let missing: string[];
  try {
    missing = await readExported(client, projectId, [...byName.keys()], async (name, bytes) => {
      const step = byName.get(name)!;
      try {
        await writeLocal(root, name, bytes, step.sha256 === undefined ? 'absent' : { sha256: step.sha256 });
        done({ step });
      } catch (error) {
        done({ step, error });
      }
    });
  } catch (error) {
    // No export on this server (and nothing read yet): every step is left to the per-file path.
    if (lacksExtension(error)) return [...steps];
    throw error;
  }
  for (const name of missing) done({ step: byName.get(name)!, error: new RemoteGoneError(name) });
  return [];
}

/** A file listed on the server and gone from it by the time the pull's export read it. */
export class RemoteGoneError extends Error {
  constructor(readonly filename: string) {
    super(`${filename}: deleted on the server during the pull`);
    this.name = 'RemoteGoneError';
  }
}
