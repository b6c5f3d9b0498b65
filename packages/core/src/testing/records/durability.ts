import { describe, expect } from 'vitest';
import { aBlobIntent, anInstance } from '../builders.js';
import {
  conflict,
  incrementFileCount,
  type SuiteContext,
  seedAccount,
  seedApiKey,
  seedFile,
  seedProject,
} from './support.js';

export function durabilitySuite({ adapterName, test }: SuiteContext): void {
  describe('durability and sharing', () => {
    test('committed data survives reopening', async (harness, { skip }) => {
      if (!harness.repository.supports.durable) skip(`${adapterName} is not durable`);
      if (!harness.reopen) throw new Error('the harness must provide reopen() when supports.durable');
      const file = await seedFile(harness.repository, { metadataJson: '{"k":"\u{1F600}"}' });
      const project = (await harness.repository.findProjectById({ projectId: file.projectId }))!;
      const apiKey = await seedApiKey(harness.repository, { accountId: project.accountId });
      const instance = anInstance();
      const intent = aBlobIntent({ ownerInstanceId: instance.id, key: null });
      await harness.repository.withTransaction(async (tx) => {
        await tx.upsertInstance({ instance });
        await tx.insertBlobIntent({ intent });
        await tx.updateProject({ project: { ...project, totalSizeBytes: 5_000_000_000 } });
      });

      const reopened = await harness.reopen();
      expect(await reopened.findProjectById({ projectId: project.id })).toEqual({
        ...project,
        totalSizeBytes: 5_000_000_000,
      });
      expect(await reopened.findFile({ projectId: project.id, filename: file.filename })).toEqual(file);
      expect(await reopened.findApiKeyByHash({ keyHash: apiKey.keyHash })).toEqual(apiKey);
      expect(await reopened.listAccounts()).toHaveLength(1);
      expect(await reopened.listInstances()).toEqual([instance]);
      expect(await reopened.listBlobIntents({ limit: 10 })).toEqual([intent]);
    });

    test('a second handle sees committed writes both ways', async (harness, { skip }) => {
      if (!harness.repository.supports.sharedBetweenProcesses) skip(`${adapterName} is not shared`);
      if (!harness.openSecond) {
        throw new Error('the harness must provide openSecond() when supports.sharedBetweenProcesses');
      }
      const second = await harness.openSecond();
      const fromFirst = await seedProject(harness.repository);
      expect(await second.findProjectById({ projectId: fromFirst.id })).toEqual(fromFirst);
      const fromSecond = await seedAccount(second);
      expect(await harness.repository.findAccountById({ accountId: fromSecond.id })).toEqual(fromSecond);
      await expect(seedAccount(harness.repository, { name: fromSecond.name })).rejects.toMatchObject(
        conflict('account_name'),
      );
    });

    test('concurrent increments through two handles are not lost', async (harness, { skip }) => {
      if (!harness.repository.supports.sharedBetweenProcesses) skip(`${adapterName} is not shared`);
      if (!harness.openSecond) {
        throw new Error('the harness must provide openSecond() when supports.sharedBetweenProcesses');
      }
      const second = await harness.openSecond();
      const project = await seedProject(harness.repository);
      const handles = [harness.repository, second];
      await Promise.all(
        Array.from({ length: 20 }, (_, index) => incrementFileCount(handles[index % 2]!, project.id)),
      );
      expect((await harness.repository.findProjectById({ projectId: project.id }))?.fileCount).toBe(20);
      expect((await second.findProjectById({ projectId: project.id }))?.fileCount).toBe(20);
    });
  });
}
