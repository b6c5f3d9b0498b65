// The server as a library: configuration, composition root and the HTTP edge, for tests and tools that
// run mdstore in-process. `npm start` runs `main.ts`; the admin CLI is `cli/main.ts`.
export { createRuntime, type Runtime, TOKENS } from './composition/index.js';
export { type ServerProcess, startServer } from './composition/server.js';
export { ConfigError, loadConfig, type ServerConfig } from './config/index.js';
export { createHttpApp, startHttpServer } from './http/index.js';
export { createLogger, type Logger } from './logger.js';
