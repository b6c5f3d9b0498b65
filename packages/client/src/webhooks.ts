import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type WebhookCreate = components['schemas']['WebhookCreate'];
export type Webhook = components['schemas']['Webhook'];
export type WebhookCreated = components['schemas']['WebhookCreated'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookDeliveryList = components['schemas']['WebhookDeliveryList'];

/** Webhooks (extensions §7); every call needs an `admin` key. */
export class WebhooksApi {
  constructor(private readonly api: TypedApi) {}

  /** A new webhook; `secret` (the Standard Webhooks signing key) is shown only here. */
  async create(body: WebhookCreate, options?: RequestOptions): Promise<WebhookCreated> {
    return (await this.api.json('post', '/api/webhooks', { json: body }, options)).data;
  }

  /** The account's webhooks, oldest first (no secrets). */
  async list(options?: RequestOptions): Promise<Webhook[]> {
    return (await this.api.json('get', '/api/webhooks', {}, options)).data.webhooks;
  }

  async get(webhookId: string, options?: RequestOptions): Promise<Webhook> {
    return (
      await this.api.json('get', '/api/webhooks/{webhook_id}', { path: { webhook_id: webhookId } }, options)
    ).data;
  }

  async delete(webhookId: string, options?: RequestOptions): Promise<void> {
    await this.api.request(
      'delete',
      '/api/webhooks/{webhook_id}',
      { path: { webhook_id: webhookId } },
      options,
    );
  }

  /** Active again after being disabled: delivery resumes from the event that failed. */
  async enable(webhookId: string, options?: RequestOptions): Promise<Webhook> {
    return (
      await this.api.json(
        'post',
        '/api/webhooks/{webhook_id}/enable',
        { path: { webhook_id: webhookId } },
        options,
      )
    ).data;
  }

  /** One page of the deliveries log, newest first. */
  async deliveries(
    webhookId: string,
    query: { limit?: number; cursor?: string } = {},
    options?: RequestOptions,
  ): Promise<WebhookDeliveryList> {
    return (
      await this.api.json(
        'get',
        '/api/webhooks/{webhook_id}/deliveries',
        { path: { webhook_id: webhookId }, query },
        options,
      )
    ).data;
  }
}
