export { backfillLinkIndex, type LinkBackfillReport } from './backfill.js';
export { indexFileWrite, storedContentLinks } from './index-step.js';
export {
  type BrokenLinkView,
  type FileLinksInput,
  type FileLinksView,
  type IncomingLinkView,
  type LinkPageInput,
  listBrokenLinks,
  listOrphans,
  type OutgoingLinkView,
  readFileLinks,
  referrersOf,
} from './read.js';
