import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type {
  AccountRecord,
  ApiKeyRecord,
  FileRecord,
  ProjectRecord,
  ProjectStatus,
} from '../model/records.js';
import type { RecordsRepository } from '../ports/records.js';
import {
  aBlobIntent,
  aFile,
  anAccount,
  anApiKey,
  anInstance,
  aProject,
  BASE_TIME,
  sha256Hex,
} from './builders.js';
import { gate, nextMacrotask, settlesWithin, testWithHarness } from './harness.js';

export interface RecordsHarness {
  repository: RecordsRepository;
  /** Closes the repository and opens the same location again. Required when `supports.durable`. */
  reopen?(): Promise<RecordsRepository>;
  /**
   * A second, independent handle on the same store, as another process would open it. Required when
   * `supports.sharedBetweenProcesses`.
   */
  openSecond?(): Promise<RecordsRepository>;
  /** Closes every handle the harness opened (reopened and second ones too) and removes the store. */
  cleanup(): Promise<void>;
}

const conflict = (rule: string) => ({ code: 'RECORD_CONFLICT', rule });

/** Ids in ascending order, random so that tests never depend on a fixed id space. */
const ascendingIds = (count: number): string[] =>
  Array.from({ length: count }, () => randomUUID()).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

async function seedAccount(repo: RecordsRepository, overrides: Partial<AccountRecord> = {}) {
  const account = anAccount(overrides);
  await repo.withTransaction((tx) => tx.insertAccount({ account }));
  return account;
}

async function seedApiKey(repo: RecordsRepository, overrides: Partial<ApiKeyRecord> = {}) {
  const accountId = overrides.accountId ?? (await seedAccount(repo)).id;
  const apiKey = anApiKey({ ...overrides, accountId });
  await repo.withTransaction((tx) => tx.insertApiKey({ apiKey }));
  return apiKey;
}

async function seedProject(repo: RecordsRepository, overrides: Partial<ProjectRecord> = {}) {
  const accountId = overrides.accountId ?? (await seedAccount(repo)).id;
  const project = aProject({ ...overrides, accountId });
  await repo.withTransaction((tx) => tx.insertProject({ project }));
  return project;
}

async function seedFile(repo: RecordsRepository, overrides: Partial<FileRecord> = {}) {
  const projectId = overrides.projectId ?? (await seedProject(repo)).id;
  const file = aFile({ ...overrides, projectId });
  await repo.withTransaction((tx) => tx.insertFile({ file }));
  return file;
}

async function setProjectStatus(repo: RecordsRepository, project: ProjectRecord, status: ProjectStatus) {
  const updated = { ...project, status };
  await repo.withTransaction((tx) => tx.updateProject({ project: updated }));
  return updated;
}

const asMutable = (record: object) => record as Record<string, unknown>;

/** A fixed permutation that matches neither the given order nor its reverse. */
const scramble = <T>(list: readonly T[]): T[] => [
  ...list.filter((_, index) => index % 2 === 1),
  ...list.filter((_, index) => index % 2 === 0).reverse(),
];

/**
 * The compliance suite of `RecordsRepository`. `open` must return a fresh, empty, isolated store for
 * every test; optional features are read from `repository.supports`.
 */
export function describeRecordsRepositoryContract(
  adapterName: string,
  open: () => Promise<RecordsHarness>,
): void {
  const test = testWithHarness(open);

  describe(`RecordsRepository contract: ${adapterName}`, () => {
    describe('accounts', () => {
      test('inserts an account and finds it by id and by name', async ({ repository }) => {
        const account = await seedAccount(repository, { tier: 'premium' });
        expect(await repository.findAccountById({ accountId: account.id })).toEqual(account);
        expect(await repository.findAccountByName({ name: account.name })).toEqual(account);
        expect(await repository.findAccountById({ accountId: randomUUID() })).toBeNull();
        expect(await repository.findAccountByName({ name: `${account.name}-other` })).toBeNull();
      });

      test('lists accounts by createdAt, then id', async ({ repository }) => {
        const [id1, id2, id3, id4, id5] = ascendingIds(5) as [string, string, string, string, string];
        // The expected order agrees neither with the insertion order nor with the id order alone.
        const expected = [
          anAccount({ id: id5, createdAt: BASE_TIME - 1 }),
          anAccount({ id: id1, createdAt: BASE_TIME }),
          anAccount({ id: id3, createdAt: BASE_TIME }),
          anAccount({ id: id4, createdAt: BASE_TIME }),
          anAccount({ id: id2, createdAt: BASE_TIME + 1 }),
        ];
        for (const index of [3, 0, 4, 1, 2]) {
          const account = expected[index]!;
          await repository.withTransaction((tx) => tx.insertAccount({ account }));
        }
        expect(await repository.listAccounts()).toEqual(expected);
      });

      test('refuses a second account with the same name (rule account_name)', async ({ repository }) => {
        const first = await seedAccount(repository, { name: 'acme' });
        await expect(seedAccount(repository, { name: 'acme' })).rejects.toMatchObject(
          conflict('account_name'),
        );
        expect(await repository.listAccounts()).toEqual([first]);
      });

      test('updates the tier of an account', async ({ repository }) => {
        const account = await seedAccount(repository, { tier: 'standard' });
        const updated = await repository.withTransaction((tx) =>
          tx.updateAccountTier({ accountId: account.id, tier: 'premium' }),
        );
        expect(updated).toBe(true);
        expect(await repository.findAccountById({ accountId: account.id })).toEqual({
          ...account,
          tier: 'premium',
        });
        const missing = await repository.withTransaction((tx) =>
          tx.updateAccountTier({ accountId: randomUUID(), tier: 'premium' }),
        );
        expect(missing).toBe(false);
      });
    });

    describe('API keys', () => {
      test('inserts a key and finds it by id and by hash', async ({ repository }) => {
        const apiKey = await seedApiKey(repository);
        expect(await repository.findApiKeyById({ keyId: apiKey.id })).toEqual(apiKey);
        expect(await repository.findApiKeyByHash({ keyHash: apiKey.keyHash })).toEqual(apiKey);
        expect(await repository.findApiKeyById({ keyId: randomUUID() })).toBeNull();
        expect(await repository.findApiKeyByHash({ keyHash: sha256Hex('unknown') })).toBeNull();
      });

      test("lists an account's keys by createdAt, then id", async ({ repository }) => {
        const account = await seedAccount(repository);
        const other = await seedAccount(repository);
        const [id1, id2, id3] = ascendingIds(3) as [string, string, string];
        const expected = [
          anApiKey({ id: id3, accountId: account.id, createdAt: BASE_TIME }),
          anApiKey({ id: id1, accountId: account.id, createdAt: BASE_TIME + 5 }),
          anApiKey({ id: id2, accountId: account.id, createdAt: BASE_TIME + 5 }),
        ];
        for (const apiKey of [expected[2]!, expected[0]!, expected[1]!]) {
          await repository.withTransaction((tx) => tx.insertApiKey({ apiKey }));
        }
        await seedApiKey(repository, { accountId: other.id });
        expect(await repository.listApiKeys({ accountId: account.id })).toEqual(expected);
        expect(await repository.listApiKeys({ accountId: randomUUID() })).toEqual([]);
      });

      test('revokes a key once; the revoked key is still found with revokedAt', async ({ repository }) => {
        const apiKey = await seedApiKey(repository);
        const revokedAt = BASE_TIME + 60_001;
        const revoke = (keyId: string, at: number) =>
          repository.withTransaction((tx) => tx.revokeApiKey({ keyId, revokedAt: at }));
        expect(await revoke(apiKey.id, revokedAt)).toBe(true);
        expect(await revoke(apiKey.id, revokedAt + 1)).toBe(false);
        expect(await revoke(randomUUID(), revokedAt)).toBe(false);
        const expected = { ...apiKey, revokedAt };
        expect(await repository.findApiKeyById({ keyId: apiKey.id })).toEqual(expected);
        expect(await repository.findApiKeyByHash({ keyHash: apiKey.keyHash })).toEqual(expected);
        expect(await repository.listApiKeys({ accountId: apiKey.accountId })).toEqual([expected]);
      });
    });

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
        const find = (name: string) =>
          repository.findActiveProjectByName({ accountId: upper.accountId, name });
        expect(await find('Docs')).toEqual(upper);
        expect(await find('docs')).toEqual(lower);
        expect(await find('DOCS')).toBeNull();
      });

      test('keeps project names exactly as given (no normalisation, no trimming)', async ({ repository }) => {
        const account = await seedAccount(repository);
        const names = ['caf\u00e9', 'cafe\u0301', ' docs', 'docs ', 'docs', '\u{1F4DA} books'];
        const projects: ProjectRecord[] = [];
        for (const name of names)
          projects.push(await seedProject(repository, { accountId: account.id, name }));
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
          updatedAt: BASE_TIME + 1_001,
        };
        await repository.withTransaction((tx) => tx.updateProject({ project: changed }));
        expect(await repository.findProjectById({ projectId: project.id })).toEqual(changed);

        const back: ProjectRecord = { ...changed, description: 'after', status: 'active', fileCount: 0 };
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

      test('refuses reactivating a project whose name is taken (rule project_name)', async ({
        repository,
      }) => {
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

    describe('files', () => {
      test('inserts a file and finds it by project and filename', async ({ repository }) => {
        const file = await seedFile(repository, { metadataJson: '{"title":"Hello"}' });
        expect(await repository.findFile({ projectId: file.projectId, filename: file.filename })).toEqual(
          file,
        );
        expect(await repository.findFile({ projectId: file.projectId, filename: 'missing.md' })).toBeNull();
        const other = await seedProject(repository);
        expect(await repository.findFile({ projectId: other.id, filename: file.filename })).toBeNull();
      });

      test('refuses a second file with the same filename in one project (rule filename)', async ({
        repository,
      }) => {
        const file = await seedFile(repository, { filename: 'notes.md' });
        await expect(
          seedFile(repository, { projectId: file.projectId, filename: 'notes.md' }),
        ).rejects.toMatchObject(conflict('filename'));
        expect(await repository.listFiles({ projectId: file.projectId })).toEqual([file]);
      });

      test('allows the same filename in another project', async ({ repository }) => {
        const first = await seedFile(repository, { filename: 'notes.md' });
        const second = await seedFile(repository, { filename: 'notes.md' });
        expect(await repository.findFile({ projectId: first.projectId, filename: 'notes.md' })).toEqual(
          first,
        );
        expect(await repository.findFile({ projectId: second.projectId, filename: 'notes.md' })).toEqual(
          second,
        );
      });

      test('keeps case twins and normalisation twins as distinct files', async ({ repository }) => {
        const project = await seedProject(repository);
        const names = ['a.md', 'A.md', 'caf\u00e9.md', 'cafe\u0301.md'];
        const files: FileRecord[] = [];
        for (const filename of names)
          files.push(await seedFile(repository, { projectId: project.id, filename }));
        for (const file of files) {
          expect(await repository.findFile({ projectId: project.id, filename: file.filename })).toEqual(file);
        }
        expect(await repository.listFiles({ projectId: project.id })).toHaveLength(names.length);
      });

      test('lists files by filename in Unicode code point order', async ({ repository }) => {
        const project = await seedProject(repository);
        // Code point order; UTF-16 order would put the astral emoji before U+E000 and U+FFFD.
        const expectedNames = [
          'B.md',
          '_.md',
          'a-b.md',
          'a.md',
          'a.mdx',
          'b.md',
          '\u00e9.md',
          '\uE000.md',
          '\uFFFD.md',
          '\u{1F600}.md',
          '\u{10FFFD}.md',
        ];
        for (const filename of scramble(expectedNames)) {
          await seedFile(repository, { projectId: project.id, filename });
        }
        await seedFile(repository, { filename: '0-other-project.md' });
        const listed = await repository.listFiles({ projectId: project.id });
        expect(listed.map((file) => file.filename)).toEqual(expectedNames);
        expect(await repository.listFiles({ projectId: randomUUID() })).toEqual([]);
      });

      test('updateFile writes every mutable field', async ({ repository }) => {
        const file = await seedFile(repository, { metadataJson: '{"v":1}' });
        const changed: FileRecord = {
          ...file,
          sizeBytes: 2_048,
          sha256: sha256Hex('new content'),
          metadataJson: null,
          blobKey: `blob-${randomUUID()}`,
          revision: 2,
          updatedAt: BASE_TIME + 2_002,
        };
        await repository.withTransaction((tx) => tx.updateFile({ file: changed }));
        expect(await repository.findFile({ projectId: file.projectId, filename: file.filename })).toEqual(
          changed,
        );

        const again: FileRecord = {
          ...changed,
          metadataJson: '{"v":3}',
          revision: 3,
          updatedAt: BASE_TIME + 3_003,
        };
        await repository.withTransaction((tx) => tx.updateFile({ file: again }));
        expect(await repository.findFile({ projectId: file.projectId, filename: file.filename })).toEqual(
          again,
        );
      });

      test('deleteFile removes only that file', async ({ repository }) => {
        const file = await seedFile(repository, { filename: 'a.md' });
        const kept = await seedFile(repository, { projectId: file.projectId, filename: 'b.md' });
        await repository.withTransaction((tx) => tx.deleteFile({ fileId: file.id }));
        expect(await repository.findFile({ projectId: file.projectId, filename: 'a.md' })).toBeNull();
        expect(await repository.listFiles({ projectId: file.projectId })).toEqual([kept]);
        // The filename is free again.
        await seedFile(repository, { projectId: file.projectId, filename: 'a.md' });
      });

      test("deleteFilesOfProject deletes the project's files and returns their count", async ({
        repository,
      }) => {
        const project = await seedProject(repository);
        const other = await seedProject(repository);
        for (const filename of ['a.md', 'b.md', 'c.md'])
          await seedFile(repository, { projectId: project.id, filename });
        const kept = await seedFile(repository, { projectId: other.id, filename: 'a.md' });
        const count = await repository.withTransaction((tx) =>
          tx.deleteFilesOfProject({ projectId: project.id }),
        );
        expect(count).toBe(3);
        expect(await repository.listFiles({ projectId: project.id })).toEqual([]);
        expect(await repository.listFiles({ projectId: other.id })).toEqual([kept]);
        const none = await repository.withTransaction((tx) =>
          tx.deleteFilesOfProject({ projectId: project.id }),
        );
        expect(none).toBe(0);
      });

      test('round-trips metadataJson exactly', async ({ repository }) => {
        const project = await seedProject(repository);
        const texts = [
          '{"title":"Caf\u00e9 \u{1F600} \u05E9\u05DC\u05D5\u05DD","nfd":"cafe\u0301"}',
          '{"__proto__":{"polluted":true},"constructor":1}',
          '{ "spaced" :  [1, 2.50, 1e3],\n "z": null, "a": "\\u0041"}',
          JSON.stringify({ big: 'x'.repeat(60 * 1024) }),
          null,
        ];
        const files: FileRecord[] = [];
        for (const [index, metadataJson] of texts.entries()) {
          files.push(
            await seedFile(repository, { projectId: project.id, filename: `${index}.md`, metadataJson }),
          );
        }
        for (const file of files) {
          const found = await repository.findFile({ projectId: project.id, filename: file.filename });
          expect(found?.metadataJson).toBe(file.metadataJson);
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });

      test('round-trips timestamps to the millisecond', async ({ repository }) => {
        const at = (offset: number) => Date.UTC(2031, 11, 31, 23, 59, 59, 999) + offset;
        const account = await seedAccount(repository, { createdAt: at(-998) });
        const apiKey = await seedApiKey(repository, {
          accountId: account.id,
          createdAt: at(-1),
          revokedAt: at(0),
        });
        const project = await seedProject(repository, {
          accountId: account.id,
          createdAt: Date.UTC(1999, 0, 1, 0, 0, 0, 1),
          updatedAt: at(0),
        });
        const file = await seedFile(repository, {
          projectId: project.id,
          createdAt: at(-7),
          updatedAt: at(7),
        });
        expect(await repository.findAccountById({ accountId: account.id })).toEqual(account);
        expect(await repository.findApiKeyById({ keyId: apiKey.id })).toEqual(apiKey);
        expect(await repository.findProjectById({ projectId: project.id })).toEqual(project);
        expect(await repository.findFile({ projectId: project.id, filename: file.filename })).toEqual(file);
      });

      test('isBlobReferenced(bucket): true while the project is active or deleting', async ({
        repository,
      }) => {
        const active = await seedProject(repository);
        const deleting = await seedProject(repository, { status: 'deleting' });
        const deleted = await seedProject(repository, { status: 'deleted' });
        const referenced = (bucket: string) => repository.isBlobReferenced({ bucket, key: null });
        expect(await referenced(active.bucketName)).toBe(true);
        expect(await referenced(deleting.bucketName)).toBe(true);
        expect(await referenced(deleted.bucketName)).toBe(false);
        expect(await referenced(`mdstore-${randomUUID()}`)).toBe(false);
      });

      test('isBlobReferenced(key): true when a file of the bucket owner has the blob key', async ({
        repository,
      }) => {
        const file = await seedFile(repository);
        const owner = await repository.findProjectById({ projectId: file.projectId });
        const other = await seedProject(repository);
        const referenced = (bucket: string, key: string) => repository.isBlobReferenced({ bucket, key });
        expect(await referenced(owner!.bucketName, file.blobKey)).toBe(true);
        expect(await referenced(owner!.bucketName, `blob-${randomUUID()}`)).toBe(false);
        expect(await referenced(other.bucketName, file.blobKey)).toBe(false);
        expect(await referenced(`mdstore-${randomUUID()}`, file.blobKey)).toBe(false);
        await repository.withTransaction((tx) => tx.deleteFile({ fileId: file.id }));
        expect(await referenced(owner!.bucketName, file.blobKey)).toBe(false);
      });
    });

    describe('blob intents and instances', () => {
      test('inserts blob intents and lists them in id order, with a limit and after an id', async ({
        repository,
      }) => {
        const owner = anInstance();
        await repository.withTransaction((tx) => tx.upsertInstance({ instance: owner }));
        const [id1, id2, id3, id4] = ascendingIds(4) as [string, string, string, string];
        // createdAt runs against id order: the list must follow the ids.
        const intents = [
          aBlobIntent({ id: id1, ownerInstanceId: owner.id, kind: 'staged', createdAt: BASE_TIME + 3 }),
          aBlobIntent({
            id: id2,
            ownerInstanceId: owner.id,
            kind: 'doomed',
            key: null,
            createdAt: BASE_TIME + 2,
          }),
          aBlobIntent({ id: id3, ownerInstanceId: owner.id, kind: 'doomed', createdAt: BASE_TIME + 1 }),
          aBlobIntent({ id: id4, ownerInstanceId: owner.id, kind: 'staged', createdAt: BASE_TIME }),
        ];
        for (const intent of scramble(intents)) {
          await repository.withTransaction((tx) => tx.insertBlobIntent({ intent }));
        }
        expect(await repository.listBlobIntents({ limit: 10 })).toEqual(intents);
        expect(await repository.listBlobIntents({ limit: 2 })).toEqual(intents.slice(0, 2));
        expect(await repository.listBlobIntents({ limit: 2, afterId: id2 })).toEqual(intents.slice(2, 4));
        expect(await repository.listBlobIntents({ limit: 10, afterId: id4 })).toEqual([]);
      });

      test('deleteBlobIntent returns true once, then false', async ({ repository }) => {
        const owner = anInstance();
        await repository.withTransaction((tx) => tx.upsertInstance({ instance: owner }));
        const [kept, doomed] = [
          aBlobIntent({ ownerInstanceId: owner.id }),
          aBlobIntent({ ownerInstanceId: owner.id }),
        ];
        await repository.withTransaction(async (tx) => {
          await tx.insertBlobIntent({ intent: kept });
          await tx.insertBlobIntent({ intent: doomed });
        });
        const remove = (intentId: string) =>
          repository.withTransaction((tx) => tx.deleteBlobIntent({ intentId }));
        expect(await remove(doomed.id)).toBe(true);
        expect(await remove(doomed.id)).toBe(false);
        expect(await remove(randomUUID())).toBe(false);
        expect(await repository.listBlobIntents({ limit: 10 })).toEqual([kept]);
      });

      test('upserts, lists and deletes instances', async ({ repository }) => {
        const instance = anInstance({ startedAt: BASE_TIME, heartbeatAt: BASE_TIME });
        const other = anInstance({ hostname: 'other-host', pid: 7 });
        await repository.withTransaction((tx) => tx.upsertInstance({ instance }));
        await repository.withTransaction((tx) => tx.upsertInstance({ instance: other }));
        const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
        expect((await repository.listInstances()).sort(byId)).toEqual([instance, other].sort(byId));

        const beat = { ...instance, heartbeatAt: BASE_TIME + 15_001 };
        await repository.withTransaction((tx) => tx.upsertInstance({ instance: beat }));
        expect((await repository.listInstances()).sort(byId)).toEqual([beat, other].sort(byId));

        await repository.withTransaction((tx) => tx.deleteInstance({ instanceId: other.id }));
        expect(await repository.listInstances()).toEqual([beat]);
      });
    });

    describe('transactions', () => {
      test('commits: the writes become visible and the result is returned', async ({ repository }) => {
        const account = anAccount();
        const project = aProject({ accountId: account.id });
        const result = await repository.withTransaction(async (tx) => {
          await tx.insertAccount({ account });
          await tx.insertProject({ project });
          return 'done';
        });
        expect(result).toBe('done');
        expect(await repository.findAccountById({ accountId: account.id })).toEqual(account);
        expect(await repository.findProjectById({ projectId: project.id })).toEqual(project);
      });

      test('a throw rolls back every write of the transaction and rethrows the same error', async ({
        repository,
      }) => {
        const file = await seedFile(repository);
        const project = (await repository.findProjectById({ projectId: file.projectId }))!;
        const apiKey = await seedApiKey(repository, { accountId: project.accountId });
        const instance = anInstance();
        const intent = aBlobIntent({ ownerInstanceId: instance.id });
        await repository.withTransaction(async (tx) => {
          await tx.upsertInstance({ instance });
          await tx.insertBlobIntent({ intent });
        });
        const before = await snapshot(repository, project);

        const boom = new Error('boom');
        const newAccount = anAccount();
        const failing = repository.withTransaction(async (tx) => {
          await tx.insertAccount({ account: newAccount });
          await tx.updateAccountTier({ accountId: project.accountId, tier: 'premium' });
          await tx.revokeApiKey({ keyId: apiKey.id, revokedAt: BASE_TIME + 1 });
          await tx.updateProject({ project: { ...project, fileCount: 99, name: 'changed' } });
          await tx.insertProject({ project: aProject({ accountId: project.accountId }) });
          await tx.deleteFile({ fileId: file.id });
          await tx.insertFile({ file: aFile({ projectId: project.id }) });
          await tx.insertBlobIntent({ intent: aBlobIntent({ ownerInstanceId: instance.id }) });
          await tx.deleteBlobIntent({ intentId: intent.id });
          await tx.upsertInstance({ instance: { ...instance, heartbeatAt: BASE_TIME + 9 } });
          throw boom;
        });
        await expect(failing).rejects.toBe(boom);
        expect(await repository.findAccountById({ accountId: newAccount.id })).toBeNull();
        expect(await snapshot(repository, project)).toEqual(before);
      });

      test('reads inside a transaction see its own writes', async ({ repository }) => {
        const account = anAccount();
        const project = aProject({ accountId: account.id, name: 'docs' });
        const file = aFile({ projectId: project.id });
        const seen = await repository.withTransaction(async (tx) => {
          await tx.insertAccount({ account });
          await tx.insertProject({ project });
          await tx.insertFile({ file });
          await tx.updateProject({ project: { ...project, fileCount: 1 } });
          return {
            account: await tx.findAccountByName({ name: account.name }),
            accounts: await tx.listAccounts(),
            project: await tx.findActiveProjectByName({ accountId: account.id, name: 'docs' }),
            locked: await tx.lockProject({ projectId: project.id }),
            files: await tx.listFiles({ projectId: project.id }),
          };
        });
        expect(seen.account).toEqual(account);
        expect(seen.accounts).toEqual([account]);
        expect(seen.project).toEqual({ ...project, fileCount: 1 });
        expect(seen.locked).toEqual({ ...project, fileCount: 1 });
        expect(seen.files).toEqual([file]);
      });

      test('uncommitted writes are invisible outside the transaction', async ({ repository }) => {
        const project = await seedProject(repository);
        const account = anAccount();
        const wrote = gate();
        const release = gate();
        const transaction = repository.withTransaction(async (tx) => {
          await tx.insertAccount({ account });
          await tx.updateProject({ project: { ...project, fileCount: 5 } });
          wrote.open();
          await release.promise;
        });
        await Promise.race([wrote.promise, transaction]);

        const outside = Promise.all([
          repository.findAccountById({ accountId: account.id }),
          repository.listAccounts(),
          repository.findProjectById({ projectId: project.id }),
        ]);
        // A store may also make outside reads wait for the commit; the wait is bounded so the test can
        // release the transaction instead of deadlocking, and only an early answer is checked.
        const answeredWhileOpen = await settlesWithin(outside, 3_000);
        release.open();
        await transaction;
        if (answeredWhileOpen) {
          const [found, accounts, seenProject] = await outside;
          expect(found).toBeNull();
          expect(accounts.map((a) => a.id)).not.toContain(account.id);
          expect(seenProject).toEqual(project);
        }
        expect(await repository.findAccountById({ accountId: account.id })).toEqual(account);
        expect((await repository.findProjectById({ projectId: project.id }))?.fileCount).toBe(5);
      });

      test("a unique-rule conflict inside a transaction rolls back the transaction's earlier writes", async ({
        repository,
      }) => {
        const existing = await seedAccount(repository, { name: 'taken' });
        const fresh = anAccount();
        const failing = repository.withTransaction(async (tx) => {
          await tx.insertAccount({ account: fresh });
          await tx.updateAccountTier({ accountId: existing.id, tier: 'premium' });
          await tx.insertAccount({ account: anAccount({ name: 'taken' }) });
        });
        await expect(failing).rejects.toMatchObject(conflict('account_name'));
        expect(await repository.findAccountById({ accountId: fresh.id })).toBeNull();
        expect(await repository.listAccounts()).toEqual([existing]);
      });

      test('concurrent lock-then-update transactions lose no update', async ({ repository }) => {
        const project = await seedProject(repository);
        await Promise.all(Array.from({ length: 20 }, () => incrementFileCount(repository, project.id)));
        expect((await repository.findProjectById({ projectId: project.id }))?.fileCount).toBe(20);
      });

      test('returns copies: mutating a given or returned record changes nothing stored', async ({
        repository,
      }) => {
        const account = anAccount();
        await repository.withTransaction((tx) => tx.insertAccount({ account }));
        asMutable(account).name = 'mutated after insert';
        const found = await repository.findAccountById({ accountId: account.id });
        expect(found?.name).not.toBe('mutated after insert');
        asMutable(found!).tier = 'premium';
        const [listed] = await repository.listAccounts();
        asMutable(listed!).createdAt = 0;
        const again = await repository.findAccountById({ accountId: account.id });
        expect(again?.tier).toBe('standard');
        expect(again?.createdAt).toBe(BASE_TIME);
      });
    });

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
  });
}

async function incrementFileCount(repository: RecordsRepository, projectId: string): Promise<void> {
  await repository.withTransaction(async (tx) => {
    const locked = await tx.lockProject({ projectId });
    if (!locked) throw new Error(`project ${projectId} vanished`);
    // Give other transactions every chance to interleave between the read and the write.
    await nextMacrotask();
    await tx.updateProject({ project: { ...locked, fileCount: locked.fileCount + 1 } });
  });
}

/** Everything a rolled-back transaction could have touched around one project. */
async function snapshot(repository: RecordsRepository, project: ProjectRecord) {
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return {
    accounts: await repository.listAccounts(),
    apiKeys: await repository.listApiKeys({ accountId: project.accountId }),
    projects: await repository.listProjects({ accountId: project.accountId }),
    files: await repository.listFiles({ projectId: project.id }),
    intents: (await repository.listBlobIntents({ limit: 100 })).sort(byId),
    instances: (await repository.listInstances()).sort(byId),
  };
}
