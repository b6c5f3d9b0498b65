import { WEBHOOK_LIMITS, type WebhookDeliveryRecord, type WebhookView } from '@mdstore/core';
import type { Request } from 'express';
import * as v from 'valibot';
import { isoDate } from '../../views.js';
import { empty, errors, json } from '../api/answers.js';
import { defineRoute, type QueryParameter } from '../api/route.js';
import {
  type Webhook,
  WebhookCreate,
  WebhookCreated,
  type WebhookDelivery,
  WebhookDeliveryList,
  WebhookList,
  Webhook as WebhookSchema,
} from '../api/webhook-schemas.js';
import { principalOf } from '../auth.js';
import { singleQueryParams } from '../query.js';
import { jsonRequestBody } from '../request-body.js';

/** Webhooks of the account (extensions §7): `admin` keys only, every operation audited. */

const WEBHOOKS = '/api/webhooks';
const ONE = `${WEBHOOKS}/:webhook_id`;
const TAGS: ['Webhooks'] = ['Webhooks'];

export const webhookJson = (w: WebhookView): v.InferOutput<typeof Webhook> => ({
  id: w.id,
  url: w.url,
  events: [...w.events],
  project_id: w.projectId,
  active: w.active,
  disabled_reason: w.disabledReason,
  created_date: isoDate(w.createdAt),
});

const deliveryJson = (d: WebhookDeliveryRecord): v.InferOutput<typeof WebhookDelivery> => ({
  event_seq: d.eventSeq,
  attempt: d.attempt,
  status_code: d.statusCode,
  error: d.error,
  duration_ms: d.durationMs,
  date: isoDate(d.at),
});

const webhookId = (req: Request) => String(req.params.webhook_id ?? '');

export const createWebhook = defineRoute(
  {
    method: 'POST',
    path: WEBHOOKS,
    operationId: 'createWebhook',
    folderKeys: 'refused',
    summary: 'Create a webhook',
    description:
      'Events of the account (or of one project) are POSTed to `url`, signed per Standard Webhooks, in `seq` order, at least once. The secret is in this answer only.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'admin',
    body: { contentType: 'application/json', schema: WebhookCreate },
    answers: {
      201: json('Created; `secret` signs the deliveries, shown only here', WebhookCreated),
      ...errors(400, 403, 404, 409, 413, 415, 422),
    },
  },
  (deps) => async (req, res) => {
    const created = await deps.store.webhooks.create({
      principal: principalOf(res),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
    });
    const body: v.InferOutput<typeof WebhookCreated> = { ...webhookJson(created), secret: created.secret };
    res.status(201).json(body);
  },
);

export const listWebhooks = defineRoute(
  {
    method: 'GET',
    path: WEBHOOKS,
    operationId: 'listWebhooks',
    folderKeys: 'refused',
    summary: 'List webhooks',
    description:
      'The account’s webhooks (a project-scoped key: those of its projects), oldest first; never a secret.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'admin',
    answers: { 200: json('The webhooks', WebhookList) },
  },
  ({ store }) =>
    async (_req, res) => {
      const webhooks = await store.webhooks.list({ principal: principalOf(res) });
      res.status(200).json({ webhooks: webhooks.map(webhookJson) });
    },
);

export const getWebhook = defineRoute(
  {
    method: 'GET',
    path: ONE,
    operationId: 'getWebhook',
    folderKeys: 'refused',
    summary: 'Get a webhook',
    description: 'Its settings and state (`active`, `disabled_reason`); never its secret.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'admin',
    answers: { 200: json('The webhook', WebhookSchema), ...errors(404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const webhook = await store.webhooks.get({ principal: principalOf(res), webhookId: webhookId(req) });
      res.status(200).json(webhookJson(webhook));
    },
);

export const deleteWebhook = defineRoute(
  {
    method: 'DELETE',
    path: ONE,
    operationId: 'deleteWebhook',
    folderKeys: 'refused',
    summary: 'Delete a webhook',
    description: 'With its deliveries log; nothing more is sent (an attempt in flight may still arrive).',
    tags: TAGS,
    auth: 'apiKey',
    role: 'admin',
    answers: { 204: empty('Deleted'), ...errors(404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      await store.webhooks.delete({ principal: principalOf(res), webhookId: webhookId(req) });
      res.status(204).end();
    },
);

export const enableWebhook = defineRoute(
  {
    method: 'POST',
    path: `${ONE}/enable`,
    operationId: 'enableWebhook',
    folderKeys: 'refused',
    summary: 'Enable a webhook',
    description:
      'Active again after it was disabled: delivery resumes from the event that failed, with a fresh retry schedule. The URL is checked again.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'admin',
    answers: { 200: json('The webhook, active', WebhookSchema), ...errors(404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const webhook = await store.webhooks.enable({ principal: principalOf(res), webhookId: webhookId(req) });
      res.status(200).json(webhookJson(webhook));
    },
);

const DELIVERY_PARAMS = ['limit', 'cursor'] as const;
const DELIVERY_QUERY: Readonly<Record<(typeof DELIVERY_PARAMS)[number], QueryParameter>> = {
  limit: {
    schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(WEBHOOK_LIMITS.deliveriesPageMax)),
    description: `Attempts per page (default ${WEBHOOK_LIMITS.deliveriesPageDefault}).`,
  },
  cursor: {
    schema: v.pipe(v.string(), v.description('`next_cursor` of the previous page.')),
    description: 'Where the page starts.',
  },
};

export const listWebhookDeliveries = defineRoute(
  {
    method: 'GET',
    path: `${ONE}/deliveries`,
    operationId: 'listWebhookDeliveries',
    folderKeys: 'refused',
    summary: 'List a webhook’s deliveries',
    description:
      'Every attempt, newest first: the event, the attempt number, the answer’s status or the error, the time taken.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'admin',
    query: DELIVERY_QUERY,
    answers: { 200: json('A page of the deliveries log', WebhookDeliveryList), ...errors(404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const page = await store.webhooks.deliveries({
        principal: principalOf(res),
        webhookId: webhookId(req),
        params: singleQueryParams(req, DELIVERY_PARAMS),
      });
      const body: v.InferOutput<typeof WebhookDeliveryList> = {
        deliveries: page.deliveries.map(deliveryJson),
        next_cursor: page.nextCursor,
      };
      res.status(200).json(body);
    },
);

export const webhookRoutes = [
  createWebhook,
  listWebhooks,
  getWebhook,
  deleteWebhook,
  enableWebhook,
  listWebhookDeliveries,
];
