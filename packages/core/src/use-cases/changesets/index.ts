export {
  type ApplyChangesetInput,
  type AttachmentChangeResult,
  applyChangeset,
  applyChangesetRequest,
  type ChangesetFileResult,
  type ChangesetResult,
  type FileChangeResult,
  isFileResult,
  MAX_CHANGESET_ATTEMPTS,
} from './apply.js';
