import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { Row, SqlExecutor } from '../executor.js';
import { fromWebhookRow, toWebhookRow } from '../records.js';
import { orNull, type SqlContext } from './context.js';

type WebhookReads = Pick<
  RecordsReader,
  'findWebhook' | 'listWebhooks' | 'listActiveWebhooks' | 'listWebhookDeliveries'
>;
type WebhookWrites = Pick<
  RecordsTransaction,
  | 'insertWebhook'
  | 'deleteWebhook'
  | 'claimWebhook'
  | 'saveWebhookProgress'
  | 'enableWebhook'
  | 'insertWebhookDelivery'
  | 'deleteWebhookDeliveriesBefore'
>;

/** Webhooks, their delivery state and lease (extensions §7), and their deliveries log. */
export function webhookStatements(c: SqlContext) {
  const { webhooks, webhookDeliveries: deliveries } = c;
  const WEBHOOK = `SELECT ${webhooks.columns()} FROM webhooks`;
  const DELIVERY = `SELECT ${deliveries.columns()} FROM webhook_deliveries`;
  const s = {
    byId: c.sql(`${WEBHOOK} WHERE id = ?`),
    ofAccount: c.sql(`${WEBHOOK} WHERE account_id = ? ORDER BY created_at, id LIMIT ?`),
    active: c.sql(`${WEBHOOK} WHERE active = ? ORDER BY id LIMIT ?`),
    activeAfter: c.sql(`${WEBHOOK} WHERE active = ? AND id > ? ORDER BY id LIMIT ?`),
    deliveries: c.sql(`${DELIVERY} WHERE webhook_id = ? ORDER BY at DESC, id DESC LIMIT ?`),
    deliveriesAfter: c.sql(
      `${DELIVERY} WHERE webhook_id = ? AND (at < ? OR (at = ? AND id < ?)) ORDER BY at DESC, id DESC LIMIT ?`,
    ),
    deleteDeliveries: c.sql('DELETE FROM webhook_deliveries WHERE webhook_id = ?'),
    expireDeliveries: c.sql(
      'DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE at < ? ORDER BY at LIMIT ?)',
    ),
    delete: c.sql('DELETE FROM webhooks WHERE id = ?'),
    // One conditional UPDATE: of two instances claiming at once, the store lets one row change.
    claim: c.sql(
      `UPDATE webhooks SET lease_owner = ?, lease_expires_at = ?
       WHERE id = ? AND active = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at <= ?)`,
    ),
    progress: c.sql(
      `UPDATE webhooks SET cursor_seq = ?, attempt = ?, next_attempt_at = ?, active = ?, disabled_reason = ?,
       lease_owner = ?, lease_expires_at = ? WHERE id = ? AND lease_owner = ?`,
    ),
    enable: c.sql(
      'UPDATE webhooks SET active = ?, disabled_reason = NULL, attempt = 0, next_attempt_at = NULL WHERE id = ?',
    ),
  };
  const bool = (value: boolean) => c.dialect.encode('boolean', value);
  const toWebhook = (row: Row) => fromWebhookRow(webhooks.fromRow(row));
  return {
    reads: (x: SqlExecutor): WebhookReads => ({
      findWebhook: async (q) => orNull(await x.get(s.byId, [q.webhookId]), toWebhook),
      listWebhooks: async (q) => (await x.all(s.ofAccount, [q.accountId, q.limit])).map(toWebhook),
      listActiveWebhooks: async (q) =>
        (q.afterId === undefined
          ? await x.all(s.active, [bool(true), q.limit])
          : await x.all(s.activeAfter, [bool(true), q.afterId, q.limit])
        ).map(toWebhook),
      listWebhookDeliveries: async (q) =>
        (q.after === undefined
          ? await x.all(s.deliveries, [q.webhookId, q.limit])
          : await x.all(s.deliveriesAfter, [q.webhookId, q.after.at, q.after.at, q.after.id, q.limit])
        ).map(deliveries.fromRow),
    }),
    writes: (x: SqlExecutor): WebhookWrites => ({
      insertWebhook: async (c) => {
        await x.write(webhooks.insert, webhooks.insertValues(toWebhookRow(c.webhook)));
      },
      deleteWebhook: async (c) => {
        await x.run(s.deleteDeliveries, [c.webhookId]);
        return (await x.run(s.delete, [c.webhookId])) > 0;
      },
      claimWebhook: async (c) => {
        const changed = await x.run(s.claim, [c.owner, c.until, c.webhookId, bool(true), c.owner, c.now]);
        return changed > 0 ? orNull(await x.get(s.byId, [c.webhookId]), toWebhook) : null;
      },
      saveWebhookProgress: async (c) => {
        const p = c.progress;
        const owner = p.leaseExpiresAt === null ? null : c.owner;
        const values = [p.cursorSeq, p.attempt, p.nextAttemptAt, bool(p.active), p.disabledReason];
        return (await x.run(s.progress, [...values, owner, p.leaseExpiresAt, c.webhookId, c.owner])) > 0;
      },
      enableWebhook: async (c) => (await x.run(s.enable, [bool(true), c.webhookId])) > 0,
      insertWebhookDelivery: async (c) => {
        await x.write(deliveries.insert, deliveries.insertValues(c.delivery));
      },
      deleteWebhookDeliveriesBefore: async (c) => x.run(s.expireDeliveries, [c.before, c.limit]),
    }),
  };
}
