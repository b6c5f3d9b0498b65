export type { Handler, HttpLogger, RouteDeps } from './context.js';
