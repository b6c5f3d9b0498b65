// Embedding mdstore from the npm packages: the core on SQLite and the filesystem, no server. Run in a
// project that installed @mdstore/core, @mdstore/sqlite and @mdstore/fs; the data goes to DATA_DIR.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createMdStore } from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { openSqliteStore } from '@mdstore/sqlite';

const dataDir = process.env.DATA_DIR ?? 'data';
await mkdir(dataDir, { recursive: true });
const sqlite = await openSqliteStore({ path: join(dataDir, 'mdstore.db') });
const blobs = createFsBlobStore({ root: join(dataDir, 'blobs') });
const store = createMdStore({ records: sqlite.records, blobs, rateLimiter: sqlite.rateLimiter });
try {
  const account = await store.accounts.create({ name: 'packaged' });
  const principal = await store.authenticate({ apiKey: account.apiKey.apiKey });
  const project = await store.projects.create({ principal, body: { name: 'Packaged' } });
  const text = '# Installed from tarballs\n\nr\u00e9sum\u00e9\n';
  async function* content() {
    yield new TextEncoder().encode(text);
  }
  const file = await store.files.upload({
    principal,
    projectId: project.id,
    filename: 'hello.md',
    content: content(),
  });
  assert.equal(file.sizeBytes, Buffer.byteLength(text));
  const download = await store.files.download({ principal, projectId: project.id, filename: 'hello.md' });
  const chunks = [];
  for await (const chunk of download.content) chunks.push(chunk);
  assert.equal(Buffer.concat(chunks).toString('utf8'), text);
  const list = await store.files.list({ principal, projectId: project.id });
  assert.deepEqual(
    list.files.map((f) => f.filename),
    ['hello.md'],
  );
  console.log(`embedding: ok (${file.storagePath})`);
} finally {
  await blobs.close();
  await sqlite.close();
}
