import { portableHashing, randomIds, systemClock, webCryptoSecrets } from './defaults/web-runtime.js';
import { contentLinkIndexing, type LinkIndexing } from './links/indexing.js';
import { inlineContentWork } from './markdown/content-work.js';
import type { AccountRecord } from './model/records.js';
import type { BlobStore } from './ports/blobs.js';
import type { ContentWork } from './ports/content-work.js';
import type { Embedder } from './ports/embedder.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { RecordsRepository } from './ports/records.js';
import type { ApiKeySecrets, Clock, ContentHashing, IdSource, InstanceProbe } from './ports/runtime.js';
import type { WebhookTransport } from './ports/webhooks.js';
import { SEARCH_LIMITS } from './search/limits.js';
import { assertWholeProjectReach } from './use-cases/access.js';
import * as accounts from './use-cases/accounts.js';
import * as attachments from './use-cases/attachments/index.js';
import * as audit from './use-cases/audit.js';
import type { Principal } from './use-cases/authentication.js';
import * as auth from './use-cases/authentication.js';
import * as changes from './use-cases/changes/list.js';
import * as changesets from './use-cases/changesets/index.js';
import { ContentBudget } from './use-cases/content-budget.js';
import {
  DEFAULT_SETTINGS,
  type MdStoreContext,
  type MdStoreEvents,
  type MdStoreSettings,
} from './use-cases/context.js';
import * as drafts from './use-cases/drafts/index.js';
import { exportProject } from './use-cases/export/index.js';
import * as files from './use-cases/files/index.js';
import { importProject } from './use-cases/import/index.js';
import * as keys from './use-cases/keys.js';
import * as links from './use-cases/links/index.js';
import * as maintenance from './use-cases/maintenance.js';
import * as memory from './use-cases/memory/index.js';
import * as projects from './use-cases/projects.js';
import * as restore from './use-cases/restore/index.js';
import { SearchDocumentCache } from './use-cases/search/document-cache.js';
import * as search from './use-cases/search/index.js';
import * as semantic from './use-cases/semantic/status.js';
import * as shares from './use-cases/shares.js';
import * as trash from './use-cases/trash/index.js';
import * as webhooks from './use-cases/webhooks/manage.js';
import { validateSettings } from './validation/settings.js';

export interface MdStoreAdapters {
  readonly records: RecordsRepository;
  readonly blobs: BlobStore;
  readonly rateLimiter: RateLimiter;
  readonly clock?: Clock;
  readonly ids?: IdSource;
  readonly secrets?: ApiKeySecrets;
  /** SHA-256 of content as it streams; a Node host passes a `node:crypto` one (faster than the default). */
  readonly hashing?: ContentHashing;
  /** Lets reconciliation know at once that a crashed process on this host is gone. */
  readonly probe?: InstanceProbe;
  readonly events?: MdStoreEvents;
  readonly settings?: Partial<MdStoreSettings>;
  /**
   * The key cursors are signed with (at least 32 bytes). Instances that serve one store behind a load
   * balancer must share it; without one, a random key per process (cursors then die with the process).
   */
  readonly cursorKey?: Uint8Array;
  /**
   * Where parses of large files run (outline, sections, section edits): the server passes a worker
   * pool, which lifts the inline bounds (an outline of up to 3 MiB, MDX as MDX up to 256 KiB); without
   * one, inline within one step's bound (markdown/content-work.ts).
   */
  readonly contentWork?: ContentWork;
  /** Checks a webhook's host when it is created or enabled (extensions §7); the server passes its own. */
  readonly webhookTransport?: WebhookTransport;
  /**
   * The link index's part of content writes (extensions §9); the core's own when absent. Replaced only
   * by the benchmark that measures what the index costs (`noLinkIndexing`, links/indexing.ts).
   */
  readonly linkIndexing?: LinkIndexing;
  /**
   * Turns on search by meaning (extensions §15): queries are embedded with it, and the indexer
   * (`createSemanticIndexer`, run apart) must use the same one. Absent: embeddings are off.
   */
  readonly embedder?: Embedder;
}

type Bound<F> = F extends (ctx: MdStoreContext, ...rest: infer A) => infer R ? (...rest: A) => R : never;
const bind = <F extends (ctx: MdStoreContext, ...rest: never[]) => unknown>(ctx: MdStoreContext, use: F) =>
  ((...rest: never[]) => use(ctx, ...rest)) as Bound<F>;

/**
 * Extensions §14, deny by default: the operations that do not yet keep to a key's folders (they would
 * show or change files outside them: the trash, shares, drafts, the audit log) are refused whole to a key
 * confined to folders (`403` "API key does not allow this
 * operation"), before they read anything. Every other operation checks the folders itself (access.ts).
 */
function notForFolderKeys<A extends { principal: Principal }, R>(
  ctx: MdStoreContext,
  use: (ctx: MdStoreContext, input: A) => Promise<R>,
): (input: A) => Promise<R> {
  return async (input) => {
    assertWholeProjectReach(input.principal);
    return use(ctx, input);
  };
}

/**
 * The core wired to a set of adapters: every use case of the interface, of accounts and keys, and of
 * maintenance. The caller owns the adapters and closes them.
 */
export function createMdStore(adapters: MdStoreAdapters) {
  const settings = validateSettings({ ...DEFAULT_SETTINGS, ...adapters.settings });
  const ctx: MdStoreContext = {
    records: adapters.records,
    blobs: adapters.blobs,
    rateLimiter: adapters.rateLimiter,
    clock: adapters.clock ?? systemClock,
    ids: adapters.ids ?? randomIds,
    secrets: adapters.secrets ?? webCryptoSecrets,
    hashing: adapters.hashing ?? portableHashing,
    probe: adapters.probe,
    events: adapters.events ?? { warn: () => {} },
    settings,
    instanceId: (adapters.ids ?? randomIds).uuid(),
    cursorKey: adapters.cursorKey ?? globalThis.crypto.getRandomValues(new Uint8Array(32)),
    searchDocuments: new SearchDocumentCache(SEARCH_LIMITS.documentCacheMaxTokens),
    contentWork: adapters.contentWork ?? inlineContentWork,
    contentBudget: new ContentBudget(settings.contentBudgetBytes, settings.contentBudgetWaitMs),
    linkIndexing: adapters.linkIndexing ?? contentLinkIndexing,
    webhookTransport: adapters.webhookTransport,
    embedder: adapters.embedder,
  };
  const authState = auth.newAuthenticationState();
  const startedAt = ctx.clock.now();
  return {
    instanceId: ctx.instanceId,
    settings: ctx.settings,
    accounts: {
      create: bind(ctx, accounts.createAccount),
      list: (): Promise<AccountRecord[]> => ctx.records.listAccounts(),
      find: (input: { account: string }) => accounts.resolveAccount(ctx.records, input.account),
      setTier: bind(ctx, accounts.setAccountTier),
      /** A principal of the account for in-process use: no API key needed (see docs/embedding.md). */
      principal: bind(ctx, accounts.inProcessPrincipal),
    },
    apiKeys: {
      create: bind(ctx, accounts.createApiKey),
      list: bind(ctx, accounts.listApiKeys),
      revoke: bind(ctx, accounts.revokeApiKey),
    },
    authenticate: (input: { apiKey: string | undefined; clientAddress?: string }) =>
      auth.authenticate(ctx, authState, input),
    consumeRequestBudget: (principal: auth.Principal) => auth.consumeRequestBudget(ctx, principal),
    // Extensions §8: the audit log; the server's queue writes batches, off the requests.
    audit: {
      write: bind(ctx, audit.writeAuditEntries),
      list: notForFolderKeys(ctx, audit.listAudit),
    },
    // Extensions §8: the account's keys, by a key.
    keys: {
      create: bind(ctx, keys.createKey),
      list: bind(ctx, keys.listKeys),
      current: bind(ctx, keys.currentKey),
      revoke: bind(ctx, keys.revokeKey),
    },
    // Extensions §11.
    shares: {
      create: notForFolderKeys(ctx, shares.createShare),
      list: notForFolderKeys(ctx, shares.listShares),
      revoke: notForFolderKeys(ctx, shares.revokeShare),
      open: bind(ctx, shares.openShare),
      attachment: bind(ctx, shares.readShareAttachment),
      limit: bind(ctx, shares.limitSharePages),
    },
    // Extensions §7: the account's webhooks (delivery runs apart: createWebhookDelivery).
    webhooks: {
      create: bind(ctx, webhooks.createWebhook),
      list: bind(ctx, webhooks.listWebhooks),
      get: bind(ctx, webhooks.getWebhook),
      delete: bind(ctx, webhooks.deleteWebhook),
      enable: bind(ctx, webhooks.enableWebhook),
      deliveries: bind(ctx, webhooks.listDeliveries),
    },
    projects: {
      create: bind(ctx, projects.createProject),
      list: bind(ctx, projects.listProjects),
      // Extensions §3.
      page: bind(ctx, projects.listProjectPage),
      get: bind(ctx, projects.getProject),
      read: bind(ctx, projects.readProject),
      update: bind(ctx, projects.updateProject),
      delete: bind(ctx, projects.deleteProject),
      // Extensions §10: the files with their contents, for an archive.
      export: bind(ctx, exportProject),
      // Extensions §10: an archive's Markdown files into the project, as one changeset.
      import: bind(ctx, importProject),
    },
    files: {
      upload: bind(ctx, files.uploadFile),
      list: bind(ctx, files.listFiles),
      download: bind(ctx, files.downloadFile),
      read: bind(ctx, files.readFile),
      updateMetadata: bind(ctx, files.updateFileMetadata),
      updateContent: bind(ctx, files.updateFileContent),
      delete: bind(ctx, files.deleteFile),
      // Extensions §4.
      edit: bind(ctx, files.editFile),
      readPart: bind(ctx, files.readFilePart),
      outline: bind(ctx, files.readOutline),
      // Extensions §11.
      html: bind(ctx, files.readFileHtml),
      // Extensions §11: unsaved text, rendered as a file of the project would be.
      render: bind(ctx, files.renderText),
      // Extensions §5.
      listRevisions: bind(ctx, files.listRevisions),
      readRevision: bind(ctx, files.readRevision),
      diff: bind(ctx, files.diffRevisions),
      restore: bind(ctx, files.restoreRevision),
      move: bind(ctx, files.moveFile),
      copy: bind(ctx, files.copyFile),
      // Extensions §3.
      search: bind(ctx, search.searchFiles),
      /** Extensions §15: where the semantic indexer stands for a project. */
      // The project's counts, like its counters: the same for a key confined to folders (extensions §14).
      searchStatus: bind(ctx, semantic.searchStatus),
      // Extensions §9.
      links: bind(ctx, links.readFileLinks),
    },
    // Extensions §12.
    attachments: {
      write: bind(ctx, attachments.writeAttachment),
      read: bind(ctx, attachments.readAttachment),
      list: bind(ctx, attachments.listAttachments),
      delete: bind(ctx, attachments.deleteAttachment),
      move: bind(ctx, attachments.moveAttachment),
    },
    // Extensions §9: the link index of a project.
    links: {
      broken: bind(ctx, links.listBrokenLinks),
      orphans: bind(ctx, links.listOrphans),
    },
    // Extensions §7: the account's change feed (the server holds long polls and streams over `read`).
    changes: {
      list: bind(ctx, changes.listChanges),
      open: bind(ctx, changes.openChanges),
      read: bind(ctx, changes.readChanges),
      keyState: bind(ctx, changes.heldKeyState),
    },
    // Extensions §9: many files in one atomic change.
    changesets: {
      apply: bind(ctx, changesets.applyChangeset),
      applyRequest: bind(ctx, changesets.applyChangesetRequest),
    },
    // Extensions §16: the project's files as they were at a time, as one changeset.
    restore: {
      asOf: bind(ctx, restore.restoreProjectAsOf),
    },
    // Extensions §14: Anthropic's memory tool on the project's folder `memories/`.
    memory: {
      run: bind(ctx, memory.runMemoryCommand),
    },
    // Extensions §13: proposed changes kept apart, reviewed, published as one changeset.
    drafts: {
      create: notForFolderKeys(ctx, drafts.createDraft),
      addOperations: notForFolderKeys(ctx, drafts.addDraftOperations),
      list: notForFolderKeys(ctx, drafts.listDrafts),
      get: notForFolderKeys(ctx, drafts.getDraft),
      readFile: notForFolderKeys(ctx, drafts.readDraftFile),
      diff: notForFolderKeys(ctx, drafts.diffDraft),
      review: notForFolderKeys(ctx, drafts.reviewDraft),
      close: notForFolderKeys(ctx, drafts.closeDraft),
      publish: notForFolderKeys(ctx, drafts.publishDraft),
    },
    // Extensions §5: the trash of a project.
    trash: {
      list: notForFolderKeys(ctx, trash.listTrash),
      restore: notForFolderKeys(ctx, trash.restoreTrashItem),
      delete: notForFolderKeys(ctx, trash.deleteTrashItem),
    },
    maintenance: {
      heartbeat: () => maintenance.heartbeat(ctx, startedAt),
      unregister: () => maintenance.unregisterInstance(ctx),
      reconcile: () => maintenance.reconcile(ctx),
      /** Indexes files stored before search existed; run before the server reports ready. */
      backfillSearch: () => search.backfillSearchIndex(ctx),
      /** Gives files stored before the link index (migration 10) their entry; run before ready too. */
      backfillLinks: () => links.backfillLinkIndex(ctx),
      expireTrash: () => trash.expireTrash(ctx),
    },
  };
}

export type MdStore = ReturnType<typeof createMdStore>;
