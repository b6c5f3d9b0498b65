/**
 * Registration tokens of the composition root. Everything is registered by token with a value or a
 * factory: no decorators, no reflection on constructor parameters.
 */
export const TOKENS = {
  config: Symbol('ServerConfig'),
  logger: Symbol('Logger'),
  records: Symbol('RecordsRepository'),
  rateLimiter: Symbol('RateLimiter'),
  blobs: Symbol('BlobStore'),
  probe: Symbol('InstanceProbe'),
  events: Symbol('MdStoreEvents'),
  contentWork: Symbol('ContentWork'),
  store: Symbol('MdStore'),
  /** Extensions §7: where webhooks are posted (DNS, the address rule, HTTP). */
  webhookTransport: Symbol('WebhookTransport'),
  /**
   * Extensions §7: the change feed and its notifier. Registered by the feed (the records store and the
   * notifier of its build); without them, webhooks are kept but not delivered.
   */
  changeFeed: Symbol('ChangeFeedReader'),
  changeNotifier: Symbol('ChangeNotifier'),
} as const;
