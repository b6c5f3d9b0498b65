import {
  type ArchiveEntry,
  type ImportArchive,
  type ImportSpool,
  type MdStore,
  memorySpool,
  type Principal,
} from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture, textStream } from './support/fixture.js';

/**
 * Import (extensions §10) in little memory: every Markdown content goes to the import's spool as it is
 * read, the plan holds none, and the changeset's commit reads each back when it reaches its file, all
 * in one transaction (whole or nothing).
 */

const encoder = new TextEncoder();

async function* archiveOf(files: Record<string, string>): ImportArchive {
  for (const [name, text] of Object.entries(files)) {
    const bytes = encoder.encode(text);
    const entry: ArchiveEntry = { name, kind: 'file', size: bytes.length, read: async () => bytes };
    yield entry;
  }
}

/** A memory spool that counts what goes in and out, and can fail its n-th read. */
function watchedSpool(o: { failRead?: number } = {}) {
  const inner = memorySpool();
  const seen = { puts: 0, gets: 0, closed: false };
  const spool: ImportSpool = {
    put: (bytes) => {
      seen.puts++;
      return inner.put(bytes);
    },
    get: async (ref) => {
      seen.gets++;
      if (seen.gets === o.failRead) throw new Error('the spool failed');
      return inner.get(ref);
    },
    close: async () => {
      seen.closed = true;
      await inner.close();
    },
  };
  return { spool, seen };
}

async function textOf(store: MdStore, principal: Principal, projectId: string, filename: string) {
  const read = await store.files.read({ principal, projectId, filename });
  if (read.kind !== 'content' || !read.content) throw new Error('no content');
  const chunks: Uint8Array[] = [];
  for await (const chunk of read.content) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const FILES = {
  'a.md': '# A\n\n[b](notes/b.md)\n',
  'notes/b.md': '# B \u00e9t\u00e9 \u{1F600}\n',
  // Past `inlineMaxBytes` below: a blob content, streamed from the spool to the blob store.
  'large.md': `# Large\n\n${'word '.repeat(100)}\n`,
  'image.png': 'not markdown',
};

describe('import through the spool', () => {
  it('spools each Markdown content once, commits each read back from the spool, and closes it', async () => {
    const f = createFixture({ settings: { inlineMaxBytes: 100 } });
    const { principal, defaultProjectId: projectId } = await anAccount(f.store, 'spool');
    const { spool, seen } = watchedSpool();
    const result = await f.store.projects.import({
      principal,
      projectId,
      archive: archiveOf(FILES),
      spool: async () => spool,
    });
    expect(result.created).toEqual(['a.md', 'large.md', 'notes/b.md']);
    // Three Markdown entries went in; the commit read each back (none was held as text meanwhile), the
    // blob content twice: streamed to the blob store, then for its search fields and links.
    // image.png went in too (an attachment's type is judged once the manifest may have given it), and
    // was skipped: its bytes are no PNG.
    expect(seen).toEqual({ puts: 4, gets: 4, closed: true });
    expect(result.skipped).toEqual([
      { name: 'image.png', reason: 'its bytes are not what its content type says (image/png)' },
    ]);
    for (const name of ['a.md', 'notes/b.md', 'large.md'] as const) {
      expect(await textOf(f.store, principal, projectId, name)).toBe(FILES[name]);
    }
    const { files } = await f.store.files.list({ principal, projectId });
    expect(files.find((file) => file.filename === 'large.md')?.sizeBytes).toBe(
      encoder.encode(FILES['large.md']).length,
    );
    // The links of a spooled content are indexed like any other's.
    const links = await f.store.files.links({ principal, projectId, filename: 'a.md' });
    expect(links.outgoing.map((link) => link.target)).toEqual(['notes/b.md']);

    // Imported again: equal digests and metadata, nothing to apply, nothing read back.
    const again = watchedSpool();
    const unchanged = await f.store.projects.import({
      principal,
      projectId,
      archive: archiveOf(FILES),
      spool: async () => again.spool,
    });
    expect(unchanged.unchanged).toEqual(['a.md', 'large.md', 'notes/b.md']);
    expect(unchanged.changesetId).toBeNull();
    expect(again.seen).toEqual({ puts: 4, gets: 0, closed: true });
  });

  it('a spool that fails while the commit reads it back leaves the project as it was', async () => {
    const f = createFixture({ settings: { inlineMaxBytes: 100 } });
    const { principal, defaultProjectId: projectId } = await anAccount(f.store, 'spool-fails');
    await f.store.files.upload({ principal, projectId, filename: 'a.md', content: textStream('old') });
    // The first read streams the blob content to the blob store before the transaction; the third is
    // inside it (large.md's search fields), after a.md's new version was written.
    const { spool, seen } = watchedSpool({ failRead: 3 });
    const failed = await f.store.projects
      .import({ principal, projectId, archive: archiveOf(FILES), spool: async () => spool })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe('the spool failed');
    expect(seen.closed).toBe(true);
    const { files } = await f.store.files.list({ principal, projectId });
    expect(files.map((file) => [file.filename, file.revision])).toEqual([['a.md', 1]]);
    expect(await textOf(f.store, principal, projectId, 'a.md')).toBe('old');
  });
});
