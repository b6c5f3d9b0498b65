import type {
  AccountRecord,
  AttachmentRecord,
  AuditRecord,
  BlobIntentRecord,
  ChangeEventRecord,
  ChunkRecord,
  DraftFileRecord,
  DraftRecord,
  DraftReviewRecord,
  EmbeddingCursorRecord,
  FileRecord,
  InstanceRecord,
  ProjectRecord,
  RevisionRecord,
  ScheduleSlotRecord,
  ShareRecord,
  TrashRecord,
  VectorListsRecord,
  WebhookDeliveryRecord,
} from '@mdstore/core';
import { placeholders, type Row, type SqlDialect } from '../executor.js';
import {
  ACCOUNTS,
  API_KEYS,
  type ApiKeyRow,
  ATTACHMENTS,
  AUDIT,
  BLOB_INTENTS,
  CHANGES,
  CHUNKS,
  DRAFT_FILES,
  DRAFT_REVIEWS,
  DRAFTS,
  EMBEDDING_CURSORS,
  FILES,
  fromTrashRow,
  INSTANCES,
  PROJECTS,
  REVISIONS,
  SCHEDULE_SLOTS,
  SHARES,
  TRASH,
  type TrashRow,
  VECTOR_LISTS,
  WEBHOOK_DELIVERIES,
  WEBHOOKS,
  type WebhookRow,
} from '../records.js';
import { type TableSql, tableSql } from '../table.js';

/** The tables' statements and mappers on one dialect, built once per repository. */
export interface SqlContext {
  readonly dialect: SqlDialect;
  readonly accounts: TableSql<AccountRecord>;
  readonly apiKeys: TableSql<ApiKeyRow>;
  readonly audit: TableSql<AuditRecord>;
  readonly changes: TableSql<ChangeEventRecord>;
  readonly projects: TableSql<ProjectRecord>;
  readonly files: TableSql<FileRecord>;
  readonly attachments: TableSql<AttachmentRecord>;
  readonly revisions: TableSql<RevisionRecord>;
  readonly trash: TableSql<TrashRow>;
  readonly blobIntents: TableSql<BlobIntentRecord>;
  readonly instances: TableSql<InstanceRecord>;
  readonly shares: TableSql<ShareRecord>;
  readonly webhooks: TableSql<WebhookRow>;
  readonly webhookDeliveries: TableSql<WebhookDeliveryRecord>;
  readonly drafts: TableSql<DraftRecord>;
  readonly draftFiles: TableSql<DraftFileRecord>;
  readonly draftReviews: TableSql<DraftReviewRecord>;
  readonly chunks: TableSql<ChunkRecord>;
  readonly embeddingCursors: TableSql<EmbeddingCursorRecord>;
  readonly scheduleSlots: TableSql<ScheduleSlotRecord>;
  readonly vectorLists: TableSql<VectorListsRecord>;
  /** A statement written with `?` placeholders, in the dialect's. */
  sql(text: string): string;
  toTrash(row: Row): TrashRecord;
}

export function sqlContext(dialect: SqlDialect): SqlContext {
  const trash = tableSql(TRASH, dialect);
  return {
    dialect,
    accounts: tableSql(ACCOUNTS, dialect),
    apiKeys: tableSql(API_KEYS, dialect),
    audit: tableSql(AUDIT, dialect),
    changes: tableSql(CHANGES, dialect),
    projects: tableSql(PROJECTS, dialect),
    files: tableSql(FILES, dialect),
    attachments: tableSql(ATTACHMENTS, dialect),
    revisions: tableSql(REVISIONS, dialect),
    trash,
    blobIntents: tableSql(BLOB_INTENTS, dialect),
    instances: tableSql(INSTANCES, dialect),
    shares: tableSql(SHARES, dialect),
    webhooks: tableSql(WEBHOOKS, dialect),
    webhookDeliveries: tableSql(WEBHOOK_DELIVERIES, dialect),
    drafts: tableSql(DRAFTS, dialect),
    draftFiles: tableSql(DRAFT_FILES, dialect),
    draftReviews: tableSql(DRAFT_REVIEWS, dialect),
    chunks: tableSql(CHUNKS, dialect),
    embeddingCursors: tableSql(EMBEDDING_CURSORS, dialect),
    scheduleSlots: tableSql(SCHEDULE_SLOTS, dialect),
    vectorLists: tableSql(VECTOR_LISTS, dialect),
    sql: (text) => placeholders(dialect, text),
    toTrash: (row) => fromTrashRow(trash.fromRow(row)),
  };
}

export const orNull = <T>(row: Row | undefined, map: (row: Row) => T): T | null =>
  row === undefined ? null : map(row);

/** A count as a number: Postgres gives `bigint` counts as numbers (the pool's parser) and sums as strings. */
export const count = (value: unknown): number => Number(value ?? 0);
