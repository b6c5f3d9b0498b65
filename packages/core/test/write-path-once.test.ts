import { createHash } from 'node:crypto';
import {
  type BlobStore,
  type ContentHashing,
  createMdStore,
  type MdStoreSettings,
  type RecordsRepository,
  type RequestConditions,
} from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import {
  anAccount,
  blobKeys,
  codeOf,
  manualClock,
  overriding,
  STORAGE_FORMS,
  textStream,
  withTransactionWrapper,
} from './support/fixture.js';

/**
 * Issue 23, deliverable 5: along one write each piece of work is done once. The inline form's bytes are
 * counted and hashed by the core (once), the blob form's by the blob store alone; a request's
 * preconditions are parsed once; a PATCH looks its file up once before the commit transaction.
 */

const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/** A `ContentHashing` that counts the hashes started and the bytes fed to them. */
function countingHashing() {
  const seen = { hashes: 0, bytes: 0 };
  const hashing: ContentHashing = {
    sha256: () => {
      seen.hashes++;
      const hash = createHash('sha256');
      return {
        update: (chunk: Uint8Array) => {
          seen.bytes += chunk.byteLength;
          hash.update(chunk);
        },
        digestHex: () => hash.digest('hex'),
      };
    },
  };
  return { seen, hashing };
}

/** Records whose `findFile` calls are counted, outside transactions and inside them. */
function countingFindFile(inner: RecordsRepository) {
  const calls = { outside: 0, inside: 0 };
  const outer = overriding(inner, {
    findFile: (q) => {
      calls.outside++;
      return inner.findFile(q);
    },
  });
  const records = withTransactionWrapper(outer, (tx) =>
    overriding(tx, {
      findFile: (q) => {
        calls.inside++;
        return tx.findFile(q);
      },
    }),
  );
  return { calls, records };
}

async function scene(settings: Partial<MdStoreSettings> = {}) {
  const { seen, hashing } = countingHashing();
  const blobs = createMemoryBlobStore();
  const counted = countingFindFile(createMemoryRecords());
  const store = createMdStore({
    records: counted.records,
    blobs,
    rateLimiter: createMemoryRateLimiter(),
    clock: manualClock(),
    hashing,
    settings,
  });
  const alice = await anAccount(store, 'alice');
  const project = await counted.records.findProjectById({ projectId: alice.defaultProjectId });
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  return { store, blobs, seen, calls: counted.calls, at, bucket: project!.bucketName };
}

/** Conditions whose every field read is counted: a parse reads each field once. */
function countedConditions(fields: RequestConditions) {
  const reads = { ifMatch: 0 };
  const conditions: RequestConditions = {
    get ifMatch() {
      reads.ifMatch++;
      return fields.ifMatch;
    },
    ifNoneMatch: fields.ifNoneMatch,
    ifUnmodifiedSince: fields.ifUnmodifiedSince,
  };
  return { reads, conditions };
}

const TEXT = '# Title\n\nsome text\n';

describe('an upload counts and hashes its bytes once', () => {
  it('inline: the core hashes the buffered content once', async () => {
    const { store, seen, at } = await scene({ inlineMaxBytes: 1024 });
    const file = await store.files.upload({
      ...at,
      filename: 'a.md',
      content: textStream(TEXT, { chunkBytes: 3 }),
    });
    expect(file.sha256).toBe(sha256Of(TEXT));
    expect(seen).toEqual({ hashes: 1, bytes: Buffer.byteLength(TEXT) });
  });

  it('blob: the blob store is the one place that hashes; the core hashes nothing', async () => {
    const { store, seen, at } = await scene({ inlineMaxBytes: 0 });
    const file = await store.files.upload({
      ...at,
      filename: 'a.md',
      content: textStream(TEXT, { chunkBytes: 3 }),
    });
    expect(file.sha256).toBe(sha256Of(TEXT));
    expect(seen).toEqual({ hashes: 0, bytes: 0 });
  });

  it('blob: the SHA-256 recorded is the one the blob store reports', async () => {
    const { seen, hashing } = countingHashing();
    const inner = createMemoryBlobStore();
    const reported = 'f'.repeat(64);
    const blobs: BlobStore = overriding(inner, {
      put: async (o) => ({ ...(await inner.put(o)), sha256: reported }),
    });
    const store = createMdStore({
      records: createMemoryRecords(),
      blobs,
      rateLimiter: createMemoryRateLimiter(),
      clock: manualClock(),
      hashing,
      settings: { inlineMaxBytes: 0 },
    });
    const alice = await anAccount(store, 'alice');
    const at = { principal: alice.principal, projectId: alice.defaultProjectId };
    const file = await store.files.upload({ ...at, filename: 'a.md', content: textStream(TEXT) });
    expect(file.sha256).toBe(reported);
    expect(seen.hashes).toBe(0);
  });

  for (const [form, inlineMaxBytes] of STORAGE_FORMS) {
    it(`${form}: a declared digest that does not match is 400 and leaves nothing stored`, async () => {
      const { store, blobs, at, bucket } = await scene({ inlineMaxBytes });
      const code = await codeOf(() =>
        store.files.upload({ ...at, filename: 'a.md', content: textStream(TEXT), sha256: 'a'.repeat(64) }),
      );
      expect(code).toBe('MALFORMED_INPUT');
      expect(await blobKeys(blobs, bucket)).toEqual([]);
      expect((await store.files.list({ ...at })).files).toEqual([]);
    });

    it(`${form}: content above the size limit is 413 and leaves nothing stored`, async () => {
      const { store, blobs, at, bucket } = await scene({ inlineMaxBytes, maxFileBytes: 8 });
      const code = await codeOf(() =>
        store.files.upload({ ...at, filename: 'a.md', content: textStream(TEXT, { chunkBytes: 4 }) }),
      );
      expect(code).toBe('CONTENT_TOO_LARGE');
      expect(await blobKeys(blobs, bucket)).toEqual([]);
    });
  }

  for (const inlineMaxBytes of [0, 4, 8, 1024]) {
    it(`content of exactly the size limit is stored (inline threshold ${inlineMaxBytes})`, async () => {
      const { store, at } = await scene({ inlineMaxBytes, maxFileBytes: 8 });
      const file = await store.files.upload({
        ...at,
        filename: 'a.md',
        content: textStream('12345678', { chunkBytes: 3 }),
      });
      expect(file).toMatchObject({ sizeBytes: 8, sha256: sha256Of('12345678') });
      const over = () => store.files.upload({ ...at, filename: 'b.md', content: textStream('123456789') });
      expect(await codeOf(over)).toBe('CONTENT_TOO_LARGE');
    });
  }

  it('a limit below the inline threshold is judged on the head, before anything is stored', async () => {
    const { store, blobs, at, bucket } = await scene({ inlineMaxBytes: 1024, maxFileBytes: 8 });
    const big = 'x'.repeat(2048);
    expect(
      await codeOf(() => store.files.upload({ ...at, filename: 'a.md', content: textStream(big) })),
    ).toBe('CONTENT_TOO_LARGE');
    const exact = await store.files.upload({ ...at, filename: 'b.md', content: textStream('12345678') });
    expect(exact.sizeBytes).toBe(8);
    expect(await blobKeys(blobs, bucket)).toEqual([]);
  });
});

describe('a write parses its preconditions once', () => {
  for (const [form, inlineMaxBytes] of STORAGE_FORMS) {
    it(`${form}: PATCH parses them once and looks the file up once before its commit`, async () => {
      const { store, calls, at } = await scene({ inlineMaxBytes });
      const uploaded = await store.files.upload({ ...at, filename: 'a.md', content: textStream(TEXT) });
      const { reads, conditions } = countedConditions({ ifMatch: uploaded.etag });
      calls.outside = 0;
      calls.inside = 0;
      const result = await store.files.edit({
        ...at,
        filename: 'a.md',
        body: { edits: [{ op: 'append', text: 'more\n' }] },
        conditions,
      });
      expect(result.file.revision).toBe(2);
      expect(reads.ifMatch).toBe(1);
      expect(calls).toEqual({ outside: 1, inside: 1 });
    });
  }

  it('PATCH still judges If-Match against the record it read (412)', async () => {
    const { store, at } = await scene();
    await store.files.upload({ ...at, filename: 'a.md', content: textStream(TEXT) });
    const code = await codeOf(() =>
      store.files.edit({
        ...at,
        filename: 'a.md',
        body: { edits: [{ op: 'append', text: 'more\n' }] },
        conditions: { ifMatch: '"not-the-etag"' },
      }),
    );
    expect(code).toBe('PRECONDITION_FAILED');
  });

  it('a content update parses them once', async () => {
    const { store, at } = await scene();
    const uploaded = await store.files.upload({ ...at, filename: 'a.md', content: textStream(TEXT) });
    const { reads, conditions } = countedConditions({ ifMatch: uploaded.etag });
    await store.files.updateContent({ ...at, filename: 'a.md', content: textStream('new\n'), conditions });
    expect(reads.ifMatch).toBe(1);
  });

  it('a metadata update parses them once', async () => {
    const { store, at } = await scene();
    const uploaded = await store.files.upload({ ...at, filename: 'a.md', content: textStream(TEXT) });
    const { reads, conditions } = countedConditions({ ifMatch: uploaded.etag });
    await store.files.updateMetadata({ ...at, filename: 'a.md', body: { metadata: { a: 1 } }, conditions });
    expect(reads.ifMatch).toBe(1);
  });
});
