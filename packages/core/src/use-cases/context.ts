import { ATTACHMENT_LIMITS } from '../defaults/attachments.js';
import { CHANGES_LIMITS } from '../defaults/changes.js';
import type { LinkIndexing } from '../links/indexing.js';
import type { Tier } from '../model/records.js';
import type { BlobStore } from '../ports/blobs.js';
import type { ContentWork } from '../ports/content-work.js';
import type { Embedder } from '../ports/embedder.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { RecordsRepository } from '../ports/records.js';
import type { ApiKeySecrets, Clock, ContentHashing, IdSource, InstanceProbe } from '../ports/runtime.js';
import type { WebhookTransport } from '../ports/webhooks.js';
import type { ContentBudget } from './content-budget.js';
import { IMPORT_LIMITS } from './import/limits.js';
import type { SearchDocumentCache } from './search/document-cache.js';

export interface MdStoreSettings {
  /** Content size limit for uploads and content updates, in bytes. */
  readonly maxFileBytes: number;
  /** Size limit of one attachment (extensions §12), in bytes. */
  readonly maxAttachmentBytes: number;
  /**
   * Content up to this size is stored inline, in the records store, by the transaction that commits its
   * record; larger content goes to the blob store. 0 stores everything in the blob store.
   */
  readonly inlineMaxBytes: number;
  /** Largest total uncompressed size of an archive an import accepts (extensions §10). */
  readonly maxImportBytes: number;
  /** Cap of a project's current, history and trash bytes together (extensions §5). */
  readonly maxProjectBytes: number;
  /** Requests per window for each tier. */
  readonly rateLimits: Readonly<Record<Tier, number>>;
  readonly rateLimitWindowMs: number;
  /** Failed authentications allowed per client address and window before it is refused with 429. */
  readonly authFailureLimit: number;
  readonly authFailureWindowMs: number;
  /** Prefix of every generated bucket name. */
  readonly bucketPrefix: string;
  /** Hard deadline of one content write; after it the write is aborted and its intent may be reclaimed. */
  readonly writeDeadlineMs: number;
  /** A server instance whose heartbeat is older than this is considered gone. */
  readonly instanceLeaseMs: number;
  /** Days an audit entry is kept (extensions §8); older ones go at the periodic maintenance. */
  readonly auditRetentionDays: number;
  /** Days a change event is kept (extensions §7); older ones go at the periodic maintenance. */
  readonly changesRetentionDays: number;
  /** Share pages (extensions §11) one client address may open per minute; 429 beyond. */
  readonly shareRateLimit: number;
  /**
   * Bytes of content work in flight in the process: texts read whole to be worked on (edits, parts,
   * outlines, renders, diffs) and what they make (content-budget.ts). Work that would pass it waits.
   */
  readonly contentBudgetBytes: number;
  /** How long such work waits for room in `contentBudgetBytes` before it is refused (503). */
  readonly contentBudgetWaitMs: number;
}

export const DEFAULT_SETTINGS: MdStoreSettings = {
  maxFileBytes: 10 * 1024 * 1024,
  maxAttachmentBytes: ATTACHMENT_LIMITS.defaultMaxAttachmentBytes,
  inlineMaxBytes: 64 * 1024,
  maxProjectBytes: 100 * 1024 ** 3,
  maxImportBytes: IMPORT_LIMITS.defaultMaxImportBytes,
  rateLimits: { standard: 1000, premium: 10000 },
  rateLimitWindowMs: 60 * 60 * 1000,
  authFailureLimit: 100,
  authFailureWindowMs: 10 * 60 * 1000,
  bucketPrefix: 'mdstore-',
  writeDeadlineMs: 15 * 60 * 1000,
  instanceLeaseMs: 30 * 1000,
  auditRetentionDays: 90,
  changesRetentionDays: CHANGES_LIMITS.defaultRetentionDays,
  shareRateLimit: 600,
  contentBudgetBytes: 64 * 1024 * 1024,
  contentBudgetWaitMs: 10_000,
};

/** Things worth telling an operator that do not fail the request (a clean-up that will be retried). */
export interface MdStoreEvents {
  warn(message: string, details: Record<string, unknown>): void;
}

/** Everything a use case may touch: the ports, the settings and this instance's identity. */
export interface MdStoreContext {
  readonly records: RecordsRepository;
  readonly blobs: BlobStore;
  readonly rateLimiter: RateLimiter;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly secrets: ApiKeySecrets;
  readonly hashing: ContentHashing;
  readonly probe: InstanceProbe | undefined;
  readonly events: MdStoreEvents;
  readonly settings: MdStoreSettings;
  readonly instanceId: string;
  /** The HMAC key of cursors (extensions §3): instances answering one store must share it. */
  readonly cursorKey: Uint8Array;
  /** What search made of recently matched files (see `SearchDocumentCache`). */
  readonly searchDocuments: SearchDocumentCache;
  /** Where parses too costly for this thread run (markdown/content-work.ts); inline by default. */
  readonly contentWork: ContentWork;
  /** The process's byte budget of content work in flight (`settings.contentBudgetBytes`). */
  readonly contentBudget: ContentBudget;
  /** The link index's part of content writes (links/indexing.ts). */
  readonly linkIndexing: LinkIndexing;
  /** Checks webhook targets when they are created (extensions §7); without one, only the URL's form is. */
  readonly webhookTransport: WebhookTransport | undefined;
  /** Extensions §15: the embedder of search by meaning; undefined when embeddings are off. */
  readonly embedder: Embedder | undefined;
}

/** Never earlier than `previous`: timestamps do not go backwards even if the clock does. */
export const notBefore = (now: number, previous: number): number => Math.max(now, previous);
