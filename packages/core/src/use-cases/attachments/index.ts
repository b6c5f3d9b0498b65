export { deleteAttachment } from './delete.js';
export { type AttachmentList, type AttachmentListParams, listAttachments } from './list.js';
export { type MovedAttachmentView, moveAttachment } from './move.js';
export { type AttachmentDownload, readAttachment } from './read.js';
export { type AttachmentView, attachmentEtag, toAttachmentView } from './shared.js';
export { type WrittenAttachment, writeAttachment } from './write.js';
