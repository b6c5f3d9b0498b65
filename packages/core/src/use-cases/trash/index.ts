export { deleteTrashItem } from './delete.js';
export { type ExpiryReport, expireTrash } from './expire.js';
export { listTrash, type TrashItemView, type TrashPage } from './list.js';
export { restoreTrashItem, type TrashRestored } from './restore.js';
