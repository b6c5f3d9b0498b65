/**
 * Embedding mdstore in a Node program, without any HTTP server: the core with the in-memory adapters.
 * Run from the repository root with `npm run example`. The program checks its own results and exits
 * with a non-zero status (an uncaught error) when anything differs from what it expects.
 */
import assert from 'node:assert/strict';
import { createMdStore } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';

/** File content arrives as any async iterable of byte chunks: here, a string cut into pieces. */
async function* fromString(text: string, chunkBytes = 16): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let offset = 0; offset < bytes.length; offset += chunkBytes)
    yield bytes.subarray(offset, offset + chunkBytes);
}

async function readAsText(content: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const records = createMemoryRecords();
const blobs = createMemoryBlobStore();
const rateLimiter = createMemoryRateLimiter();
const store = createMdStore({ records, blobs, rateLimiter });

try {
  // An account comes with an API key and a default project; the key identifies the caller.
  const account = await store.accounts.create({ name: 'embedding-demo' });
  const principal = await store.authenticate({ apiKey: account.apiKey.apiKey });
  console.log(`account: ${account.account.name} (${account.account.tier})`);

  const project = await store.projects.create({
    principal,
    body: { name: 'Notes', description: 'Written from an embedded store' },
  });
  assert.equal(project.isActive, true);
  console.log(`project: ${project.name}`);

  const text = '# Hello, mdstore\n\nStored from a string, read back byte for byte: \u00e9\u{1F600}\n';
  const uploaded = await store.files.upload({
    principal,
    projectId: project.id,
    filename: 'hello.md',
    content: fromString(text),
    metadata: JSON.stringify({ tags: ['demo'] }),
  });
  assert.equal(uploaded.sizeBytes, Buffer.byteLength(text));
  console.log(`uploaded: ${uploaded.filename} (${uploaded.sizeBytes} bytes) at ${uploaded.storagePath}`);

  const list = await store.files.list({ principal, projectId: project.id });
  assert.deepEqual(
    list.files.map((file) => file.filename),
    ['hello.md'],
  );
  assert.equal(list.totalSizeBytes, uploaded.sizeBytes);
  console.log(
    `files: ${list.files.map((file) => file.filename).join(', ')} (total ${list.totalSizeBytes} bytes)`,
  );

  const download = await store.files.download({ principal, projectId: project.id, filename: 'hello.md' });
  const content = await readAsText(download.content);
  assert.equal(content, text);
  console.log('content:');
  console.log(content.trimEnd());

  // Metadata updates replace the whole object.
  const updated = await store.files.updateMetadata({
    principal,
    projectId: project.id,
    filename: 'hello.md',
    body: { metadata: { reviewed: true } },
  });
  assert.deepEqual(updated.metadata, { reviewed: true });
  console.log(`metadata: ${JSON.stringify(updated.metadata)}`);

  const after = await store.projects.get({ principal, projectId: project.id });
  assert.equal(after.fileCount, 1);
  assert.equal(after.totalSizeBytes, uploaded.sizeBytes);
  console.log('embedding example: all checks passed');
} finally {
  await Promise.all([records.close(), blobs.close(), rateLimiter.close()]);
}
