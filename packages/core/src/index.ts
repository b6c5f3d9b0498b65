export * from './errors.js';
export * from './model/records.js';
export type * from './ports/blobs.js';
export type * from './ports/rate-limiter.js';
export type * from './ports/records.js';
export type * from './ports/runtime.js';
