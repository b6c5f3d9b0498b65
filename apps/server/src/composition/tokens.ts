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
  /** The in-process `LocalChangeNotifier` every held change read listens to (extensions §7). */
  changeNotifier: Symbol('ChangeNotifier'),
  /** The HMAC key of list and search cursors (configured, or kept in the store: extensions §3). */
  cursorKey: Symbol('CursorKey'),
  /** The server's metrics, when it exports them. */
  metrics: Symbol('ServerMetrics'),
} as const;
