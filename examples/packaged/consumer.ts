// Type-checked in a project that installed the tarballs: every package resolves to its built types.
import { createClient, type MdStoreFile, type Project } from '@mdstore/client';
import { toNodeReadable } from '@mdstore/client/node';
import { createMdStore, type MdStore } from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { createMemoryRecords } from '@mdstore/memory';
import type { PostgresStore } from '@mdstore/postgres';
import type { S3Layout } from '@mdstore/s3';
import { openSqliteStore } from '@mdstore/sqlite';

export async function check(): Promise<string> {
  const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'k' });
  const project: Project = await client.projects.getDefault();
  const file: MdStoreFile = await client.files.upload(project.id, 'a.md', '# a');
  const store: MdStore = createMdStore({
    records: createMemoryRecords(),
    blobs: createFsBlobStore({ root: 'blobs' }),
    rateLimiter: (await openSqliteStore({ path: 'x.db' })).rateLimiter,
  });
  const layouts: Array<PostgresStore | S3Layout> = [];
  toNodeReadable(await client.files.download(project.id, file.filename));
  return `${store.instanceId} ${layouts.length}`;
}
