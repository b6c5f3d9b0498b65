export {
  bytesMatchType,
  essenceOf,
  isCheckedType,
  isInlineType,
  isMcpImage,
  mayRunScript,
} from './attachments/content-types.js';
export * from './conditional/index.js';
export { ATTACHMENT_LIMITS } from './defaults/attachments.js';
export { CHANGES_LIMITS } from './defaults/changes.js';
export { CHANGESET_WORK } from './defaults/changesets.js';
export { CONTENT_WORK_LIMITS } from './defaults/content-work.js';
export { DRAFT_LIMITS } from './defaults/drafts.js';
export { HELD_LIMITS } from './defaults/held.js';
export { HISTORY_LIMITS } from './defaults/history.js';
export { IMPORT_ANSWER_LIMITS } from './defaults/imports.js';
export { FILE_LINK_LIMITS, LINK_LIMITS } from './defaults/links.js';
export { MEMORY_LIMITS, MEMORY_MAX_LINES } from './defaults/memory.js';
export { MERGE_LIMITS } from './defaults/merge.js';
export { PROJECT_DELETION_LIMITS } from './defaults/projects.js';
export { REQUEST_SHARE_LIMITS } from './defaults/requests.js';
export { REWRITE_LIMITS } from './defaults/rewrites.js';
export { SEARCH_COST_LIMITS } from './defaults/search.js';
export { DAY_MS, TRASH_LIMITS } from './defaults/trash.js';
export {
  portableHashing,
  randomIds,
  redactApiKeys,
  systemClock,
  webCryptoSecrets,
} from './defaults/web-runtime.js';
export {
  scaledWebhookTimings,
  WEBHOOK_LIMITS,
  type WebhookLimits,
  type WebhookTimings,
} from './defaults/webhooks.js';
export * from './errors.js';
export * from './links/index.js';
export * from './listing/index.js';
export * from './markdown/index.js';
export { createMdStore, type MdStore, type MdStoreAdapters } from './mdstore.js';
export {
  type ConflictHunk,
  type FileConflict,
  type MetadataMerge,
  mergeDocument,
  mergeMetadata,
  mergeText,
  splitLinesKeepingEnds,
  type TextMerge,
} from './merge/index.js';
export * from './model/changes.js';
export { contentTag, fileEtag } from './model/etags.js';
export * from './model/records.js';
export type * from './ports/archive.js';
export type * from './ports/blobs.js';
export type * from './ports/changes.js';
export type * from './ports/content-work.js';
export type * from './ports/embedder.js';
export type * from './ports/rate-limiter.js';
export type * from './ports/records.js';
export type * from './ports/runtime.js';
export type * from './ports/webhooks.js';
export {
  createLeasedRateLimiter,
  DEFAULT_LEASE_POLICY,
  type LeasedRateLimiter,
  type LeasePolicy,
} from './rate-limit/leased-rate-limiter.js';
export * from './search/index.js';
export * from './semantic/index.js';
export { assertRole, inKeyScope, roleCovers } from './use-cases/access.js';
export type { ApiKeyView, CreatedAccount, IssuedApiKey } from './use-cases/accounts.js';
export { ADMIN_CLI_KEY_NAME, DEFAULT_PROJECT_NAME, IN_PROCESS_KEY_ID } from './use-cases/accounts.js';
export type {
  AttachmentDownload,
  AttachmentList,
  AttachmentListParams,
  AttachmentView,
  WrittenAttachment,
} from './use-cases/attachments/index.js';
export {
  AUDIT_LIMITS,
  type AuditEntryInput,
  type AuditPage,
  type AuditParams,
} from './use-cases/audit.js';
export type { Principal, RateLimitStatus } from './use-cases/authentication.js';
export {
  constantTimeEqual,
  LAST_USED_WRITE_INTERVAL_MS,
  RequestRateLimitedError,
  refusedBudgetStatus,
} from './use-cases/authentication.js';
export {
  type ChangesPage,
  type ChangesParams,
  type ChangesRequest,
  type HeldKeyState,
  parseChangesParams,
} from './use-cases/changes/list.js';
export { LocalChangeNotifier, noticingRecords } from './use-cases/changes/notices.js';
export {
  type ApplyChangesetInput,
  type AttachmentChangeResult,
  type ChangesetFileResult,
  type ChangesetResult,
  type FileChangeResult,
  isFileResult,
  MAX_CHANGESET_ATTEMPTS,
} from './use-cases/changesets/index.js';
export {
  ContentBudget,
  type ContentHold,
  SMALL_HOLD_BYTES,
  TEXT_BYTES_PER_BYTE,
  withContentHold,
} from './use-cases/content-budget.js';
export { DEFAULT_SETTINGS, type MdStoreEvents, type MdStoreSettings } from './use-cases/context.js';
export {
  type BodyOf,
  type DeferredBody,
  deferredBody,
  isDeferredBody,
  wireBody,
} from './use-cases/deferred-body.js';
export * from './use-cases/drafts/index.js';
export type {
  ExportedAttachment,
  ExportedFile,
  ExportProjectInput,
  ProjectExport,
} from './use-cases/export/index.js';
export type {
  ByteRange,
  CopyFileInput,
  DeleteFileInput,
  DiffRevisionsInput,
  Download,
  DownloadInput,
  EditFileInput,
  EditResult,
  ExpectedDigest,
  FileList,
  FileOutline,
  ListRevisionsInput,
  MoveFileInput,
  PartRead,
  ReadPartInput,
  ReadRevisionInput,
  RequestConditions,
  RestoreRevisionInput,
  RevisionList,
  RevisionView,
  UpdateFileContentInput,
  UpdateFileMetadataInput,
  UploadFileInput,
  UploadPart,
} from './use-cases/files/index.js';
export { isMdxFilename, MAX_EDIT_ATTEMPTS } from './use-cases/files/index.js';
export {
  type ArchiveEntry,
  type ArchiveEntryKind,
  applyImporter,
  echoedName,
  entryVerdict,
  IMPORT_LIMITS,
  IMPORT_MODES,
  IMPORTERS,
  type ImportApplier,
  type ImportArchive,
  type ImportedFile,
  type Importer,
  type ImportMode,
  type ImportOperation,
  type ImportProjectInput,
  type ImportResult,
  type ImportSpool,
  isImporter,
  MANIFEST_NAME,
  memorySpool,
  planImport,
  SKIP_REASONS,
  type SkippedEntry,
  SkippedList,
  type SpooledFile,
  type SpoolRef,
  withoutNotionIds,
} from './use-cases/import/index.js';
export { type CreatedKey, type KeyReach, type KeyView, reachesNoFurther } from './use-cases/keys.js';
export type { ReconcileReport } from './use-cases/maintenance.js';
export {
  MEMORY_ROOT,
  type MemoryCommand,
  type MemoryCommandInput,
  type MemoryCommandRequest,
  type MemoryCommandResult,
  MemoryCommandSchema,
  memoryPathFilename,
} from './use-cases/memory/index.js';
export type { ProjectPage, ProjectRead } from './use-cases/projects.js';
export {
  type RestoreInput,
  type RestoreResult,
  restoreProjectAsOf,
  type UnrecoverableReason,
} from './use-cases/restore/index.js';
export {
  createScheduleSlots,
  type ScheduleSlots,
  type ScheduleSlotsOptions,
  type SlotClaim,
} from './use-cases/schedule-slots.js';
export {
  SEARCH_SORTS,
  type SearchAnswer,
  type SearchBackfillReport,
  type SearchInput,
  type SearchOrder,
  type SearchResult,
  type SearchSort,
} from './use-cases/search/index.js';
export * from './use-cases/semantic/index.js';
export {
  type CreatedShare,
  notFoundAsShare,
  type OpenedShare,
  SHARE_INDEX_LIMIT,
  type ShareView,
} from './use-cases/shares.js';
export type { ExpiryReport, TrashItemView, TrashPage } from './use-cases/trash/index.js';
export type { FileView, ProjectView } from './use-cases/views.js';
export {
  createWebhookDelivery,
  type DeliveryObserver,
  type DeliveryOutcome,
  type DeliveryTimers,
  type WebhookDelivery,
  type WebhookDeliveryOptions,
} from './use-cases/webhooks/delivery.js';
export {
  CHANGE_EVENT_TYPES,
  type ChangeEventJson,
  changeEventView,
  isEventFilter,
  matchesEventFilters,
  webhookMessageId,
  webhookPayload,
} from './use-cases/webhooks/events.js';
export type { CreatedWebhook, DeliveryPage, WebhookView } from './use-cases/webhooks/manage.js';
export { newWebhookSecret, SECRET_PREFIX, signWebhook } from './use-cases/webhooks/signing.js';
export * from './validation/bodies.js';
export * from './validation/changesets.js';
export { checkedContent } from './validation/content.js';
export { RevisionSchema } from './validation/history.js';
export * from './validation/issues.js';
export { CreateKeyBodySchema, KEY_LIMITS, RoleSchema } from './validation/keys.js';
export * from './validation/restore.js';
export * from './validation/schemas.js';
export { SettingsSchema, validateSettings } from './validation/settings.js';
export { CreateShareBodySchema, SHARE_LIMITS } from './validation/shares.js';
export {
  compareCodePoints,
  countCodePoints,
  hasNulCharacter,
  utf8Pieces,
  utf8Size,
} from './validation/text.js';
export { isValidUtf8, Utf8Validator } from './validation/utf8.js';
export { CreateWebhookBodySchema, WebhookUrlSchema } from './validation/webhooks.js';
