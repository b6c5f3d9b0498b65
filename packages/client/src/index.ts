// @mdstore/client: the typed SDK of the mdstore HTTP API. Web-platform only (fetch, streams, Web Crypto):
// runs in Node 20+ and browsers. Node stream helpers are in `@mdstore/client/node`.

export type {
  AccessApi,
  AuditEntry,
  AuditList,
  AuditQuery,
  Key,
  KeyCreate,
  KeyCreated,
} from './access.js';
export {
  type Attachment,
  type AttachmentBody,
  type AttachmentList,
  AttachmentsApi,
  type MovedAttachment,
} from './attachments.js';
export type { ChangeEvent, ChangeList, ChangesApi, ChangesQuery, FollowOptions } from './changes.js';
export type { ChangesetOperation, ChangesetRequest, ChangesetResult, ChangesetsApi } from './changesets.js';
export { createClient, MdStoreClient } from './client.js';
export type { ReadPreconditions, WritePreconditions } from './conditions.js';
export type { ContentInput } from './content.js';
export { type ContentRange, FileDownload, type FileHead } from './download.js';
export type {
  Draft,
  DraftConflicts,
  DraftCreate,
  DraftDiff,
  DraftList,
  DraftOperation,
  DraftPublished,
  DraftReviewCreate,
  DraftsApi,
} from './drafts.js';
export {
  describeDetail,
  MdStoreApiError,
  MdStoreIntegrityError,
  type MergeConflict,
  type ValidationIssue,
} from './errors.js';
export type {
  ByteRange,
  DownloadOptions,
  FileContentUpdate,
  FileEdit,
  FileEdited,
  FileList,
  FileListQuery,
  FilesApi,
  FileUpdate,
  MdStoreFile,
  MergeBaseOption,
  Metadata,
  Outline,
  UpdateContentOptions,
  UploadOptions,
} from './files.js';
export type { components, operations, paths } from './generated/openapi.js';
export type { HistoryApi, MovedFile, Revision, RevisionList } from './history.js';
export type {
  BrokenLink,
  BrokenLinkList,
  FileLinks,
  IncomingLink,
  LinksApi,
  OrphanList,
  OutgoingLink,
} from './links.js';
export type { MemoryApi, MemoryCommandRequest, MemoryResult } from './memory.js';
export { type MemoryHandlers, memoryTool } from './memory-tool.js';
export type {
  ExportFormat,
  Importer,
  ImportMode,
  ImportOptions,
  ImportResult,
  PageOptions,
  Project,
  ProjectCreate,
  ProjectDeleted,
  ProjectList,
  ProjectRestoreResult,
  ProjectSettings,
  ProjectsApi,
  ProjectUpdate,
} from './projects.js';
export { dispositionFilename, ProjectArchive } from './projects.js';
export type { RetryEvent, RetryOptions } from './retry.js';
export type {
  SearchAllRequest,
  SearchAnswer,
  SearchApi,
  SearchFilter,
  SearchRequest,
  SearchResult,
  SearchStatus,
} from './search.js';
export type { Share, ShareCreate, ShareCreated, SharesApi } from './shares.js';
export type { ClientOptions, RequestOptions, TypedApi } from './transport.js';
export type { TrashApi, TrashItem, TrashList } from './trash.js';
export type {
  Webhook,
  WebhookCreate,
  WebhookCreated,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhooksApi,
} from './webhooks.js';
