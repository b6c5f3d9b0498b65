export type { RequestConditions } from './conditions.js';
export type { ExpectedDigest } from './content.js';
// Extensions §5.
export { type CopyFileInput, copyFile } from './copy.js';
export { type DeleteFileInput, deleteFile } from './delete.js';
export { type ByteRange, type Download, type DownloadInput, downloadFile, readFile } from './download.js';
export { type EditFileInput, type EditResult, editFile, MAX_EDIT_ATTEMPTS } from './edit.js';
export { type FileList, listFiles } from './list.js';
export { type MoveFileInput, moveFile } from './move.js';
export {
  type FileOutline,
  isMdxFilename,
  type PartRead,
  type ReadPartInput,
  readFilePart,
  readOutline,
} from './parts.js';
// Extensions §11.
export {
  parseRenderBody,
  RENDER_DEFAULT_FILENAME,
  type RenderedRead,
  readFileHtml,
  renderText,
} from './render.js';
export { type RestoreRevisionInput, restoreRevision } from './restore.js';
export { type DiffRevisionsInput, diffRevisions } from './revision-diff.js';
export {
  type ListRevisionsInput,
  listRevisions,
  type ReadRevisionInput,
  type RevisionList,
  type RevisionView,
  readRevision,
} from './revision-reads.js';
export { type UpdateFileContentInput, updateFileContent } from './update-content.js';
export { type UpdateFileMetadataInput, updateFileMetadata } from './update-metadata.js';
export { type UploadFileInput, type UploadPart, uploadFile } from './upload.js';
