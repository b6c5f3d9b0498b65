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
} as const;
