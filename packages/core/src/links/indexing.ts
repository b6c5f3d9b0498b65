import type { FileRecord } from '../model/records.js';
import type { ContentWork } from '../ports/content-work.js';
import type { RecordsTransaction } from '../ports/records.js';
import { type ContentLinks, linkEntry, movedEntry } from './entry.js';
import { contentLinks } from './work.js';

/**
 * The link index's part of every content write (extensions §9): finding a content's links before the
 * write's transaction (bounded: links/work.ts), and keeping the file's entry in that transaction. The
 * store uses `contentLinkIndexing`; the only other one is `noLinkIndexing`, which lets the benchmark
 * measure what the index costs a write against the same server without it (bench/support/
 * link-index-cost.ts). It is no setting: a store built with it answers link reads from a stale index.
 */
export interface LinkIndexing {
  /** The links of a content's text; `truncated`: the text passed the links' size bound. */
  find(
    work: ContentWork,
    o: { text: string; truncated: boolean; filename: string; signal?: AbortSignal },
  ): Promise<ContentLinks>;
  /**
   * The file's entry, in the write's transaction, after `insertFile` or `updateFile`: `links` found
   * before it, or `kept` when the content did not change (a move): the file's links are then resolved
   * again from its new folder.
   */
  write(tx: RecordsTransaction, o: { file: FileRecord; links: ContentLinks | 'kept' }): Promise<void>;
}

export const contentLinkIndexing: LinkIndexing = {
  find: contentLinks,
  async write(tx, o) {
    if (o.links !== 'kept') {
      await tx.indexLinks({ entry: linkEntry(o.file, o.links) });
      return;
    }
    const entry = await tx.findFileLinks({ fileId: o.file.id });
    if (entry) await tx.indexLinks({ entry: movedEntry(entry, o.file.filename) });
  },
};

/** No link index: nothing is extracted or written. For measuring the index's cost only (see above). */
export const noLinkIndexing: LinkIndexing = {
  find: async () => ({ links: [], slugs: [], headings: [] }),
  write: async () => {},
};
