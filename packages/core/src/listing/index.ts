/** Paged, sorted lists (extensions §3): the keyset rules every records adapter follows. */

export {
  decodeFilePosition,
  decodeProjectPosition,
  decodeTrashPosition,
  encodeFilePosition,
  encodeProjectPosition,
  encodeTrashPosition,
  type FileListPosition,
  fileListBinding,
  projectListBinding,
  trashListBinding,
} from './cursors.js';
export {
  afterFolder,
  compareKeysets,
  inPage,
  keysetOf,
  prefixUpperBound,
  projectAfter,
  selectFilePage,
  sortValue,
} from './keyset.js';
export { LIST_LIMITS } from './limits.js';
export {
  type FileListParams,
  type FileListRequest,
  type ListParams,
  type ListRequest,
  parseFileListParams,
  parseListParams,
} from './query.js';
export { type FileListEntry, readFileLevel } from './walk.js';
