// The server process (`./server.js`) is not re-exported: it loads the HTTP stack, which the CLI never needs.
export { type AdapterModules, defaultAdapterModules } from './adapters.js';
export { createRuntime, loggingEvents, type Runtime, type RuntimeOptions } from './runtime.js';
export { TOKENS } from './tokens.js';
