export { ConfigError } from './errors.js';
export { type Environment, loadConfig, parseDatabaseUrl } from './load-config.js';
export { isLoopbackAddress } from './loopback.js';
export { readTlsFiles, type TlsMaterial } from './tls.js';
export type {
  BlobStoreConfig,
  ChecksumMode,
  DatabaseConfig,
  EmbeddingsConfig,
  MetricsConfig,
  ServerConfig,
} from './types.js';
