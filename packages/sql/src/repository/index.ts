import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlDialect, SqlExecutor } from '../executor.js';
import { accountStatements } from './accounts.js';
import { attachmentStatements } from './attachments.js';
import { auditStatements } from './audit.js';
import { changeStatements } from './changes.js';
import { chunkStatements } from './chunks.js';
import { sqlContext } from './context.js';
import { draftStatements } from './drafts.js';
import { fileStatements } from './files.js';
import { linkStatements } from './links.js';
import { operationStatements } from './operations.js';
import { projectStatements } from './projects.js';
import { revisionStatements } from './revisions.js';
import { scheduleStatements } from './schedule.js';
import { searchStatements } from './search.js';
import { shareStatements } from './shares.js';
import { trashStatements } from './trash.js';
import { webhookStatements } from './webhooks.js';

/** The records port on one SQL engine: its reads and its transactions over any executor of that engine. */
export interface SqlRecords {
  /** The reads of the port on `x` (outside a transaction: a pool, or a read-only connection). */
  reader(x: SqlExecutor): RecordsReader;
  /** Reads and writes inside one transaction, every statement on `x` (the transaction's connection). */
  transaction(x: SqlExecutor): RecordsTransaction;
}

/**
 * The one implementation of the records port for SQL engines: every statement is written once (with `?`
 * placeholders, turned into the dialect's once, here) and runs through an executor. Statements are built
 * once per call of this function; `reader` and `transaction` only bind them to an executor.
 */
export function sqlRecords(dialect: SqlDialect): SqlRecords {
  const c = sqlContext(dialect);
  const accounts = accountStatements(c);
  const projects = projectStatements(c);
  const files = fileStatements(c);
  const attachments = attachmentStatements(c);
  const revisions = revisionStatements(c);
  const trash = trashStatements(c);
  const search = searchStatements(c);
  const links = linkStatements(c);
  const operations = operationStatements(c);
  const audit = auditStatements(c);
  const changes = changeStatements(c);
  const shares = shareStatements(c);
  const webhooks = webhookStatements(c);
  const drafts = draftStatements(c);
  const chunks = chunkStatements(c);
  const schedule = scheduleStatements(c);
  const reader = (x: SqlExecutor): RecordsReader => ({
    ...accounts.reads(x),
    ...projects.reads(x),
    ...files.reads(x),
    ...attachments.reads(x),
    ...revisions.reads(x),
    ...trash.reads(x),
    ...search.reads(x),
    ...links.reads(x),
    ...operations.reads(x),
    ...audit.reads(x),
    ...changes.reads(x),
    ...shares.reads(x),
    ...webhooks.reads(x),
    ...drafts.reads(x),
    ...chunks.reads(x),
    ...schedule.reads(x),
  });
  return {
    reader,
    transaction: (x) => ({
      ...reader(x),
      ...accounts.writes(x),
      ...projects.writes(x),
      ...files.writes(x),
      ...attachments.writes(x),
      ...revisions.writes(x),
      ...trash.writes(x),
      ...search.writes(x),
      ...links.writes(x),
      ...operations.writes(x),
      ...audit.writes(x),
      ...changes.writes(x),
      ...shares.writes(x),
      ...webhooks.writes(x),
      ...drafts.writes(x),
      ...chunks.writes(x),
      ...schedule.writes(x),
    }),
  };
}
