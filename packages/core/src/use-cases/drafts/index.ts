export { type DraftDiffPage, type DraftFileDiff, diffDraft } from './diff.js';
export {
  addDraftOperations,
  closeDraft,
  createDraft,
  type DraftPage,
  type DraftRequest,
  getDraft,
  listDrafts,
  readDraftFile,
  reviewDraft,
} from './manage.js';
export { type PublishedDraft, publishDraft } from './publish.js';
export type { DraftFileView, DraftReviewView, DraftSummaryView, DraftView } from './shared.js';
