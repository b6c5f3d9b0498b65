export { type ContentLinks, linkEntry, movedEntry, resolveLink } from './entry.js';
export { extractLinks, type FoundLink, type FoundLinks, LINKS_MAX_BYTES, linksCost } from './extract.js';
export { contentLinkIndexing, type LinkIndexing, noLinkIndexing } from './indexing.js';
export {
  folderOf,
  markdownDestination,
  normalisePath,
  relativePath,
  stemOf,
  wikiDestination,
} from './paths.js';
export { contentLinks, isMdx, linksTask } from './work.js';
