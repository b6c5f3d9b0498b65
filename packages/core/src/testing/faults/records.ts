import type { RecordsReader, RecordsRepository, RecordsTransaction } from '../../ports/records.js';
import type { FaultPlan } from './plan.js';
import { createStriker, type Striker, underFault } from './strike.js';

type ReaderMethod = keyof RecordsReader;
type WriteMethod = Exclude<keyof RecordsTransaction, ReaderMethod>;

/** Every reader method; the `satisfies` makes a method added to the port a compile error here. */
const READER_METHODS = Object.keys({
  findAccountById: true,
  findAccountByName: true,
  listAccounts: true,
  findApiKeyById: true,
  findApiKeys: true,
  expandSearchPrefix: true,
  findApiKeyByHash: true,
  findApiKeyWithAccount: true,
  listApiKeys: true,
  listAuditEntries: true,
  findProjectById: true,
  findActiveProjectByName: true,
  listProjects: true,
  listProjectsByStatus: true,
  listProjectPage: true,
  countProjects: true,
  findFile: true,
  findFiles: true,
  listFiles: true,
  listFilePage: true,
  countFiles: true,
  isBlobReferenced: true,
  findRevision: true,
  listRevisions: true,
  listRevisionContents: true,
  readInlineContent: true,
  findSearchCandidates: true,
  listUnindexedFiles: true,
  findFileLinks: true,
  listLinksTo: true,
  listLinkTargets: true,
  listLinkPage: true,
  listFilesWithoutLinks: true,
  findTrashItem: true,
  listTrash: true,
  countTrash: true,
  listExpiredTrash: true,
  listBlobIntents: true,
  listInstances: true,
  listChangeEvents: true,
  findChangeFeedHead: true,
  findStoreSecret: true,
  findShareById: true,
  findShareByHash: true,
  listShares: true,
  findWebhook: true,
  listWebhooks: true,
  listActiveWebhooks: true,
  listWebhookDeliveries: true,
  findAttachment: true,
  findAttachments: true,
  findAttachmentBySha256: true,
  listAttachmentPage: true,
  findDraft: true,
  listDrafts: true,
  countDrafts: true,
  listDraftFiles: true,
  findDraftFile: true,
  listDraftReviews: true,
  listFileChunks: true,
  listChunkVectors: true,
  countEmbeddedFiles: true,
  findEmbeddingCursor: true,
  findScheduleSlot: true,
  countChunkVectors: true,
  findVectorLists: true,
} satisfies Record<ReaderMethod, true>) as ReaderMethod[];

const WRITE_METHODS = Object.keys({
  insertAccount: true,
  updateAccountTier: true,
  insertApiKey: true,
  revokeApiKey: true,
  touchApiKey: true,
  insertAuditEntries: true,
  deleteAuditEntriesBefore: true,
  lockProject: true,
  insertProject: true,
  updateProject: true,
  insertFile: true,
  updateFile: true,
  indexFile: true,
  indexLinks: true,
  deleteFile: true,
  purgeProjectRecords: true,
  insertRevision: true,
  deleteRevisions: true,
  insertInlineContent: true,
  deleteInlineContent: true,
  insertTrashItem: true,
  deleteTrashItem: true,
  insertBlobIntent: true,
  deleteBlobIntent: true,
  upsertInstance: true,
  deleteInstance: true,
  appendChangeEvents: true,
  deleteChangeEventsBefore: true,
  keepStoreSecret: true,
  insertShare: true,
  revokeShare: true,
  insertWebhook: true,
  deleteWebhook: true,
  claimWebhook: true,
  saveWebhookProgress: true,
  enableWebhook: true,
  insertWebhookDelivery: true,
  deleteWebhookDeliveriesBefore: true,
  insertAttachment: true,
  updateAttachment: true,
  renameAttachment: true,
  deleteAttachment: true,
  insertDraft: true,
  updateDraft: true,
  putDraftFile: true,
  insertDraftReview: true,
  replaceFileChunks: true,
  deleteFileChunks: true,
  deleteProjectChunks: true,
  claimEmbeddingCursor: true,
  saveEmbeddingCursor: true,
  claimScheduleSlot: true,
  finishScheduleSlot: true,
  deleteScheduleSlotsBefore: true,
  saveVectorLists: true,
  setChunkLists: true,
} satisfies Record<WriteMethod, true>) as WriteMethod[];

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/** Copies of `target`'s `methods`, each run under the plan's decision for `prefix + name`. */
function faultyMethods<T extends object>(
  target: T,
  methods: readonly (keyof T & string)[],
  striker: Striker,
  prefix = '',
): Partial<T> {
  const wrapped: Record<string, AnyMethod> = {};
  for (const name of methods) {
    const real = (target[name] as AnyMethod).bind(target);
    const method = `${prefix}${name}`;
    wrapped[name] = (...args) =>
      underFault(striker.decide(method, striker.count(method)), () => real(...args));
  }
  return wrapped as Partial<T>;
}

/**
 * The repository with faults injected by `plan`: reads as `findFile` etc., transactions at their three
 * points (`beforeWork`, `beforeCommit`, `afterCommit` of `withTransaction`), and transaction methods as
 * `tx.<method>` (a fault there throws inside the work, which must then roll back). Otherwise faithful.
 */
export function withRecordsFaults(inner: RecordsRepository, plan: FaultPlan): RecordsRepository {
  const striker = createStriker(plan, 'records');
  const wrapTx = (tx: RecordsTransaction): RecordsTransaction =>
    ({
      ...faultyMethods(tx, READER_METHODS, striker, 'tx.'),
      ...faultyMethods(tx, WRITE_METHODS, striker, 'tx.'),
    }) as RecordsTransaction;
  const point = (call: number, at: 'beforeWork' | 'beforeCommit' | 'afterCommit') =>
    underFault(striker.decide('withTransaction', call, at), async () => {});

  return {
    ...(faultyMethods(inner, READER_METHODS, striker) as RecordsReader),
    supports: inner.supports,
    async withTransaction<T>(work: (tx: RecordsTransaction) => Promise<T>): Promise<T> {
      const call = striker.count('withTransaction');
      const result = await inner.withTransaction(async (tx) => {
        await point(call, 'beforeWork');
        const value = await work(wrapTx(tx));
        await point(call, 'beforeCommit');
        return value;
      });
      await point(call, 'afterCommit');
      return result;
    },
    close: () => inner.close(),
  };
}
