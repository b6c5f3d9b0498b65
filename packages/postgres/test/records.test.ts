import type { RecordsRepository } from '@mdstore/core';
import { aRevision } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { aFile, anAccount, aProject, useStores } from './support/fixtures.js';
import { skipPostgres } from './support/pg-available.js';

const seedProject = async (records: RecordsRepository) => {
  const account = anAccount();
  const project = aProject({ accountId: account.id });
  await records.withTransaction(async (tx) => {
    await tx.insertAccount({ account });
    await tx.insertProject({ project });
  });
  return { account, project };
};

describe.skipIf(skipPostgres)('postgres records', () => {
  const { open } = useStores();

  it('declares durable, shared storage', async () => {
    const { records } = await open();
    expect(records.supports).toEqual({ durable: true, sharedBetweenProcesses: true });
  });

  it('reads every record back exactly as written', async () => {
    const { records } = await open();
    const { account, project } = await seedProject(records);
    const file = aFile({
      projectId: project.id,
      metadataJson: '{"z":1,"a":[true,null],"é":"😀"}',
      sizeBytes: 5_000_000_000,
    });
    const apiKey = {
      id: 'k1',
      accountId: account.id,
      keyHash: 'h1',
      name: 'k',
      role: 'read' as const,
      projectIds: [project.id],
      pathPrefixes: ['notes/'],
      expiresAt: 99,
      createdAt: 11,
      revokedAt: null,
      lastUsedAt: 12,
    };
    const intent = {
      id: 'i1',
      kind: 'staged' as const,
      bucket: project.bucketName,
      key: null,
      ownerInstanceId: 'n1',
      createdAt: 12,
      expiresAt: 13,
    };
    const instance = { id: 'n1', hostname: 'host', pid: 4242, startedAt: 14, heartbeatAt: 15 };
    await records.withTransaction(async (tx) => {
      await tx.insertFile({ file });
      await tx.insertApiKey({ apiKey });
      await tx.insertBlobIntent({ intent });
      await tx.upsertInstance({ instance });
    });
    await expect(records.findAccountByName({ name: account.name })).resolves.toEqual(account);
    await expect(records.findProjectById({ projectId: project.id })).resolves.toEqual(project);
    await expect(records.findFile({ projectId: project.id, filename: file.filename })).resolves.toEqual(file);
    await expect(records.findApiKeyByHash({ keyHash: 'h1' })).resolves.toEqual(apiKey);
    await expect(records.listBlobIntents({ limit: 10 })).resolves.toEqual([intent]);
    await expect(records.listInstances()).resolves.toEqual([instance]);
  });

  it('lists files in code point order, not UTF-16 order nor a locale order', async () => {
    const { records } = await open();
    const { project } = await seedProject(records);
    // U+FF46 sorts before U+1F600 by code point, after it by UTF-16 code unit; 'B' < 'a' by code point.
    const names = ['😀.md', 'ｆ.md', 'a.md', 'B.md', 'é.md', 'e.md'];
    await records.withTransaction(async (tx) => {
      for (const filename of names) await tx.insertFile({ file: aFile({ projectId: project.id, filename }) });
    });
    const listed = (await records.listFiles({ projectId: project.id })).map((file) => file.filename);
    expect(listed).toEqual(['B.md', 'a.md', 'e.md', 'é.md', 'ｆ.md', '😀.md']);
  });

  it('orders accounts by creation time, then id', async () => {
    const { records } = await open();
    const accounts = [
      anAccount({ id: 'b', createdAt: 1 }),
      anAccount({ id: 'a', createdAt: 2 }),
      anAccount({ id: 'C', createdAt: 2 }),
    ];
    await records.withTransaction(async (tx) => {
      for (const account of [...accounts].reverse()) await tx.insertAccount({ account });
    });
    const ids = (await records.listAccounts()).map((account) => account.id);
    expect(ids).toEqual(['b', 'C', 'a']);
  });

  it('reports each unique rule by name', async () => {
    const { records } = await open();
    const { account, project } = await seedProject(records);
    const file = aFile({ projectId: project.id });
    await records.withTransaction((tx) => tx.insertFile({ file }));

    await expect(
      records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name: account.name }) })),
    ).rejects.toMatchObject({ code: 'RECORD_CONFLICT', rule: 'account_name' });
    await expect(
      records.withTransaction((tx) =>
        tx.insertProject({ project: aProject({ accountId: account.id, name: project.name }) }),
      ),
    ).rejects.toMatchObject({ code: 'RECORD_CONFLICT', rule: 'project_name' });
    await expect(
      records.withTransaction((tx) =>
        tx.insertFile({ file: aFile({ projectId: project.id, filename: file.filename }) }),
      ),
    ).rejects.toMatchObject({ code: 'RECORD_CONFLICT', rule: 'filename' });
  });

  it('frees a project name once the project is no longer active, and guards reactivation', async () => {
    const { records } = await open();
    const { account, project } = await seedProject(records);
    await records.withTransaction((tx) => tx.updateProject({ project: { ...project, status: 'deleted' } }));
    const successor = aProject({ accountId: account.id, name: project.name });
    await records.withTransaction((tx) => tx.insertProject({ project: successor }));
    await expect(
      records.findActiveProjectByName({ accountId: account.id, name: project.name }),
    ).resolves.toEqual(successor);
    await expect(
      records.withTransaction((tx) => tx.updateProject({ project: { ...project, status: 'active' } })),
    ).rejects.toMatchObject({ code: 'RECORD_CONFLICT', rule: 'project_name' });
  });

  it('updates only the mutable fields and reports what changed', async () => {
    const { records } = await open();
    const { account, project } = await seedProject(records);
    const file = aFile({ projectId: project.id });
    await records.withTransaction((tx) => tx.insertFile({ file }));
    const changedFile = {
      ...file,
      sizeBytes: 99,
      revision: 2,
      contentKey: 'k2',
      metadataJson: '{}',
      updatedAt: 9,
    };
    const changedProject = { ...project, fileCount: 1, totalSizeBytes: 99, description: 'd', updatedAt: 9 };
    const outcome = await records.withTransaction(async (tx) => {
      await tx.updateFile({ file: { ...changedFile, createdAt: 0 } });
      await tx.updateProject({ project: { ...changedProject, createdAt: 0, accountId: 'other' } });
      return {
        tier: await tx.updateAccountTier({ accountId: account.id, tier: 'premium' }),
        missingTier: await tx.updateAccountTier({ accountId: 'nope', tier: 'premium' }),
      };
    });
    expect(outcome).toEqual({ tier: true, missingTier: false });
    await expect(records.findFile({ projectId: project.id, filename: file.filename })).resolves.toEqual(
      changedFile,
    );
    await expect(records.findProjectById({ projectId: project.id })).resolves.toEqual(changedProject);
    await expect(records.findAccountById({ accountId: account.id })).resolves.toMatchObject({
      tier: 'premium',
    });
  });

  it('revokes a key once, deletes files and intents with counts', async () => {
    const { records } = await open();
    const { account, project } = await seedProject(records);
    const apiKey = {
      id: 'k1',
      accountId: account.id,
      keyHash: 'h',
      name: 'k',
      role: 'admin' as const,
      projectIds: null,
      pathPrefixes: null,
      expiresAt: null,
      createdAt: 1,
      revokedAt: null,
      lastUsedAt: null,
    };
    const intent = {
      id: 'i1',
      kind: 'doomed' as const,
      bucket: 'b',
      key: 'k',
      ownerInstanceId: 'n',
      createdAt: 1,
      expiresAt: 2,
    };
    await records.withTransaction(async (tx) => {
      await tx.insertApiKey({ apiKey });
      await tx.insertBlobIntent({ intent });
      for (let i = 0; i < 3; i++) await tx.insertFile({ file: aFile({ projectId: project.id }) });
    });
    const outcome = await records.withTransaction(async (tx) => ({
      revoked: await tx.revokeApiKey({ keyId: 'k1', revokedAt: 5 }),
      again: await tx.revokeApiKey({ keyId: 'k1', revokedAt: 6 }),
      files: await tx.purgeProjectRecords({ projectId: project.id, limit: 100 }),
      intent: await tx.deleteBlobIntent({ intentId: 'i1' }),
      intentAgain: await tx.deleteBlobIntent({ intentId: 'i1' }),
    }));
    expect(outcome).toEqual({ revoked: true, again: false, files: 3, intent: true, intentAgain: false });
    await expect(records.findApiKeyById({ keyId: 'k1' })).resolves.toMatchObject({ revokedAt: 5 });
  });

  it('pages blob intents by id', async () => {
    const { records } = await open();
    const ids = ['c', 'a', 'B', 'd'];
    await records.withTransaction(async (tx) => {
      for (const id of ids) {
        const intent = {
          id,
          kind: 'staged' as const,
          bucket: 'b',
          key: id,
          ownerInstanceId: 'n',
          createdAt: 1,
          expiresAt: 2,
        };
        await tx.insertBlobIntent({ intent });
      }
    });
    const page1 = await records.listBlobIntents({ limit: 2 });
    const page2 = await records.listBlobIntents({ limit: 2, afterId: page1.at(-1)?.id });
    expect([...page1, ...page2].map((intent) => intent.id)).toEqual(['B', 'a', 'c', 'd']);
  });

  it('tells whether a bucket or a blob is still referenced', async () => {
    const { records } = await open();
    const { project } = await seedProject(records);
    const file = aFile({ projectId: project.id, contentKey: 'blob-1' });
    await records.withTransaction(async (tx) => {
      await tx.insertFile({ file });
      await tx.insertRevision({ revision: aRevision(file) });
    });
    const referenced = (key: string | null, bucket = project.bucketName) =>
      records.isBlobReferenced({ bucket, key });
    await expect(referenced(null)).resolves.toBe(true);
    await expect(referenced('blob-1')).resolves.toBe(true);
    await expect(referenced('blob-2')).resolves.toBe(false);
    await expect(referenced('blob-1', 'other-bucket')).resolves.toBe(false);
    await records.withTransaction((tx) => tx.updateProject({ project: { ...project, status: 'deleting' } }));
    await expect(referenced(null)).resolves.toBe(true);
    await records.withTransaction((tx) => tx.updateProject({ project: { ...project, status: 'deleted' } }));
    await expect(referenced(null)).resolves.toBe(false);
  });

  it('upserts instances', async () => {
    const { records } = await open();
    const instance = { id: 'n1', hostname: 'h', pid: 1, startedAt: 1, heartbeatAt: 1 };
    await records.withTransaction((tx) => tx.upsertInstance({ instance }));
    await records.withTransaction((tx) => tx.upsertInstance({ instance: { ...instance, heartbeatAt: 7 } }));
    await expect(records.listInstances()).resolves.toEqual([{ ...instance, heartbeatAt: 7 }]);
    await records.withTransaction((tx) => tx.deleteInstance({ instanceId: 'n1' }));
    await expect(records.listInstances()).resolves.toEqual([]);
  });

  it('keeps stores on different schemas apart', async () => {
    const one = await open();
    const two = await open();
    await one.records.withTransaction((tx) => tx.insertAccount({ account: anAccount() }));
    await expect(two.records.listAccounts()).resolves.toEqual([]);
  });
});
