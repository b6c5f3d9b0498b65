import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  type BlobStore,
  createMdStore,
  type MdStore,
  type MdStoreAdapters,
  type Principal,
  type RecordsReader,
} from '@mdstore/core';

import { readStoredContent } from '@mdstore/core/testing';

// Until the lead exports them from `@mdstore/core/testing`.
export * from '@mdstore/core/testing';

export const START = Date.UTC(2024, 0, 15, 9, 30, 0, 123);

/** A clock the test moves by hand, so reconciliation can be run past the write deadline. */
export function manualClock(start = START) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

export async function tempDir(prefix: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `mdstore-faults-${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function* bytesOf(text: string, chunkBytes = 16 * 1024): AsyncIterable<Uint8Array> {
  const all = new TextEncoder().encode(text);
  for (let offset = 0; offset < all.length; offset += chunkBytes)
    yield all.slice(offset, offset + chunkBytes);
}

export async function readText(content: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return new TextDecoder().decode(Buffer.concat(chunks));
}

export async function listKeys(blobs: BlobStore, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of blobs.list!({ bucket })) keys.push(entry.key);
  return keys.sort();
}

/** Files in a folder tree (e.g. the fs store's `.tmp`), to show that no partial upload is left. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

export interface Scene {
  readonly store: MdStore;
  readonly principal: Principal;
  readonly projectId: string;
  readonly bucket: string;
}

/**
 * These suites inject failures into the blob store and around the blob path (staged note, write,
 * commit): their contents, small as they are, must go to the blob store. The inline path's failures are
 * covered by the fault property over both forms (packages/core/test/faults) and the tests that say so.
 */
export const BLOB_FORM = { inlineMaxBytes: 0 } as const;

/** A core on the given adapters with one account; `keep.md` is uploaded into its default project. */
export async function sceneWithOneFile(adapters: MdStoreAdapters, keep = '# kept\n'): Promise<Scene> {
  const store = createMdStore(adapters);
  const created = await store.accounts.create({ name: 'alice' });
  const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  const projectId = created.defaultProject.id;
  await store.files.upload({
    principal,
    projectId,
    filename: 'keep.md',
    content: bytesOf(keep),
    metadata: '{"v":1}',
  });
  return { store, principal, projectId, bucket: created.defaultProject.bucketName };
}

/**
 * The client-facing state of the project, read through the unfaulted records and blob store: file names,
 * counters, and each file's bytes as stored. Two equal snapshots mean nothing visible changed.
 */
export async function snapshot(
  records: RecordsReader,
  blobs: BlobStore,
  projectId: string,
): Promise<{ counters: [number, number]; files: Record<string, string>; keys: string[] }> {
  const project = await records.findProjectById({ projectId });
  if (!project) throw new Error('project missing');
  const files: Record<string, string> = {};
  for (const file of await records.listFiles({ projectId })) {
    const bytes = await readStoredContent({ records, blobs }, project, file);
    files[file.filename] = bytes ? new TextDecoder().decode(bytes) : '<missing content>';
  }
  return {
    counters: [project.fileCount, project.totalSizeBytes],
    files,
    keys: await listKeys(blobs, project.bucketName),
  };
}
