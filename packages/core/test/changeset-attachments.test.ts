import type { BlobStore, Principal } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture } from './support/fixture.js';

/**
 * Changesets carry attachments (extensions §9, §12; issue 37): `attach` and `detach` commit in the
 * changeset's one transaction, their blobs staged before it, so a note and its images land together
 * or not at all.
 */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const PNG_B64 = PNG.toString('base64');

async function scene(settings: Record<string, number> = {}) {
  const written: string[] = [];
  /** Run before the next blob write (once): what happens meanwhile. */
  const hooks: { beforePut?: () => Promise<void> } = {};
  const f = createFixture({
    settings,
    // Every blob key the store writes, to check that none is left behind after a failure.
    wrapBlobs: (inner: BlobStore): BlobStore =>
      new Proxy(inner, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property !== 'put') return typeof value === 'function' ? value.bind(target) : value;
          return async (o: { bucket: string; key: string }) => {
            const before = hooks.beforePut;
            hooks.beforePut = undefined;
            await before?.();
            written.push(`${o.bucket}\n${o.key}`);
            return value.call(target, o);
          };
        },
      }),
  });
  const { principal, defaultProjectId: projectId } = await anAccount(f.store, 'alice');
  const apply = (operations: unknown[], o: { principal?: Principal; dryRun?: boolean } = {}) =>
    f.store.changesets.apply({
      principal: o.principal ?? principal,
      projectId,
      operations,
      dryRun: o.dryRun,
    });
  const failure = (operations: unknown[], o: { principal?: Principal } = {}) =>
    apply(operations, o).then(
      () => {
        throw new Error('the changeset was applied');
      },
      (error: unknown) => error as { code: string; operation: number },
    );
  const attachments = async () =>
    (await f.store.attachments.list({ principal, projectId, params: {} })).attachments.map((a) => a.path);
  const project = () => f.store.projects.get({ principal, projectId });
  /** The blobs still in the store (of those ever written) and the blob intents left. */
  const leftovers = async () => {
    const blobs: string[] = [];
    for (const entry of written) {
      const [bucket, key] = entry.split('\n') as [string, string];
      if (await f.blobs.stat({ bucket, key })) blobs.push(key);
    }
    return { blobs, intents: await f.records.listBlobIntents({ limit: 100 }) };
  };
  return { f, principal, projectId, apply, failure, attachments, project, leftovers, hooks };
}

const note = { op: 'put', filename: 'notes/a.md', content: '# A\n\n![](img/a.png)\n' };
const attach = (path = 'notes/img/a.png', contentType = 'image/png', b64 = PNG_B64) => ({
  op: 'attach',
  path,
  content_base64: b64,
  content_type: contentType,
});

describe('changesets with attachments', () => {
  it('lands a note and the image it embeds together: the link resolves, counters and events follow', async () => {
    const s = await scene();
    const result = await s.apply([note, attach()]);
    expect(result.files[1]).toMatchObject({
      attachment: { path: 'notes/img/a.png', contentType: 'image/png', sizeBytes: PNG.length },
    });
    expect(await s.attachments()).toEqual(['notes/img/a.png']);
    const links = await s.f.store.files.links({
      principal: s.principal,
      projectId: s.projectId,
      filename: 'notes/a.md',
    });
    expect(links.outgoing).toMatchObject([{ target: 'notes/img/a.png', resolved: true }]);
    const broken = await s.f.store.links.broken({ principal: s.principal, projectId: s.projectId });
    expect(broken.links).toEqual([]);
    expect(await s.project()).toMatchObject({
      fileCount: 1,
      attachmentCount: 1,
      attachmentBytes: PNG.length,
    });
    const read = await s.f.store.attachments.read({
      principal: s.principal,
      projectId: s.projectId,
      path: 'notes/img/a.png',
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of read.kind === 'content' ? read.content! : []) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(PNG)).toBe(true);
    const changes = await s.f.store.changes.list({ principal: s.principal, params: { limit: '100' } });
    const created = changes.changes.find((event) => event.type === 'attachment.created');
    expect(created).toMatchObject({ filename: 'notes/img/a.png', changesetId: result.changesetId });
    expect(await s.leftovers()).toMatchObject({ intents: [] });
  });

  it('replaces with attach and deletes with detach; events attachment.updated and attachment.deleted', async () => {
    const s = await scene();
    await s.apply([attach('a.png')]);
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    const replaced = await s.apply([attach('a.png', 'image/gif', gif.toString('base64'))]);
    expect(replaced.files[0]).toMatchObject({
      attachment: { contentType: 'image/gif', sizeBytes: gif.length },
    });
    expect(await s.project()).toMatchObject({ attachmentCount: 1, attachmentBytes: gif.length });
    const detached = await s.apply([{ op: 'detach', path: 'a.png' }]);
    expect(detached.files).toEqual([{ path: 'a.png', deleted: true }]);
    expect(await s.attachments()).toEqual([]);
    expect(await s.project()).toMatchObject({ attachmentCount: 0, attachmentBytes: 0 });
    const types = (await s.f.store.changes.list({ principal: s.principal, params: { limit: '100' } })).changes
      .filter((event) => event.type.startsWith('attachment.'))
      .map((event) => [event.type, event.changesetId !== null]);
    expect(types).toEqual([
      ['attachment.created', true],
      ['attachment.updated', true],
      ['attachment.deleted', true],
    ]);
    // Every blob but none is gone: the replaced and deleted bytes were freed.
    expect(await s.leftovers()).toEqual({ blobs: [], intents: [] });
  });

  it('a failing operation writes nothing: no note, no attachment, no blob or staged note left', async () => {
    const s = await scene();
    const failed = await s.failure([note, attach(), { op: 'delete', filename: 'missing.md' }]);
    expect(failed).toMatchObject({ code: 'FILE_MISSING', operation: 2 });
    expect(await s.attachments()).toEqual([]);
    expect((await s.project()).fileCount).toBe(0);
    expect(await s.leftovers()).toEqual({ blobs: [], intents: [] });
  });

  it('a project deleted while its attachment is staged: 404 like any route, never a 500, nothing left', async () => {
    const s = await scene();
    const { id: projectId } = await s.f.store.projects.create({
      principal: s.principal,
      body: { name: 'p' },
    });
    // The deletion removes the project's bucket between the changeset's plan and its blob write.
    s.hooks.beforePut = async () => {
      await s.f.store.projects.delete({ principal: s.principal, projectId });
    };
    const failed = await s.f.store.changesets
      .apply({ principal: s.principal, projectId, operations: [note, attach()] })
      .then(
        () => null,
        (error: { code: string }) => error,
      );
    expect(failed?.code).toBe('PROJECT_NOT_FOUND');
    expect(await s.leftovers()).toEqual({ blobs: [], intents: [] });
  });

  it('a failure inside the commit (the storage bound) removes the staged blobs again', async () => {
    const s = await scene({ maxProjectBytes: 40 });
    const failed = await s.failure([attach('a.png')]);
    expect(failed.code).toBe('STORAGE_LIMIT_REACHED');
    expect(await s.attachments()).toEqual([]);
    const { blobs, intents } = await s.leftovers();
    expect([blobs, intents]).toEqual([[], []]);
  });

  it('judges the bytes against the type as the PUT route does: a PNG sent as image/jpeg is 415', async () => {
    const s = await scene();
    const failed = await s.failure([note, attach('notes/img/a.png', 'image/jpeg')]);
    expect(failed).toMatchObject({ code: 'CONTENT_TYPE_MISMATCH', operation: 1 });
    expect((await s.project()).fileCount).toBe(0);
    expect(await s.leftovers()).toEqual({ blobs: [], intents: [] });
  });

  it('refuses .md paths (409), bad base64 and types (400), a detach of nothing (404), sizes past the limits (413)', async () => {
    const s = await scene({ maxAttachmentBytes: 60, maxFileBytes: 20 });
    expect(await s.failure([attach('x.md', 'text/markdown')])).toMatchObject({
      code: 'ATTACHMENT_PATH_IS_FILE',
      operation: 0,
    });
    expect(await s.failure([attach('x.png', 'image/png', 'not base64!')])).toMatchObject({
      code: 'MALFORMED_INPUT',
      operation: 0,
    });
    expect(await s.failure([attach('x.bin', 'nonsense')])).toMatchObject({ code: 'MALFORMED_INPUT' });
    expect(await s.failure([{ op: 'detach', path: 'nope.png' }])).toMatchObject({
      code: 'ATTACHMENT_NOT_FOUND',
      operation: 0,
    });
    const big = Buffer.alloc(61).toString('base64');
    expect(await s.failure([attach('big.bin', 'application/octet-stream', big)])).toMatchObject({
      code: 'CONTENT_TOO_LARGE',
      operation: 0,
    });
    // The changeset's content in all (4 × maxFileBytes = 80 bytes) counts attachments' bytes.
    const fifty = Buffer.alloc(50).toString('base64');
    const total = await s.failure([
      attach('a.bin', 'application/octet-stream', fifty),
      attach('b.bin', 'application/octet-stream', fifty),
    ]);
    expect(total).toMatchObject({
      code: 'CONTENT_TOO_LARGE',
      operation: 1,
      issues: [{ loc: ['body', 'operations', 1, 'content_base64'] }],
    });
    // `op` names the attachment operations; drafts still take file operations only.
    const unknown = await s.failure([{ op: 'frobnicate', path: 'x' }]);
    expect(unknown).toMatchObject({
      issues: [
        { loc: ['body', 'operations', 0, 'op'], msg: expect.stringContaining("'attach' or 'detach'") },
      ],
    });
    const draft = s.f.store.drafts.create({
      principal: s.principal,
      projectId: s.projectId,
      body: { title: 't', operations: [attach('x.png')] },
    });
    await expect(draft).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      issues: [
        { loc: ['body', 'operations', 0, 'op'], msg: "Input should be 'put', 'edit', 'delete' or 'move'" },
      ],
    });
    expect(await s.attachments()).toEqual([]);
  });

  it('stores identical bytes once, also within one changeset', async () => {
    const s = await scene();
    await s.apply([attach('a.png'), attach('b.png')]);
    await s.apply([attach('c.png')]);
    expect(await s.attachments()).toEqual(['a.png', 'b.png', 'c.png']);
    const { blobs } = await s.leftovers();
    expect(blobs).toHaveLength(1);
    // Detaching two of three keeps the shared bytes for the third.
    await s.apply([
      { op: 'detach', path: 'a.png' },
      { op: 'detach', path: 'c.png' },
    ]);
    expect((await s.leftovers()).blobs).toHaveLength(1);
    await s.apply([{ op: 'detach', path: 'b.png' }]);
    expect((await s.leftovers()).blobs).toHaveLength(0);
  });

  it('if_match on attach and detach, and If-Match required by the project (428)', async () => {
    const s = await scene();
    const first = await s.apply([attach('a.png')]);
    const etag = (first.files[0] as { attachment: { etag: string } }).attachment.etag;
    expect(await s.failure([{ ...attach('a.png'), if_match: null }])).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    expect(await s.failure([{ op: 'detach', path: 'a.png', if_match: '"nope-1"' }])).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await s.f.store.projects.update({
      principal: s.principal,
      projectId: s.projectId,
      body: { settings: { require_if_match: true } },
    });
    expect(await s.failure([attach('a.png')])).toMatchObject({ code: 'PRECONDITION_REQUIRED' });
    await s.apply([{ op: 'detach', path: 'a.png', if_match: etag }]);
    expect(await s.attachments()).toEqual([]);
  });

  it('a dry run writes nothing and answers the attachment as it would be', async () => {
    const s = await scene();
    const dry = await s.apply([note, attach()], { dryRun: true });
    expect(dry.changesetId).toBeNull();
    expect(dry.files[1]).toMatchObject({ attachment: { path: 'notes/img/a.png', sizeBytes: PNG.length } });
    expect(await s.attachments()).toEqual([]);
    expect(await s.leftovers()).toEqual({ blobs: [], intents: [] });
  });

  it('a key confined to folders reaches only attachments under them (404, nothing written)', async () => {
    const s = await scene();
    const created = await s.f.store.keys.create({
      principal: s.principal,
      body: { name: 'agent', role: 'write', path_prefixes: ['notes'] },
    });
    const agent = await s.f.store.authenticate({ apiKey: created.apiKey });
    const failed = await s.failure([note, attach('img/a.png')], { principal: agent });
    expect(failed).toMatchObject({ code: 'ATTACHMENT_NOT_FOUND', operation: 1 });
    expect(await s.attachments()).toEqual([]);
    await s.apply([note, attach()], { principal: agent });
    expect(await s.attachments()).toEqual(['notes/img/a.png']);
  });
});
