import {
  BlobNotFoundError,
  type BlobStore,
  createMdStore,
  isMdStoreError,
  type MdStoreSettings,
  type RecordsRepository,
  type RecordsTransaction,
  type ValidationIssue,
} from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { anAccount, manualClock, textStream } from './fixture.js';

/**
 * A store on the memory adapters for the core tests of the read side of history, the parts of a file and
 * projects: a blob store that can fail reads on demand, records that can be spied on, and helpers for
 * the errors the use cases fail with.
 */

export const KEY = new Uint8Array(32).fill(7);
export const BLOB = { inlineMaxBytes: 0 };
export const INLINE = { inlineMaxBytes: 64 * 1024 };

/** How the blob store misbehaves for the next `left` reads. */
export interface Faults {
  left: number;
  /** `open`: the get itself says the blob is gone; `stream`: it goes after the first byte; `error`: another failure mid-stream. */
  mode: 'open' | 'stream' | 'error';
  /** Every read of a blob, counted. */
  gets: number;
  /** Chunks of this many bytes (the memory store sends one chunk). */
  chunkBytes?: number;
}

export function faultyBlobs(faults: Faults) {
  return (inner: BlobStore): BlobStore => ({
    ...inner,
    get: async (o) => {
      faults.gets++;
      if (faults.left > 0 && faults.mode === 'open') {
        faults.left--;
        throw new BlobNotFoundError(o.bucket, o.key);
      }
      const opened = await inner.get(o);
      if (faults.left > 0) {
        faults.left--;
        const mode = faults.mode;
        async function* broken() {
          for await (const chunk of opened.content) {
            yield chunk.subarray(0, 1);
            break;
          }
          if (mode === 'error') throw new Error('disk on fire');
          throw new BlobNotFoundError(o.bucket, o.key);
        }
        return { sizeBytes: opened.sizeBytes, content: broken() };
      }
      const size = faults.chunkBytes;
      if (!size) return opened;
      async function* split() {
        for await (const chunk of opened.content) {
          for (let at = 0; at < chunk.length; at += size!) yield chunk.subarray(at, at + size!);
        }
      }
      return { sizeBytes: opened.sizeBytes, content: split() };
    },
  });
}

export async function scene(
  settings: Partial<MdStoreSettings> = BLOB,
  wrapRecords: (inner: RecordsRepository) => RecordsRepository = (inner) => inner,
) {
  const inner0 = createMemoryRecords();
  const records = wrapRecords(inner0);
  const inner = createMemoryBlobStore();
  const faults: Faults = { left: 0, mode: 'open', gets: 0 };
  const blobs = faultyBlobs(faults)(inner);
  const clock = manualClock();
  const store = createMdStore({
    records,
    blobs,
    rateLimiter: createMemoryRateLimiter(),
    clock,
    settings,
    cursorKey: KEY,
  });
  const alice = await anAccount(store, 'alice');
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  return { store, records: inner0, blobs: inner, faults, clock, alice, at };
}

/** A file `a.md` written once per text (upload, then content updates) in a project keeping two revisions. */
export async function fileKeepingTwo(
  store: Awaited<ReturnType<typeof scene>>['store'],
  principal: Awaited<ReturnType<typeof scene>>['at']['principal'],
  texts: readonly string[],
) {
  const project = await store.projects.create({
    principal,
    body: { name: 'short', settings: { keep_revisions: 2 } },
  });
  const file = { principal, projectId: project.id, filename: 'a.md' };
  const [first, ...rest] = texts;
  await store.files.upload({ ...file, content: textStream(first ?? '') });
  for (const text of rest) await store.files.updateContent({ ...file, content: textStream(text) });
  return file;
}

/** The error an operation fails with (an MdStoreError), with its issues when it has some. */
export async function failure(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    const issues = (error as { issues?: readonly ValidationIssue[] }).issues;
    return { code: error.code, message: error.message, issues };
  }
  throw new Error('expected a failure');
}

/** Records that count calls, and can hide a name in use from the core's own checks (as a race would). */
export interface RecordsSpy {
  hidePreCheck: boolean;
  hideInTx: boolean;
  calls: { transactions: number; insertProject: number; updateProject: number };
}

export function spyRecords(spy: RecordsSpy) {
  const counted = new Set(['insertProject', 'updateProject']);
  const wrapTx = (tx: RecordsTransaction): RecordsTransaction =>
    new Proxy(tx, {
      get(target, property) {
        if (property === 'findActiveProjectByName') {
          return async (q: Parameters<RecordsTransaction['findActiveProjectByName']>[0]) =>
            spy.hideInTx ? null : target.findActiveProjectByName(q);
        }
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (typeof property === 'string' && counted.has(property))
            spy.calls[property as 'insertProject' | 'updateProject']++;
          return value.apply(target, args);
        };
      },
    });
  return (inner: RecordsRepository): RecordsRepository =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'findActiveProjectByName') {
          return async (q: Parameters<RecordsRepository['findActiveProjectByName']>[0]) =>
            spy.hidePreCheck ? null : target.findActiveProjectByName(q);
        }
        if (property === 'withTransaction') {
          return <T>(work: (tx: RecordsTransaction) => Promise<T>) => {
            spy.calls.transactions++;
            return target.withTransaction((tx) => work(wrapTx(tx)));
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

export const UNKNOWN_PROJECT = '00000000-0000-4000-8000-000000000000';
