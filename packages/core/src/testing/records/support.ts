import { randomUUID } from 'node:crypto';
import type {
  AccountRecord,
  ApiKeyRecord,
  FileRecord,
  ProjectRecord,
  ProjectStatus,
} from '../../model/records.js';
import type { RecordsRepository } from '../../ports/records.js';
import { aFile, anAccount, anApiKey, aProject, aRevision } from '../builders.js';
import { nextMacrotask } from '../harness.js';

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

export const conflict = (rule: string) => ({ code: 'RECORD_CONFLICT', rule });

/** Ids in ascending order, random so that tests never depend on a fixed id space. */
export const ascendingIds = (count: number): string[] =>
  Array.from({ length: count }, () => randomUUID()).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export async function seedAccount(repo: RecordsRepository, overrides: Partial<AccountRecord> = {}) {
  const account = anAccount(overrides);
  await repo.withTransaction((tx) => tx.insertAccount({ account }));
  return account;
}

export async function seedApiKey(repo: RecordsRepository, overrides: Partial<ApiKeyRecord> = {}) {
  const accountId = overrides.accountId ?? (await seedAccount(repo)).id;
  const apiKey = anApiKey({ ...overrides, accountId });
  await repo.withTransaction((tx) => tx.insertApiKey({ apiKey }));
  return apiKey;
}

export async function seedProject(repo: RecordsRepository, overrides: Partial<ProjectRecord> = {}) {
  const accountId = overrides.accountId ?? (await seedAccount(repo)).id;
  const project = aProject({ ...overrides, accountId });
  await repo.withTransaction((tx) => tx.insertProject({ project }));
  return project;
}

export async function seedFile(repo: RecordsRepository, overrides: Partial<FileRecord> = {}) {
  const projectId = overrides.projectId ?? (await seedProject(repo)).id;
  const file = aFile({ ...overrides, projectId });
  await repo.withTransaction(async (tx) => {
    await tx.insertFile({ file });
    await tx.insertRevision({ revision: aRevision(file) });
  });
  return file;
}

export async function setProjectStatus(
  repo: RecordsRepository,
  project: ProjectRecord,
  status: ProjectStatus,
) {
  const updated = { ...project, status };
  await repo.withTransaction((tx) => tx.updateProject({ project: updated }));
  return updated;
}

export const asMutable = (record: object) => record as Record<string, unknown>;

/** A fixed permutation that matches neither the given order nor its reverse. */
export const scramble = <T>(list: readonly T[]): T[] => [
  ...list.filter((_, index) => index % 2 === 1),
  ...list.filter((_, index) => index % 2 === 0).reverse(),
];

/** A test that opens its own harness (see `testWithHarness`). */
export type HarnessTest = (
  name: string,
  body: (harness: RecordsHarness, context: import('vitest').TestContext) => Promise<void>,
) => void;

/** The suite's context: the adapter's name (for skip messages) and the test declarer. */
export interface SuiteContext {
  readonly adapterName: string;
  readonly test: HarnessTest;
}

export async function incrementFileCount(repository: RecordsRepository, projectId: string): Promise<void> {
  await repository.withTransaction(async (tx) => {
    const locked = await tx.lockProject({ projectId });
    if (!locked) throw new Error(`project ${projectId} vanished`);
    // Give other transactions every chance to interleave between the read and the write.
    await nextMacrotask();
    await tx.updateProject({ project: { ...locked, fileCount: locked.fileCount + 1 } });
  });
}

/** Everything a rolled-back transaction could have touched around one project. */
export async function snapshot(repository: RecordsRepository, project: ProjectRecord) {
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
