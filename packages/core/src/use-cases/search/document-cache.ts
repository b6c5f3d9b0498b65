import type { FileRecord } from '../../model/records.js';
import type { IndexedDocument } from '../../search/index-document.js';

/**
 * What search made of recently matched files, so that a query does not tokenize the same content again
 * (tokenizing is most of a search's cost). Keyed by what a document is built from: a file's id and
 * revision (every write to a file adds one), its digest, and whether it has front matter (the start-up
 * backfill reads front matter without a new revision, for files that had none). Least recently used
 * documents go first once the documents hold more than `maxTokens` words in all.
 */
export class SearchDocumentCache {
  readonly #entries = new Map<string, { document: IndexedDocument; tokens: number }>();
  #tokens = 0;

  constructor(readonly maxTokens: number) {}

  static keyOf(file: FileRecord): string {
    return `${file.id}:${file.revision}:${file.sha256}:${file.frontmatterJson === null ? 0 : file.frontmatterJson.length}`;
  }

  get(file: FileRecord): IndexedDocument | undefined {
    const key = SearchDocumentCache.keyOf(file);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.document;
  }

  set(file: FileRecord, document: IndexedDocument): void {
    const tokens = document.filename.length + document.content.length + document.meta.length;
    if (tokens > this.maxTokens) return;
    const key = SearchDocumentCache.keyOf(file);
    const previous = this.#entries.get(key);
    if (previous) {
      this.#entries.delete(key);
      this.#tokens -= previous.tokens;
    }
    this.#entries.set(key, { document, tokens });
    this.#tokens += tokens;
    for (const [oldest, entry] of this.#entries) {
      if (this.#tokens <= this.maxTokens) break;
      this.#entries.delete(oldest);
      this.#tokens -= entry.tokens;
    }
  }
}
