import { CHANGE_EVENT_TYPES, CreateWebhookBodySchema, UuidSchema } from '@mdstore/core';
import * as v from 'valibot';

/** The bodies of the webhook routes (extensions §7). */

const Timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('UTC ISO 8601 with milliseconds'));

export const WebhookCreate = v.pipe(
  CreateWebhookBodySchema,
  v.description(
    `\`url\`: http(s), at most 2048 bytes, a host resolving to public addresses only. \`events\`: types (${CHANGE_EVENT_TYPES.join(', ')}) or families (\`file.*\`, \`project.*\`); none: every event. \`project_id\`: events of that project only (required of a project-scoped key).`,
  ),
);

const webhookEntries = {
  id: UuidSchema,
  url: v.string(),
  events: v.pipe(v.array(v.string()), v.description('The filters; empty: every event.')),
  project_id: v.pipe(
    v.nullable(UuidSchema),
    v.description('Events of this project only; null: every project.'),
  ),
  active: v.boolean(),
  disabled_reason: v.pipe(v.nullable(v.string()), v.description('Why delivery stopped, when it did.')),
  created_date: Timestamp,
};

export const Webhook = v.object(webhookEntries);

export const WebhookCreated = v.object({
  ...webhookEntries,
  secret: v.pipe(
    v.string(),
    v.description(
      '`whsec_` + base64 of 24 random bytes: the Standard Webhooks signing key, shown only here.',
    ),
  ),
});

export const WebhookList = v.object({ webhooks: v.array(Webhook) });

export const WebhookDelivery = v.object({
  event_seq: v.pipe(v.number(), v.integer()),
  attempt: v.pipe(v.number(), v.integer(), v.description('1 for the first attempt of the event.')),
  status_code: v.pipe(
    v.nullable(v.number()),
    v.description('The receiver’s status; null when there was no answer.'),
  ),
  error: v.pipe(
    v.nullable(v.string()),
    v.description('Why there was no answer (timeout, refused address, …).'),
  ),
  duration_ms: v.pipe(v.number(), v.integer()),
  date: Timestamp,
});

export const WebhookDeliveryList = v.object({
  deliveries: v.array(WebhookDelivery),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('The next page, or null on the last.')),
});

export const WEBHOOK_COMPONENTS = {
  WebhookCreate,
  Webhook,
  WebhookCreated,
  WebhookList,
  WebhookDelivery,
  WebhookDeliveryList,
} as const;
