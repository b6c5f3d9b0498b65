export type { RequestConditions } from './conditions.js';
export type { ExpectedDigest } from './content.js';
export { type DeleteFileInput, deleteFile } from './delete.js';
export { type ByteRange, type Download, type DownloadInput, downloadFile, readFile } from './download.js';
export { type FileList, listFiles } from './list.js';
export { type UpdateFileContentInput, updateFileContent } from './update-content.js';
export { type UpdateFileMetadataInput, updateFileMetadata } from './update-metadata.js';
export { type UploadFileInput, type UploadPart, uploadFile } from './upload.js';
