import {
  type ChangeFeedReader,
  type ChangeNotifier,
  createWebhookDelivery,
  type RecordsRepository,
  randomIds,
  scaledWebhookTimings,
  systemClock,
  type WebhookTransport,
} from '@mdstore/core';
import { loggingEvents, type Runtime } from '../composition/runtime.js';
import { TOKENS } from '../composition/tokens.js';
import type { ServerConfig } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { ServerMetrics } from '../metrics/metrics.js';

/**
 * Starts this instance's webhook delivery engine (extensions §7) on the change feed and notifier the
 * composition registered (the records store's outbox), under this instance's id as lease owner, with
 * its timings scaled by `MDSTORE_WEBHOOK_TIME_SCALE` (1: the defaults).
 */
export function startWebhookDelivery(
  runtime: Runtime,
  logger: Logger,
  metrics: ServerMetrics | undefined,
): { stop(): Promise<void> } {
  const c = runtime.container;
  const scale = c.resolve<ServerConfig>(TOKENS.config).webhookTimeScale;
  const engine = createWebhookDelivery({
    records: c.resolve<RecordsRepository>(TOKENS.records),
    feed: c.resolve<ChangeFeedReader>(TOKENS.changeFeed),
    notifier: c.resolve<ChangeNotifier>(TOKENS.changeNotifier),
    transport: c.resolve<WebhookTransport>(TOKENS.webhookTransport),
    clock: systemClock,
    ids: randomIds,
    owner: runtime.store.instanceId,
    ...(scale !== 1 && { limits: scaledWebhookTimings(scale) }),
    events: loggingEvents(logger),
    ...(metrics && { observer: metrics.webhooks }),
  });
  engine.start();
  return engine;
}
