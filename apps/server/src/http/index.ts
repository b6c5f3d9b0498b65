export { createHttpApp, type HttpAppOptions, type HttpLogger } from './app.js';
export { attachmentDisposition } from './content-disposition.js';
export { HttpError, STATUS_BY_CODE, toErrorResponse } from './errors.js';
export {
  DEFAULT_TIMEOUTS,
  type RunningHttpServer,
  type ServerTimeouts,
  type StartHttpServerOptions,
  startHttpServer,
} from './server.js';
