import {
  type BlobStore,
  createMdStore,
  type ErrorCode,
  isMdStoreError,
  type MdStore,
  type MdStoreAdapters,
  type MdStoreSettings,
  type Principal,
  type RateLimiter,
  type RecordsRepository,
  type RecordsTransaction,
} from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';

export const START = Date.UTC(2024, 0, 15, 9, 30, 0, 123);

/** A clock the test moves by hand. */
export interface ManualClock {
  now(): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(start = START): ManualClock {
  let value = start;
  return {
    now: () => value,
    set: (ms) => {
      value = ms;
    },
    advance: (ms) => {
      value += ms;
    },
  };
}

export interface Fixture {
  readonly store: MdStore;
  readonly records: RecordsRepository;
  readonly blobs: BlobStore;
  readonly rateLimiter: RateLimiter;
  readonly clock: ManualClock;
  /** Another core instance on the same adapters (e.g. a restarted process). */
  restart(overrides?: Partial<MdStoreAdapters>): MdStore;
}

/**
 * A core on fresh memory adapters. `wrap` lets a test put a faulty wrapper around an adapter while the
 * fixture keeps the inner one, so the test can inspect what really got stored.
 */
export function createFixture(
  options: {
    settings?: Partial<MdStoreSettings>;
    wrapBlobs?: (inner: BlobStore) => BlobStore;
    wrapRecords?: (inner: RecordsRepository) => RecordsRepository;
  } = {},
): Fixture {
  const records = createMemoryRecords();
  const blobs = createMemoryBlobStore();
  const rateLimiter = createMemoryRateLimiter();
  const clock = manualClock();
  const adapters: MdStoreAdapters = {
    records: options.wrapRecords?.(records) ?? records,
    blobs: options.wrapBlobs?.(blobs) ?? blobs,
    rateLimiter,
    clock,
    settings: options.settings,
  };
  return {
    store: createMdStore(adapters),
    records,
    blobs,
    rateLimiter,
    clock,
    restart: (overrides = {}) => createMdStore({ records, blobs, rateLimiter, clock, ...overrides }),
  };
}

export interface TestAccount {
  readonly principal: Principal;
  readonly apiKey: string;
  readonly accountId: string;
  readonly defaultProjectId: string;
}

export async function anAccount(store: MdStore, name: string): Promise<TestAccount> {
  const created = await store.accounts.create({ name });
  return {
    principal: await store.authenticate({ apiKey: created.apiKey.apiKey }),
    apiKey: created.apiKey.apiKey,
    accountId: created.account.id,
    defaultProjectId: created.defaultProject.id,
  };
}

/** The code an async operation fails with, or 'OK'. */
export async function codeOf(run: () => Promise<unknown>): Promise<ErrorCode | 'OK'> {
  try {
    await run();
    return 'OK';
  } catch (error) {
    if (isMdStoreError(error)) return error.code;
    throw error;
  }
}

const encoder = new TextEncoder();

/** Content as the core takes it: an async iterable of chunks, optionally pausing between chunks. */
export async function* textStream(
  text: string,
  options: { chunkBytes?: number; pause?: () => Promise<void> } = {},
): AsyncIterable<Uint8Array> {
  const bytes = encoder.encode(text);
  const size = options.chunkBytes ?? Math.max(1, bytes.length);
  for (let offset = 0; offset < bytes.length; offset += size) {
    if (options.pause) await options.pause();
    yield bytes.slice(offset, offset + size);
  }
}

export async function readText(content: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** Every key of a bucket in the inner blob store. */
export async function blobKeys(blobs: BlobStore, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of blobs.list!({ bucket })) keys.push(entry.key);
  return keys.sort();
}

/** A records repository whose transactions see `tx` through `wrapTx` (to make one write fail). */
export function withTransactionWrapper(
  inner: RecordsRepository,
  wrapTx: (tx: RecordsTransaction) => RecordsTransaction,
): RecordsRepository {
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'withTransaction') {
        return <T>(work: (tx: RecordsTransaction) => Promise<T>) =>
          target.withTransaction((tx) => work(wrapTx(tx)));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A transaction in which `method` throws `error` while `when()` says so; every other call passes through. */
export function failingMethod(
  tx: RecordsTransaction,
  method: keyof RecordsTransaction,
  error: () => Error,
  when: () => boolean = () => true,
): RecordsTransaction {
  return new Proxy(tx, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === method && when()) {
        return async () => {
          throw error();
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The two forms content is stored in (issue 10): inline in the records store, or in the blob store. */
export const STORAGE_FORMS = [
  ['inline', 64 * 1024],
  ['blob', 0],
] as const;

/** `target` with some members replaced; every other one passes through (methods bound to `target`). */
export function overriding<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(inner, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value = Reflect.get(inner, property, inner);
      return typeof value === 'function' ? value.bind(inner) : value;
    },
  });
}
