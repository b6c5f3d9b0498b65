export {
  type ApplyChangesetInput,
  applyChangeset,
  applyChangesetRequest,
  type ChangesetFileResult,
  type ChangesetResult,
  MAX_CHANGESET_ATTEMPTS,
} from './apply.js';
