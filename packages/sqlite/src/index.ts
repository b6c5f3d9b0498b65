export { DEFAULT_BUSY_TIMEOUT_MS } from './connections.js';
export { type MigrationReport, migrateSqlite } from './migrations.js';
export { openSqliteRateLimiter, type SqliteRateLimiterOptions } from './rate-limiter.js';
export { SQLITE_SCHEMA_VERSION } from './schema.js';
export {
  type ConnectionSettings,
  openSqliteStore,
  type SqliteStore,
  type SqliteStoreOptions,
} from './store.js';
