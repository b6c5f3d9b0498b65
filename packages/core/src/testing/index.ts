/**
 * `@mdstore/core/testing`: the compliance suites every adapter runs, and record builders for tests.
 * Needs vitest (an optional peer dependency of the core); never import it from production code.
 */

export { describeRecordsArchiveContract, type RecordsArchiveHarness } from './archive-contract.js';
export { type BlobStoreHarness, describeBlobStoreContract } from './blob-store-contract.js';
export {
  aBlobIntent,
  aFile,
  anAccount,
  anApiKey,
  anInstance,
  aProject,
  aRevision,
  aTrashItem,
  BASE_TIME,
  sha256Hex,
} from './builders.js';
export { ChangeFeedDouble } from './change-feed-double.js';
export { type ContentWorkHarness, describeContentWorkContract } from './content-work-contract.js';
export * from './faults/index.js';
export { expectedAccounting, readStoredContent } from './inspect.js';
export { describeRateLimiterContract, type RateLimiterHarness } from './rate-limiter-contract.js';
export { aWebhook, seedWebhook } from './records/webhooks.js';
export { describeRecordsRepositoryContract, type RecordsHarness } from './records-contract.js';
export { ManualClock, TransportDouble } from './webhook-doubles.js';
