import type { FileRecord } from '../model/records.js';
import { type IndexedDocument, indexDocument } from './index-document.js';

const parsed = (json: string | null): unknown => (json === null ? null : JSON.parse(json));

/**
 * What search indexes of a stored file: its filename, its metadata and front matter as stored, and
 * the text of its content (cut to the first 1 MiB and 16 000 words by `indexDocument`).
 */
export function fileSearchDocument(file: FileRecord, contentText: string): IndexedDocument {
  return indexDocument({
    filename: file.filename,
    contentText,
    metadata: parsed(file.metadataJson),
    frontmatter: parsed(file.frontmatterJson),
  });
}
