// The SDK from its npm package against a running server (MDSTORE_URL, MDSTORE_API_KEY).
import assert from 'node:assert/strict';
import { createClient, MdStoreApiError } from '@mdstore/client';
import { toNodeReadable } from '@mdstore/client/node';

const client = createClient({ baseUrl: process.env.MDSTORE_URL, apiKey: process.env.MDSTORE_API_KEY });
const project = await client.projects.create({ name: `sdk-${Date.now()}` });
const file = await client.files.upload(project.id, 'from sdk.md', '# From the SDK\n', { metadata: { n: 1 } });
assert.equal(file.revision, 1);
const updated = await client.files.updateContent(project.id, 'from sdk.md', '# Changed\n', {
  ifMatch: file.etag,
});
const stale = await client.files
  .updateContent(project.id, 'from sdk.md', '# Lost\n', { ifMatch: file.etag })
  .catch((e) => e);
assert.ok(stale instanceof MdStoreApiError && stale.status === 412);
const chunks = [];
for await (const chunk of toNodeReadable(await client.files.download(project.id, 'from sdk.md')))
  chunks.push(chunk);
assert.equal(Buffer.concat(chunks).toString('utf8'), '# Changed\n');
const names = [];
for await (const f of client.files.iterate(project.id)) names.push(f.filename);
assert.deepEqual(names, ['from sdk.md']);
await client.projects.delete(project.id);
console.log(`sdk: ok (revision ${updated.revision})`);
