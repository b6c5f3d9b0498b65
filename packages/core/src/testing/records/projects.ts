import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { ProjectRecord } from '../../model/records.js';
import { aProject, BASE_TIME } from '../builders.js';
import {
  ascendingIds,
  conflict,
  type SuiteContext,
  seedAccount,
  seedProject,
  setProjectStatus,
} from './support.js';

export function projectsSuite({ test }: SuiteContext): void {
  describe('projects', () => {
    test('inserts a project and finds it by id and by active name', async ({ repository }) => {
      const project = await seedProject(repository, { description: 'Docs of the team', isDefault: true });
      expect(await repository.findProjectById({ projectId: project.id })).toEqual(project);
      expect(
        await repository.findActiveProjectByName({ accountId: project.accountId, name: project.name }),
      ).toEqual(project);
      expect(await repository.findProjectById({ projectId: randomUUID() })).toBeNull();
      expect(
        await repository.findActiveProjectByName({ accountId: randomUUID(), name: project.name }),
      ).toBeNull();
    });

    test('findActiveProjectByName ignores deleting and deleted projects', async ({ repository }) => {
      const account = await seedAccount(repository);
      const deleting = await seedProject(repository, { accountId: account.id, status: 'deleting' });
      const deleted = await seedProject(repository, { accountId: account.id, status: 'deleted' });
      for (const project of [deleting, deleted]) {
        expect(await repository.findProjectById({ projectId: project.id })).toEqual(project);
        expect(
          await repository.findActiveProjectByName({ accountId: account.id, name: project.name }),
        ).toBeNull();
      }
    });

    test('refuses a second active project with the same name in one account (rule project_name)', async ({
      repository,
    }) => {
      const first = await seedProject(repository, { name: 'docs' });
      await expect(
        seedProject(repository, { accountId: first.accountId, name: 'docs' }),
      ).rejects.toMatchObject(conflict('project_name'));
      expect(await repository.listProjects({ accountId: first.accountId })).toEqual([first]);
    });

    test('allows the same project name in another account', async ({ repository }) => {
      const first = await seedProject(repository, { name: 'docs' });
      const second = await seedProject(repository, { name: 'docs' });
      expect(second.accountId).not.toBe(first.accountId);
      expect(await repository.findProjectById({ projectId: second.id })).toEqual(second);
    });

    for (const status of ['deleting', 'deleted'] as const) {
      test(`frees a project name once its project is ${status}`, async ({ repository }) => {
        const first = await seedProject(repository, { name: 'docs' });
        const gone = await setProjectStatus(repository, first, status);
        const again = await seedProject(repository, { accountId: first.accountId, name: 'docs' });
        expect(
          await repository.findActiveProjectByName({ accountId: first.accountId, name: 'docs' }),
        ).toEqual(again);
        expect(await repository.findProjectById({ projectId: first.id })).toEqual(gone);
        // An inactive project never conflicts, even when inserted with a taken name.
        await seedProject(repository, { accountId: first.accountId, name: 'docs', status });
      });
    }

    test('compares project names case-sensitively', async ({ repository }) => {
      const upper = await seedProject(repository, { name: 'Docs' });
      const lower = await seedProject(repository, { accountId: upper.accountId, name: 'docs' });
      const find = (name: string) => repository.findActiveProjectByName({ accountId: upper.accountId, name });
      expect(await find('Docs')).toEqual(upper);
      expect(await find('docs')).toEqual(lower);
      expect(await find('DOCS')).toBeNull();
    });

    test('keeps project names exactly as given (no normalisation, no trimming)', async ({ repository }) => {
      const account = await seedAccount(repository);
      const names = ['caf\u00e9', 'cafe\u0301', ' docs', 'docs ', 'docs', '\u{1F4DA} books'];
      const projects: ProjectRecord[] = [];
      for (const name of names) projects.push(await seedProject(repository, { accountId: account.id, name }));
      for (const project of projects) {
        expect(
          await repository.findActiveProjectByName({ accountId: account.id, name: project.name }),
        ).toEqual(project);
        expect((await repository.findProjectById({ projectId: project.id }))?.name).toBe(project.name);
      }
    });

    test("lists an account's projects by createdAt, then id, whatever their status", async ({
      repository,
    }) => {
      const account = await seedAccount(repository);
      const [id1, id2, id3, id4] = ascendingIds(4) as [string, string, string, string];
      const expected = [
        aProject({ id: id4, accountId: account.id, createdAt: BASE_TIME - 10 }),
        aProject({ id: id2, accountId: account.id, createdAt: BASE_TIME, status: 'deleted' }),
        aProject({ id: id3, accountId: account.id, createdAt: BASE_TIME, status: 'deleting' }),
        aProject({ id: id1, accountId: account.id, createdAt: BASE_TIME + 10 }),
      ];
      for (const index of [2, 3, 0, 1]) {
        const project = expected[index]!;
        await repository.withTransaction((tx) => tx.insertProject({ project }));
      }
      await seedProject(repository);
      expect(await repository.listProjects({ accountId: account.id })).toEqual(expected);
      expect(await repository.listProjects({ accountId: randomUUID() })).toEqual([]);
    });

    test('lists projects by status across accounts', async ({ repository }) => {
      const [id1, id2, id3] = ascendingIds(3) as [string, string, string];
      const deletingLate = await seedProject(repository, {
        id: id1,
        status: 'deleting',
        createdAt: BASE_TIME + 1,
      });
      const deletingEarly = await seedProject(repository, { id: id2, status: 'deleting' });
      const deletingEarlyToo = await seedProject(repository, { id: id3, status: 'deleting' });
      const active = await seedProject(repository);
      const deleted = await seedProject(repository, { status: 'deleted' });
      expect(await repository.listProjectsByStatus({ status: 'deleting' })).toEqual([
        deletingEarly,
        deletingEarlyToo,
        deletingLate,
      ]);
      expect(await repository.listProjectsByStatus({ status: 'active' })).toEqual([active]);
      expect(await repository.listProjectsByStatus({ status: 'deleted' })).toEqual([deleted]);
    });

    test('updateProject writes every mutable field', async ({ repository }) => {
      const project = await seedProject(repository, { description: 'before' });
      const changed: ProjectRecord = {
        ...project,
        name: 'renamed',
        description: null,
        status: 'deleting',
        fileCount: 3,
        totalSizeBytes: 12_345,
        historySizeBytes: 6_000_000_000,
        trashSizeBytes: 77,
        attachmentCount: 4,
        attachmentBytes: 9_000_000_000,
        requireIfMatch: true,
        keepRevisions: 1000,
        trashRetentionDays: 365,
        updatedAt: BASE_TIME + 1_001,
      };
      await repository.withTransaction((tx) => tx.updateProject({ project: changed }));
      expect(await repository.findProjectById({ projectId: project.id })).toEqual(changed);

      const back: ProjectRecord = {
        ...changed,
        description: 'after',
        status: 'active',
        fileCount: 0,
        requireIfMatch: false,
        keepRevisions: 1,
        trashRetentionDays: 0,
      };
      await repository.withTransaction((tx) => tx.updateProject({ project: back }));
      expect(await repository.findProjectById({ projectId: project.id })).toEqual(back);
    });

    test("refuses renaming a project to another active project's name (rule project_name)", async ({
      repository,
    }) => {
      const first = await seedProject(repository, { name: 'first' });
      const second = await seedProject(repository, { accountId: first.accountId, name: 'second' });
      await expect(
        repository.withTransaction((tx) => tx.updateProject({ project: { ...second, name: 'first' } })),
      ).rejects.toMatchObject(conflict('project_name'));
      expect(await repository.findProjectById({ projectId: second.id })).toEqual(second);
    });

    test('refuses reactivating a project whose name is taken (rule project_name)', async ({ repository }) => {
      const old = await seedProject(repository, { name: 'docs', status: 'deleting' });
      await seedProject(repository, { accountId: old.accountId, name: 'docs' });
      await expect(
        repository.withTransaction((tx) => tx.updateProject({ project: { ...old, status: 'active' } })),
      ).rejects.toMatchObject(conflict('project_name'));
    });

    test('allows renaming a project to its own name', async ({ repository }) => {
      const project = await seedProject(repository, { name: 'docs' });
      const same = { ...project, description: 'new text', updatedAt: BASE_TIME + 5 };
      await repository.withTransaction((tx) => tx.updateProject({ project: same }));
      expect(await repository.findProjectById({ projectId: project.id })).toEqual(same);
    });

    test('lockProject returns the project row (null when missing)', async ({ repository }) => {
      const project = await seedProject(repository);
      const [locked, missing] = await repository.withTransaction(async (tx) => [
        await tx.lockProject({ projectId: project.id }),
        await tx.lockProject({ projectId: randomUUID() }),
      ]);
      expect(locked).toEqual(project);
      expect(missing).toBeNull();
    });

    test('round-trips sizes above 2^32 as numbers', async ({ repository }) => {
      const project = await seedProject(repository, { totalSizeBytes: 5_000_000_000, fileCount: 70_000 });
      const found = await repository.findProjectById({ projectId: project.id });
      expect(found).toEqual(project);
      expect(typeof found?.totalSizeBytes).toBe('number');
      expect(typeof found?.fileCount).toBe('number');
      const [listed] = await repository.listProjects({ accountId: project.accountId });
      expect(listed?.totalSizeBytes).toBe(5_000_000_000);
    });
  });
}
