import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BlobStore, ByteStream } from '@mdstore/core';
import { afterEach } from 'vitest';
import { createFsBlobStore } from '../src/index.js';

/** A fresh root per test, removed afterwards. */
export function useTempRoots(): () => Promise<string> {
  const roots: string[] = [];
  afterEach(async () => {
    await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
  });
  return async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'mdstore-fs-'));
    roots.push(root);
    return root;
  };
}

export async function freshStore(
  makeRoot: () => Promise<string>,
): Promise<{ store: BlobStore; root: string }> {
  const parent = await makeRoot();
  const root = path.join(parent, 'blobs');
  return { store: createFsBlobStore({ root }), root };
}

export async function* bytesOf(...chunks: (string | Uint8Array)[]): ByteStream {
  for (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

export async function readAll(content: ByteStream): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export async function getText(store: BlobStore, bucket: string, key: string): Promise<string> {
  const { content } = await store.get({ bucket, key });
  return (await readAll(content)).toString();
}

export const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

export const tempFiles = (root: string) => readdir(path.join(root, '.tmp'));
