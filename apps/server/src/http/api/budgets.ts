import {
  ATTACHMENT_LIMITS,
  AUDIT_LIMITS,
  CHANGES_LIMITS,
  CHANGESET_LIMITS,
  CHANGESET_WORK,
  DRAFT_LIMITS,
  FILE_LINK_LIMITS,
  HELD_LIMITS,
  HISTORY_LIMITS,
  IMPORT_ANSWER_LIMITS,
  IMPORT_LIMITS,
  KEY_LIMITS,
  LINK_LIMITS,
  LIST_LIMITS,
  MEMORY_LIMITS,
  MERGE_LIMITS,
  PROJECT_DELETION_LIMITS,
  RESTORE_LIMITS,
  REWRITE_LIMITS,
  SEARCH_COST_LIMITS,
  SEARCH_LIMITS,
  SEMANTIC_LIMITS,
  SHARE_LIMITS,
  WEBHOOK_LIMITS,
} from '@mdstore/core';
import { EMBEDDINGS_TIMEOUT_MS } from '../../embeddings/openai.js';

/**
 * THE BUDGET TABLE (issue 34): what one call of each operation may make the server do, and what
 * happens past it. Every route of the route table needs a row here (the mount refuses a route without
 * one), every MCP tool names the operation whose row it shares (`mcp/tool-budgets.ts`), and the table in
 * docs/reliability.md is generated from these rows (`npm run docs:budgets`; a test fails when the two
 * differ). The numbers come from the core's limits themselves, so the table cannot drift from the code.
 *
 * Every `/api` call is also counted by the key's rate limit (`MDSTORE_RATE_LIMIT_*`), every content
 * parse by the bounded-work rule (see "Bounded work on user content"), and every task sent to the
 * content pool by its per-account share (`CONTENT_WORK_LIMITS`: past it 503 `CONTENT_WORK_BUSY` at
 * once): those hold for all rows and are not repeated in each.
 */
export interface OperationBudget {
  /** What one call may cost at most: rows scanned, content read, entries and bytes answered, time held. */
  readonly cost: string;
  /** What happens past it: a page, a truncation (and the flag that says so), the pool, or a refusal. */
  readonly past: string;
}

const page = (defaultLimit: number, maxLimit: number) =>
  `one page: ${defaultLimit} entries unless \`limit\` says, at most ${maxLimit}`;
const LIST = page(LIST_LIMITS.defaultLimit, LIST_LIMITS.maxLimit);
const NEXT_PAGE = 'the next page, by `cursor`';
/** Extensions §14: a key confined to folders walks each of its folders as its own range. */
const PER_FOLDER = `; a key confined to folders reads that once per folder (at most ${KEY_LIMITS.maxPathPrefixes}), and counts once per folder`;
const ONE_ROW = 'a few rows by key';
const NOTHING_PAST = 'nothing can exceed it';
const FILE_CONTENT = 'one file: at most `maxFileBytes` (10 MiB by default), streamed, never buffered whole';
/** A byte count as the docs write it (`8 MiB`). */
const mib = (bytes: number): string =>
  bytes < 1024 * 1024 ? `${bytes / 1024} KiB` : `${bytes / (1024 * 1024)} MiB`;
const TOO_LARGE = '413 before the body is stored';
const PARSED_CONTENT = `${FILE_CONTENT}; its parse is priced before it runs (bounded-work rule)`;
const WORK_REFUSED = '409 `work_budget`, or 503 `CONTENT_WORK_BUSY` with `Retry-After` when the pool is full';
/** Extensions §13: what `?merge_base=` adds to a content write or an edit. */
const MERGE = `with \`merge_base\`: the body and three texts (base revision, current, result) held whole, each at most \`maxFileBytes\`, from the content budget; the three-way merge's LCS priced before it runs (at most ${MERGE_LIMITS.maxLines} lines a text, ${MERGE_LIMITS.maxLineComparisons} line comparisons)`;
const MERGE_PAST = '413 `MERGE_TOO_LARGE` before any LCS runs, nothing written';
/** What `rewrite_links` on a move (of a file or an attachment) may cost, and what happens past it. */
const MOVE_REWRITES = `at most ${REWRITE_LIMITS.maxLinks} links looked at (index reads with \`LIMIT ${REWRITE_LIMITS.maxLinks + 1}\`) and at most ${REWRITE_LIMITS.bytesFactor} × \`maxFileBytes\` of files to rewrite (from their records), both judged before any content is read; then one file at a time, a turn of the event loop every ${REWRITE_LIMITS.linksPerTurn} links`;
const MOVE_REWRITES_PAST = '409 `work_budget` at `["body","rewrite_links"]`, nothing read or written';

export const ROUTE_BUDGETS: Readonly<Record<string, OperationBudget>> = {
  // Projects.
  listProjects: { cost: LIST, past: NEXT_PAGE },
  createProject: { cost: ONE_ROW, past: NOTHING_PAST },
  getProject: { cost: `${ONE_ROW}; the totals are kept, not counted`, past: NOTHING_PAST },
  updateProject: { cost: ONE_ROW, past: NOTHING_PAST },
  deleteProject: {
    cost: `one transaction marks the project deleted (a few rows); then at most ${PROJECT_DELETION_LIMITS.requestBatches} purge transactions of at most ${PROJECT_DELETION_LIMITS.batchRows} record rows each (files, revisions, trash, attachments, index entries); the bucket with its blobs only once no record is left`,
    past: 'the same `200`; the maintenance loop (reconciliation) purges the rest batch by batch and removes the bucket; a retry by the owner runs another bounded slice',
  },
  // Files.
  listFiles: {
    cost: `${LIST}; at most ${LIST_LIMITS.batchRows} rows read per store round trip${PER_FOLDER}`,
    past: NEXT_PAGE,
  },
  uploadFile: { cost: PARSED_CONTENT, past: `${TOO_LARGE}; ${WORK_REFUSED}` },
  updateFileMetadata: { cost: 'metadata of at most 64 KiB and 32 levels', past: '413 / 422' },
  deleteFile: {
    cost: `${ONE_ROW}; with \`if_unreferenced\`: link rows read in windows of ${FILE_LINK_LIMITS.referrerWindow} (\`LIMIT\`), at most ${FILE_LINK_LIMITS.referrerScanMax} in all, the rest of a referring file's links (and the file's own) skipped once it is known, at most ${FILE_LINK_LIMITS.referrersMax} referring files named`,
    past: `\`referenced_by\` holds the first ${FILE_LINK_LIMITS.referrersMax} referring files in filename order (those found within the ${FILE_LINK_LIMITS.referrerScanMax} rows); none found by then: 409 \`work_budget\`, nothing deleted`,
  },
  updateFileContent: {
    cost: `${PARSED_CONTENT}; ${MERGE}`,
    past: `${TOO_LARGE}; ${WORK_REFUSED}; ${MERGE_PAST}`,
  },
  downloadFile: {
    cost: `${FILE_CONTENT}; ranges and \`lines\` read only what they answer`,
    past: NOTHING_PAST,
  },
  // Extensions §12.
  listAttachments: {
    cost: `${LIST}; with \`delimiter\`, one statement of at most 32 rows per folder on the page${PER_FOLDER}`,
    past: NEXT_PAGE,
  },
  writeAttachment: {
    cost: `one attachment: at most \`maxAttachmentBytes\` (${mib(ATTACHMENT_LIMITS.defaultMaxAttachmentBytes)} by default), streamed to the blob store, never buffered (only its first ${ATTACHMENT_LIMITS.sniffBytes} bytes are held, to check its type); the MCP tool \`write_attachment\` holds its decoded bytes, at most ${mib(ATTACHMENT_LIMITS.mcpWriteMaxBytes)}`,
    past: `${TOO_LARGE}; 415 when the bytes are not the declared type`,
  },
  readAttachment: {
    cost: `one attachment, streamed from the blob store; a range reads only what it answers; the MCP tool \`read_attachment\` holds an image of at most ${mib(ATTACHMENT_LIMITS.mcpImageMaxBytes)} (larger ones and other types get a link)`,
    past: NOTHING_PAST,
  },
  deleteAttachment: { cost: ONE_ROW, past: NOTHING_PAST },
  moveAttachment: {
    cost: `one attachment record (its bytes are not read or copied); with \`rewrite_links\` (and its \`dry_run\`): ${MOVE_REWRITES}`,
    past: MOVE_REWRITES_PAST,
  },
  moveFile: {
    cost: `one file; with \`rewrite_links\` (and its \`dry_run\`): ${MOVE_REWRITES}`,
    past: MOVE_REWRITES_PAST,
  },
  copyFile: { cost: FILE_CONTENT, past: '413 when the project is full' },
  // Editing (extensions §4).
  editFile: {
    cost: `at most 100 edits on one file, priced step by step (bounded-work rule); ${MERGE}`,
    past: `${WORK_REFUSED}; ${MERGE_PAST}`,
  },
  getOutline: { cost: PARSED_CONTENT, past: '413 `OUTLINE_TOO_LARGE`' },
  // Extensions §11: the live preview's render of unsaved text.
  renderText: {
    cost: 'the body (at most twice `maxFileBytes`, JSON-escaped) held whole, its text at most `maxFileBytes`, reserved from the content budget; the render priced before it runs, as `?format=html` (bounded-work rule); at most 500 distinct link targets resolved in two reads of the store',
    past: '413 when the text passes `maxFileBytes` or the render its bound (`OUTLINE_TOO_LARGE`); 503 `CONTENT_WORK_BUSY` with `Retry-After` when the pool is full',
  },
  // History (extensions §5).
  listRevisions: {
    cost: page(HISTORY_LIMITS.revisionsPageDefault, HISTORY_LIMITS.revisionsPageMax),
    past: NEXT_PAGE,
  },
  downloadRevision: { cost: FILE_CONTENT, past: NOTHING_PAST },
  diffRevisions: {
    cost: 'two revisions of one file; the diff is priced before it runs',
    past: '413 `DIFF_TOO_LARGE`',
  },
  restoreRevision: { cost: FILE_CONTENT, past: '413 when the project is full' },
  // Changesets (extensions §9).
  applyChangeset: {
    cost: `at most ${CHANGESET_LIMITS.maxOperations} operations; at most ${CHANGESET_LIMITS.contentFactor} × \`maxFileBytes\` of \`put\` content and \`attach\` bytes (each attachment at most \`maxAttachmentBytes\`, decoded and its head checked once, written to the blob store one at a time before the transaction), summed in one pass before any operation is planned; edits within the edit budget; the per-file work (encode, digest, search fields, links) gives the event loop a turn every ${CHANGESET_WORK.unitsPerTurn / 1024} Ki code units`,
    past: `413 at the operation where the total passes (nothing read or written); 422 past ${CHANGESET_LIMITS.maxOperations} operations; ${WORK_REFUSED}`,
  },
  // A project as it was (extensions §16).
  restoreProject: {
    cost: `every file and trash item of the project examined (at most ${RESTORE_LIMITS.maxFiles}), walking back each one's kept revisions (at most ${RESTORE_LIMITS.maxRevisionsRead} revision rows in all); then one changeset of at most ${RESTORE_LIMITS.maxChanges} files whose contents are read one at a time from their revisions; the answer's lists at most ${RESTORE_LIMITS.maxListed} entries each`,
    past: `413 \`RESTORE_TOO_LARGE\` before anything is written (a dry run answers past ${RESTORE_LIMITS.maxChanges} changes, with exact counts); lists cut with \`truncated\`; 413 when the project is full`,
  },
  // Agent memory (extensions §14): the route asks for `read`; every command but `view` needs `write` (the core's access rule).
  runMemoryCommand: {
    cost: `one command on one file under \`memories/\`: reads at most ${mib(MEMORY_LIMITS.maxViewBytes)} of its text, writes at most ${mib(MEMORY_LIMITS.maxFileBytes)}, at most ${MEMORY_LIMITS.maxWriteAttempts} attempts against newer content (If-Match); a folder \`view\` reads at most ${MEMORY_LIMITS.maxViewScan} file rows and lists ${MEMORY_LIMITS.maxViewEntries} entries; a folder \`rename\`/\`delete\` is one changeset of at most ${MEMORY_LIMITS.maxFolderFiles} files`,
    past: "the tool's error text (200, `is_error: true`) for a file too large or a folder too large; a listing ends with a line saying what was left out; 413 for a body above the JSON limit",
  },
  // Drafts (extensions §13).
  createDraft: {
    cost: `at most ${DRAFT_LIMITS.maxOperationsPerRequest} operations, judged as a changeset's (content within ${CHANGESET_LIMITS.contentFactor} × \`maxFileBytes\` for the whole draft, edits within the edit budget, one live file read per edited file); at most ${DRAFT_LIMITS.maxOpenPerProject} open drafts per project`,
    past: `409 \`COUNT_LIMIT_REACHED\` past the open drafts (close or publish one); 413 past the content; 422 past ${DRAFT_LIMITS.maxFiles} files`,
  },
  addDraftOperations: {
    cost: `the draft's files (at most ${DRAFT_LIMITS.maxFiles}, read with that LIMIT) and the operations as for \`createDraft\``,
    past: `413 past the content in all; 422 past ${DRAFT_LIMITS.maxFiles} files`,
  },
  listDrafts: { cost: page(DRAFT_LIMITS.pageDefault, DRAFT_LIMITS.pageMax), past: NEXT_PAGE },
  getDraft: {
    cost: `one draft, its files (at most ${DRAFT_LIMITS.maxFiles}) and reviews (at most ${DRAFT_LIMITS.maxReviews}), each read with that LIMIT`,
    past: NOTHING_PAST,
  },
  readDraftFile: { cost: `${ONE_ROW}; one text of at most \`maxFileBytes\``, past: NOTHING_PAST },
  diffDraft: {
    cost: `${page(DRAFT_LIMITS.diffPageDefault, DRAFT_LIMITS.diffPageMax)} files: each base text read under the content budget, each diff priced before it runs`,
    past: `${NEXT_PAGE}; a diff past its bound is \`diff: null\` with \`diff_too_large: true\``,
  },
  reviewDraft: {
    cost: `${ONE_ROW}; at most ${DRAFT_LIMITS.maxReviews} reviews per draft`,
    past: '409 `COUNT_LIMIT_REACHED`',
  },
  closeDraft: { cost: ONE_ROW, past: NOTHING_PAST },
  publishDraft: {
    cost: `one changeset of the draft's files (at most ${DRAFT_LIMITS.maxFiles}, ${CHANGESET_LIMITS.contentFactor} × \`maxFileBytes\` of content); each stale file's base, current text and merge (within the merge engine's bound); at most ${DRAFT_LIMITS.publishAttempts} attempts when files change under it`,
    past: '409 `Draft conflicts` (nothing changes); 412 when files keep changing under every attempt',
  },
  // Search (extensions §1).
  searchProject: {
    cost: `one page of at most ${SEARCH_LIMITS.searchMaxLimit} results; examines at most ${SEARCH_COST_LIMITS.scanMaxRows} index rows (${SEARCH_LIMITS.searchBatch} per store query, by \`LIMIT\`) and reads at most ${mib(SEARCH_COST_LIMITS.matchTextMaxBytes)} of content text to match and rank (each file's size, capped at ${mib(SEARCH_LIMITS.contentMaxBytes)}, paid before it is read; at most ${mib(SEARCH_COST_LIMITS.matchTextBatchBytes)} per store round trip, then a turn of the event loop), and ${mib(SEARCH_COST_LIMITS.snippetTextMaxBytes)} for the page's snippets; holds one batch of rows and ${SEARCH_LIMITS.searchTextBatch} texts, rank statistics (not documents) of at most ${SEARCH_LIMITS.searchMaxCount} matches, and for the other sorts only the page; each \`word*\` is expanded from the index's word list (SQLite: FTS5's vocabulary; Postgres: \`search_words\`, one index descent per word) to at most ${SEARCH_COST_LIMITS.prefixMaxTerms} words in all, by \`LIMIT\`, which the engine gets instead of the prefix. \`mode\` semantic/hybrid (extensions §15) adds one call of the embedder for the query (at most ${EMBEDDINGS_TIMEOUT_MS / 1000} s, else 503), the filter's files (within the same row bound) and a scan of at most ${SEMANTIC_LIMITS.vectorScanMaxRows} stored chunk vectors and ${mib(SEMANTIC_LIMITS.vectorScanMaxBytes)} of vector bytes (${SEMANTIC_LIMITS.vectorScanBatch} per store query): every vector of the projects, or, once the account's chunks are filed in vector lists and the projects hold ${SEMANTIC_LIMITS.listsExactBelow} or more, the lists nearest the query until ${SEMANTIC_LIMITS.listsProbeRows} accepted chunks were compared (one bounded count, and one read of the account's centroids); hybrid also runs the text scan`,
    past: 'the answer has `truncated: true` (results, order and `total_count` are those of the files examined, the first in project and filename order; or, past the prefix words, of the files holding the first words); results past the snippet bytes keep their place with `snippets: []` and `snippets_truncated: true`; `total_count` stops counting; the next page, by `cursor`',
  },
  searchAll: {
    cost: `as a project's search, the same bounds for the whole request, over at most ${SEARCH_LIMITS.searchMaxProjectIds} projects`,
    past: '422 past the project count; otherwise as a project search',
  },
  searchStatus: {
    cost: `${ONE_ROW} (the indexer's cursor), one count of the project's embedded files, one feed page of at most ${SEMANTIC_LIMITS.statusMaxPending} events`,
    past: `\`pending\` stops counting at ${SEMANTIC_LIMITS.statusMaxPending}`,
  },
  // Links (extensions §9).
  getFileLinks: {
    cost: `${page(FILE_LINK_LIMITS.pageDefault, FILE_LINK_LIMITS.pageMax)} links (outgoing first, then incoming); at most \`limit\` + 1 outgoing and ${FILE_LINK_LIMITS.scanPerPage} candidate incoming rows read, each with the page's LIMIT`,
    past: `${NEXT_PAGE} (a page may be shorter than \`limit\`); 422 past the maximum \`limit\``,
  },
  listBrokenLinks: {
    cost: `${page(LINK_LIMITS.pageDefault, LINK_LIMITS.pageMax)}; at most ${LINK_LIMITS.scanPerPage} links scanned per page`,
    past: NEXT_PAGE,
  },
  listOrphans: {
    cost: `${page(LINK_LIMITS.pageDefault, LINK_LIMITS.pageMax)}; at most ${LINK_LIMITS.scanPerPage} files scanned per page`,
    past: NEXT_PAGE,
  },
  // Trash (extensions §5).
  listTrash: { cost: LIST, past: NEXT_PAGE },
  restoreTrashItem: { cost: 'one trash item and the files it holds', past: '409 on a name taken' },
  deleteTrashItem: { cost: ONE_ROW, past: NOTHING_PAST },
  // Export and import (extensions §10).
  exportProject: {
    cost: 'streams every file, then every attachment, of the project (or of `prefix`, or of the key’s folders) into one archive, one entry at a time',
    past: 'a client that stops reading holds the stream until the socket times out',
  },
  importProject: {
    cost: `an archive of at most \`maxImportBytes\` (${IMPORT_LIMITS.defaultMaxImportBytes / 1024 ** 3} GiB by default), at most ${IMPORT_LIMITS.maxEntries} entries, expanding at most ${IMPORT_LIMITS.maxCompressionRatio}×; a tar name header (PAX or GNU long name) of at most ${IMPORT_ANSWER_LIMITS.longHeaderMaxBytes / 1024} KiB, judged from its 512-byte header; the answer lists at most ${IMPORT_ANSWER_LIMITS.skippedMax} skipped entries, names cut to ${IMPORT_ANSWER_LIMITS.nameMaxBytes} bytes`,
    past: '413 `IMPORT_TOO_LARGE`, or 422 `header_too_large`, before anything is written; skipped entries past the list are counted in `skipped_omitted`, longer names end with `…`',
  },
  // Keys (extensions §8).
  createKey: {
    cost: `${ONE_ROW}; at most ${KEY_LIMITS.maxActive} keys not revoked per account`,
    past: '409 `COUNT_LIMIT_REACHED` (revoke one first)',
  },
  listKeys: {
    cost: `the account's keys not revoked: at most ${KEY_LIMITS.maxActive}, read with that LIMIT`,
    past: NOTHING_PAST,
  },
  currentKey: { cost: ONE_ROW, past: NOTHING_PAST },
  revokeKey: { cost: ONE_ROW, past: NOTHING_PAST },
  // Shares (extensions §11).
  createShare: {
    cost: `${ONE_ROW}; at most ${SHARE_LIMITS.maxLivePerProject} live shares per project`,
    past: '409 `COUNT_LIMIT_REACHED` (revoke one, or wait for one to expire)',
  },
  listShares: {
    cost: `the project's live shares: at most ${SHARE_LIMITS.maxLivePerProject}, read with that LIMIT; then only their creators' keys, each once, in one read by id (never the account's keys)`,
    past: NOTHING_PAST,
  },
  revokeShare: { cost: ONE_ROW, past: NOTHING_PAST },
  // Audit (extensions §8).
  listAudit: { cost: page(AUDIT_LIMITS.defaultLimit, AUDIT_LIMITS.maxLimit), past: NEXT_PAGE },
  // Changes (extensions §7).
  listChanges: {
    cost: `${page(CHANGES_LIMITS.defaultLimit, CHANGES_LIMITS.maxLimit)} and one feed-head read; a long poll or SSE stream holds a socket, a timer and a listener (a poll at most ${CHANGES_LIMITS.maxWaitSeconds} s), one page read per notice of its account (and per ${CHANGES_LIMITS.safetyPollMs / 1000} s), and shares its key's check (one store read per key per second)`,
    past: `${NEXT_PAGE} (\`next_since\`); past the key's (${HELD_LIMITS.defaultMaxPerKey}) or the account's (${HELD_LIMITS.defaultMaxPerAccount}) held requests 429, past the instance's (${HELD_LIMITS.defaultMaxPerInstance}) 503, with \`Retry-After: 5\`; a revoked or expired key: 401, or the stream ends, nothing more delivered`,
  },
  // Webhooks (extensions §7).
  createWebhook: {
    cost: `${ONE_ROW}; a URL of at most ${WEBHOOK_LIMITS.urlMaxBytes} bytes; at most ${WEBHOOK_LIMITS.maxPerAccount} webhooks per account`,
    past: '422; 409 `COUNT_LIMIT_REACHED` past the count (delete one first)',
  },
  listWebhooks: {
    cost: `the account's webhooks: one store read with \`LIMIT ${WEBHOOK_LIMITS.maxPerAccount}\` (the most an account may create)`,
    past: `the oldest ${WEBHOOK_LIMITS.maxPerAccount} (only creations racing past the count could make more)`,
  },
  getWebhook: { cost: ONE_ROW, past: NOTHING_PAST },
  deleteWebhook: { cost: ONE_ROW, past: NOTHING_PAST },
  enableWebhook: { cost: ONE_ROW, past: NOTHING_PAST },
  listWebhookDeliveries: {
    cost: page(WEBHOOK_LIMITS.deliveriesPageDefault, WEBHOOK_LIMITS.deliveriesPageMax),
    past: NEXT_PAGE,
  },
  // Operations.
  getHealth: { cost: 'nothing read', past: NOTHING_PAST },
  getReadiness: { cost: 'one store round trip per dependency, each with a deadline', past: '503' },
};

/** The row of an operation, or an error naming it: a route cannot be mounted without its budget. */
export function budgetOf(operationId: string): OperationBudget {
  const budget = ROUTE_BUDGETS[operationId];
  if (!budget) throw new Error(`Route ${operationId} has no row in the budget table (api/budgets.ts)`);
  return budget;
}
