import { createHash } from 'node:crypto';
import type { BlobStore, RecordsRepository, RecordsTransaction } from '@mdstore/core';
import { expectedAccounting } from '@mdstore/core/testing';
import { expect } from 'vitest';
import { type AdapterFactory, selectedAdapters, type TestAdapters } from './adapters.js';
import type { HttpHarness } from './http-harness.js';

/**
 * Tools of the extensions §2 suites (conditional requests, ranges, digests, settings, races): adapters
 * that note every content version written and every ranged read, and the checks that nothing a refused
 * write sent was kept.
 */

export const sha256Hex = (bytes: string | Uint8Array): string =>
  createHash('sha256').update(bytes).digest('hex');

/** `Repr-Digest` / `Content-Digest` value of `bytes` (RFC 9530). */
export const sha256Field = (bytes: string | Uint8Array): string =>
  `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;

/** What the spying adapters saw. */
export interface Spied {
  /** Every content version a transaction wrote inline: `projectId\0contentKey`. */
  readonly inline: Set<string>;
  /** Every object put in the blob store: `bucket\0key`. */
  readonly blobs: Set<string>;
  /** Every `BlobStore.get`, with the range it asked for. */
  readonly gets: Array<{ bucket: string; key: string; range: { start: number; end: number } | undefined }>;
}

/** Binds a method of an adapter object (adapters may be classes). */
function bound<T extends object>(target: T, name: PropertyKey): unknown {
  const value = Reflect.get(target, name, target) as unknown;
  return typeof value === 'function' ? value.bind(target) : value;
}

function spyingTransaction(tx: RecordsTransaction, spied: Spied): RecordsTransaction {
  return new Proxy(tx, {
    get(target, name) {
      if (name === 'insertInlineContent') {
        return (c: Parameters<RecordsTransaction['insertInlineContent']>[0]) => {
          spied.inline.add(`${c.projectId}\0${c.contentKey}`);
          return target.insertInlineContent(c);
        };
      }
      return bound(target, name);
    },
  });
}

function spyingRecords(records: RecordsRepository, spied: Spied): RecordsRepository {
  return new Proxy(records, {
    get(target, name) {
      if (name === 'withTransaction') {
        return <R>(work: (tx: RecordsTransaction) => Promise<R>) =>
          target.withTransaction((tx) => work(spyingTransaction(tx, spied)));
      }
      return bound(target, name);
    },
  });
}

function spyingBlobs(blobs: BlobStore, spied: Spied): BlobStore {
  return new Proxy(blobs, {
    get(target, name) {
      if (name === 'put') {
        return (o: Parameters<BlobStore['put']>[0]) => {
          spied.blobs.add(`${o.bucket}\0${o.key}`);
          return target.put(o);
        };
      }
      if (name === 'get') {
        return (o: Parameters<BlobStore['get']>[0]) => {
          spied.gets.push({ bucket: o.bucket, key: o.key, range: o.range && { ...o.range } });
          return target.get(o);
        };
      }
      return bound(target, name);
    },
  });
}

/**
 * The adapter set the suite runs on (see `selectedAdapters`, chosen when the test starts), with every
 * inline content and blob written, and every blob read, noted in `spied`.
 */
export function spyingAdapters(): { factory: AdapterFactory; spied: Spied } {
  const spied: Spied = { inline: new Set(), blobs: new Set(), gets: [] };
  const factory: AdapterFactory = async () => {
    const adapters: TestAdapters = await selectedAdapters()();
    return {
      ...adapters,
      records: spyingRecords(adapters.records, spied),
      blobs: spyingBlobs(adapters.blobs, spied),
    };
  };
  return { factory, spied };
}

/**
 * Nothing is left of writes that did not commit: every content version ever written (noted by the
 * spying adapters) is still stored exactly when a kept revision points to it; no blob intent remains;
 * the project's counters are what its records add up to.
 */
export async function expectNothingLeftBehind(
  h: HttpHarness,
  spied: Spied,
  projectId: string,
): Promise<void> {
  const { records, blobs } = h.adapters;
  expect(await records.listBlobIntents({ limit: 10 })).toEqual([]);
  const project = (await records.findProjectById({ projectId }))!;
  const accounting = await expectedAccounting(records, project);
  expect({
    fileCount: project.fileCount,
    totalSizeBytes: project.totalSizeBytes,
    historySizeBytes: project.historySizeBytes,
    trashSizeBytes: project.trashSizeBytes,
  }).toEqual({
    fileCount: accounting.fileCount,
    totalSizeBytes: accounting.totalSizeBytes,
    historySizeBytes: accounting.historySizeBytes,
    trashSizeBytes: accounting.trashSizeBytes,
  });
  const keptInline = new Set<string>();
  for (const file of accounting.files) {
    for (const revision of await records.listRevisionContents({ fileId: file.id })) {
      if (revision.inline) keptInline.add(revision.contentKey);
    }
  }
  for (const entry of spied.inline) {
    const [owner, contentKey] = entry.split('\0') as [string, string];
    if (owner !== projectId) continue;
    const stored = await records.readInlineContent({ projectId, contentKey });
    expect(stored !== null, `inline content ${contentKey} kept: ${stored !== null}`).toBe(
      keptInline.has(contentKey),
    );
  }
  for (const entry of spied.blobs) {
    const [bucket, key] = entry.split('\0') as [string, string];
    if (bucket !== project.bucketName) continue;
    const stored = await blobs.stat({ bucket, key });
    expect(stored !== null, `blob ${key} kept: ${stored !== null}`).toBe(accounting.blobKeys.has(key));
  }
}

/** A file as the API describes it after a write. */
export interface FileAnswer {
  readonly etag: string;
  readonly revision: number;
  readonly sha256: string;
  readonly updated_date: string;
  readonly size_bytes: number;
  readonly metadata: unknown;
}

export async function projectWithFile(
  h: HttpHarness,
  content: string | Uint8Array = '# hello\n',
  o: { filename?: string; metadata?: unknown } = {},
) {
  const { apiKey } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Conditional');
  const filename = o.filename ?? 'doc.md';
  const file = (await h.uploadFile(
    apiKey,
    projectId,
    filename,
    content,
    o.metadata,
  )) as unknown as FileAnswer;
  const path = `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;
  return { apiKey, projectId, filename, path, file };
}

/** The current state of a file as the API shows it: its list item and its bytes. */
export async function fileState(h: HttpHarness, key: string, projectId: string, filename: string) {
  const list = (await (await h.fetch(`/api/projects/${projectId}/files`, { key })).json()) as {
    files: Array<FileAnswer & { filename: string }>;
  };
  const item = list.files.find((file) => file.filename === filename);
  const download = await h.fetch(`/api/projects/${projectId}/files/${encodeURIComponent(filename)}`, { key });
  const body = download.status === 200 ? Buffer.from(await download.arrayBuffer()) : null;
  if (download.status !== 200) await download.arrayBuffer();
  return { item, body, status: download.status };
}

export async function projectJson(h: HttpHarness, key: string, projectId: string) {
  const response = await h.fetch(`/api/projects/${projectId}`, { key });
  return { etag: response.headers.get('etag'), body: (await response.json()) as Record<string, unknown> };
}
