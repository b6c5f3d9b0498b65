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
  /**
   * The link index's part of content writes (extensions §9): the core's own. Replaced only by the
   * benchmark of its cost (bench/support/link-index-cost.ts), in a child container.
   */
  linkIndexing: Symbol('LinkIndexing'),
  store: Symbol('MdStore'),
  /** The in-process `LocalChangeNotifier` every held change read listens to (extensions §7). */
  changeNotifier: Symbol('ChangeNotifier'),
  /** The HMAC key of list and search cursors (configured, or kept in the store: extensions §3). */
  cursorKey: Symbol('CursorKey'),
  /** The server's metrics (a no-op set when it exports none). */
  metrics: Symbol('ServerMetrics'),
  /** Extensions §7: where webhooks are posted (DNS, the address rule, HTTP). */
  webhookTransport: Symbol('WebhookTransport'),
  /**
   * Extensions §7: the change feed and its notifier. Registered by the feed (the records store and the
   * notifier of its build); without them, webhooks are kept but not delivered.
   */
  changeFeed: Symbol('ChangeFeedReader'),
  /** Extensions §15: the embedder of search by meaning (`MDSTORE_EMBEDDINGS`); null when off. */
  embedder: Symbol('Embedder'),
} as const;
