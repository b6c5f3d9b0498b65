import { FILE_LINK_LIMITS, LINK_LIMITS } from '../../defaults/links.js';
import { EditConflictError } from '../../errors.js';
import {
  type AttachmentTarget,
  type BrokenReason,
  type Resolution,
  TargetIndex,
  targetKeys,
} from '../../links/resolve.js';
import type { LinkPosition, LinkRecord, LinkTargetRecord, SourcedLinkRecord } from '../../model/records.js';
import type { RecordsReader } from '../../ports/records.js';
import { type CursorBinding, decodeCursor, encodeCursor } from '../../search/cursor.js';
import { invalidAt } from '../../search/issues.js';
import { parsePageLimit } from '../../validation/history.js';
import { inPathScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { findFileOr404 } from '../files/shared.js';
import { attachmentTargets } from './targets.js';

export interface OutgoingLinkView {
  readonly line: number;
  readonly kind: 'markdown' | 'wiki';
  readonly raw: string;
  readonly target: string | null;
  readonly anchor: string | null;
  readonly resolved: boolean;
  readonly anchor_found: boolean | null;
}

export interface IncomingLinkView {
  readonly source: string;
  readonly line: number;
  readonly kind: 'markdown' | 'wiki';
  readonly raw: string;
  readonly anchor: string | null;
}

export interface FileLinksView {
  readonly outgoing: OutgoingLinkView[];
  readonly incoming: IncomingLinkView[];
  /** `too_large` when the file was past the extraction's bound (its outgoing links are not known). */
  readonly status: 'indexed' | 'too_large' | 'not_indexed';
  /** The next page's cursor; null on the last page. */
  readonly nextCursor: string | null;
}

export interface BrokenLinkView {
  readonly source: string;
  readonly line: number;
  readonly raw: string;
  readonly target: string | null;
  readonly reason: BrokenReason;
}

export interface FileLinksInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** Links per page (outgoing and incoming together), `FILE_LINK_LIMITS`. */
  readonly limit?: string;
  readonly cursor?: string;
}

export interface LinkPageInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly limit?: string;
  readonly cursor?: string;
}

const CURSOR_LOC = ['query', 'cursor'] as const;

/** The names a file is linked by: its filename, and without its extension (wiki links). */
const namesOf = (filename: string): string[] => {
  const bare = filename.replace(/\.mdx?$/, '');
  return bare === filename ? [filename] : [filename, bare];
};

/**
 * Resolves links against the project's files and attachments (extensions §12), loading their targets
 * `LINK_LIMITS.batch` links at a time (a read of files and one of attachments per batch).
 */
async function resolver(records: RecordsReader, projectId: string, links: readonly SourcedLinkRecord[]) {
  // By file: a file loaded by two round trips is one target (else a stem would look ambiguous).
  const targets = new Map<string, LinkTargetRecord>();
  const attachments = new Map<string, AttachmentTarget>();
  for (let at = 0; at < links.length; at += LINK_LIMITS.batch) {
    const filenames = new Set<string>();
    const stems = new Set<string>();
    const paths = new Set<string>();
    const names = new Set<string>();
    for (const { source, link } of links.slice(at, at + LINK_LIMITS.batch)) {
      const keys = targetKeys([link], source);
      for (const name of keys.filenames) filenames.add(name);
      for (const stem of keys.stems) stems.add(stem);
      for (const path of keys.attachments) paths.add(path);
      for (const name of keys.attachmentNames) names.add(name);
    }
    const [loaded, found] = await Promise.all([
      records.listLinkTargets({ projectId, filenames: [...filenames], stems: [...stems] }),
      attachmentTargets(records, projectId, { attachments: [...paths], attachmentNames: [...names] }),
    ]);
    for (const target of loaded) targets.set(target.fileId, target);
    for (const attachment of found) attachments.set(attachment.path, attachment);
  }
  return new TargetIndex([...targets.values()], [...attachments.values()]);
}

/** The candidates of the file's incoming links: links naming it (by path or wiki stem). */
const linksNaming = (file: { projectId: string; filename: string }) => ({
  projectId: file.projectId,
  paths: namesOf(file.filename),
  stems: [file.filename.slice(file.filename.lastIndexOf('/') + 1).replace(/\.mdx?$/, '')],
});

/** Where a page of a file's links starts: after an outgoing link's seq, or after an incoming link. */
type FileLinksPosition =
  | { readonly phase: 'outgoing'; readonly afterSeq: number }
  | { readonly phase: 'incoming'; readonly after: LinkPosition | undefined };

const fileLinksBinding = (accountId: string, projectId: string, fileId: string): CursorBinding =>
  linkBinding(`file_links:${fileId}`, accountId, projectId);

async function decodeFileLinksPosition(
  token: string | undefined,
  binding: CursorBinding,
  key: Uint8Array,
): Promise<FileLinksPosition> {
  if (token === undefined) return { phase: 'outgoing', afterSeq: -1 };
  const payload = (await decodeCursor(token, binding, key, CURSOR_LOC)) as Record<string, unknown> | null;
  if (payload?.p === 'o' && Number.isSafeInteger(payload.q))
    return { phase: 'outgoing', afterSeq: payload.q as number };
  if (payload?.p === 'i' && payload.s === undefined) return { phase: 'incoming', after: undefined };
  if (payload?.p === 'i' && typeof payload.s === 'string' && Number.isSafeInteger(payload.q))
    return { phase: 'incoming', after: { source: payload.s, seq: payload.q as number } };
  throw invalidAt(CURSOR_LOC, 'cursor');
}

/**
 * `GET …/files/{filename}/links` (extensions §9): outgoing and incoming, each in file then line order,
 * paged (`FILE_LINK_LIMITS`): a page holds at most `limit` links, the outgoing ones first, then the
 * incoming ones; the store reads at most `limit + 1` outgoing links and, for the incoming ones, windows
 * of `limit + 1` candidates up to `scanPerPage` (a page may then hold fewer, with a `next_cursor`).
 */
export async function readFileLinks(ctx: MdStoreContext, input: FileLinksInput): Promise<FileLinksView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const file = await findFileOr404(ctx.records, project.id, input.filename);
  const limit = parsePageLimit(input.limit, {
    fallback: FILE_LINK_LIMITS.pageDefault,
    max: FILE_LINK_LIMITS.pageMax,
  });
  const binding = fileLinksBinding(input.principal.accountId, project.id, file.id);
  const position = await decodeFileLinksPosition(input.cursor, binding, ctx.cursorKey);
  const cursor = (payload: Record<string, unknown>) => encodeCursor(payload, binding, ctx.cursorKey);
  // Past the outgoing links, one row is read for the entry's status (and not answered).
  const inOutgoing = position.phase === 'outgoing';
  const entry = await ctx.records.findFileLinks({
    fileId: file.id,
    afterSeq: inOutgoing ? position.afterSeq : -1,
    limit: inOutgoing ? limit + 1 : 1,
  });
  const status = entry?.status ?? 'not_indexed';
  const links = inOutgoing ? (entry?.links ?? []) : [];
  // Extensions §14: to a key confined to folders, links from or to files outside them are not there.
  const reaches = (filename: string) => inPathScope(input.principal, filename);
  const outgoing = await outgoingPage(ctx.records, file, links.slice(0, limit), reaches);
  if (links.length > limit) {
    const last = links[limit - 1]!.seq;
    return { outgoing, incoming: [], status, nextCursor: await cursor({ p: 'o', q: last }) };
  }
  const room = limit - outgoing.length;
  if (room === 0) return { outgoing, incoming: [], status, nextCursor: await cursor({ p: 'i' }) };
  const page = await incomingPage(
    ctx.records,
    file,
    position.phase === 'incoming' ? position.after : undefined,
    room,
    reaches,
  );
  const nextCursor = page.after ? await cursor({ p: 'i', s: page.after.source, q: page.after.seq }) : null;
  return { outgoing, incoming: page.incoming, status, nextCursor };
}

/** Outgoing links of a page, resolved now; those resolved to a file the key does not reach left out. */
async function outgoingPage(
  records: RecordsReader,
  file: { id: string; projectId: string; filename: string },
  links: readonly LinkRecord[],
  reaches: (filename: string) => boolean,
): Promise<OutgoingLinkView[]> {
  const index = await resolver(
    records,
    file.projectId,
    links.map((link) => ({ sourceId: file.id, source: file.filename, link })),
  );
  return links.flatMap((link) => {
    const resolution = index.resolve(link, file.filename);
    if (resolution.target && !reaches(resolution.target.filename)) return [];
    return {
      line: link.line,
      kind: link.kind,
      raw: link.raw,
      target: resolution.target?.filename ?? resolution.attachment?.path ?? null,
      anchor: link.anchor,
      resolved: resolution.target !== null || resolution.attachment !== null,
      anchor_found: resolution.anchorFound,
    };
  });
}

/**
 * Up to `room` incoming links after `after`, read from the store in windows of `room + 1` candidates
 * and at most `scanPerPage` in all; `after` in the answer: where the next page starts (none: the end).
 */
async function incomingPage(
  records: RecordsReader,
  file: { id: string; projectId: string; filename: string },
  after: LinkPosition | undefined,
  room: number,
  reaches: (filename: string) => boolean,
): Promise<{ incoming: IncomingLinkView[]; after: LinkPosition | undefined }> {
  const incoming: IncomingLinkView[] = [];
  let scanned = 0;
  const window = room + 1;
  for (;;) {
    const batch = await records.listLinksTo({ ...linksNaming(file), ...(after && { after }), limit: window });
    const index = await resolver(records, file.projectId, batch);
    for (const { source, link } of batch) {
      if (!reaches(source) || index.resolve(link, source).target?.fileId !== file.id) {
        after = { source, seq: link.seq };
        scanned += 1;
        continue;
      }
      // A link that belongs on the page: the page is full before it, so it starts the next one.
      if (incoming.length === room) return { incoming, after };
      incoming.push({ source, line: link.line, kind: link.kind, raw: link.raw, anchor: link.anchor });
      after = { source, seq: link.seq };
      scanned += 1;
    }
    if (batch.length < window) return { incoming, after: undefined };
    if (scanned >= FILE_LINK_LIMITS.scanPerPage) return { incoming, after };
  }
}

/** Above any link's seq (a 32-bit column in the stores; a file holds far fewer links). */
const LAST_SEQ = 2 ** 31 - 1;

/**
 * The other files that link to `filename` (Delete File's `if_unreferenced`), in filename order, each
 * once, at most `FILE_LINK_LIMITS.referrersMax` of them; read in the caller's transaction when given one.
 * Bounded like a page of links: candidates are read in windows, and once a source is known to link here
 * (or is the file itself) the rest of its links are skipped (the next window starts after its last
 * possible seq), so a file with 500 000 incoming links from 100 files costs small reads, never the whole
 * list in memory. At most `referrerScanMax` link rows are read in all (issue 34): past them the names
 * found so far answer (the file is referenced), and with none found the delete is refused (409
 * `work_budget` at `["query","if_unreferenced"]`), never judged unreferenced without having looked.
 */
export async function referrersOf(
  records: RecordsReader,
  file: { id: string; projectId: string; filename: string },
): Promise<string[]> {
  const sources: string[] = [];
  const window = FILE_LINK_LIMITS.referrerWindow;
  let after: LinkPosition | undefined;
  let read = 0;
  for (;;) {
    if (read >= FILE_LINK_LIMITS.referrerScanMax) {
      if (sources.length > 0) return sources;
      throw referrerScanRefusal();
    }
    const limit = Math.min(window, FILE_LINK_LIMITS.referrerScanMax - read);
    const batch = await records.listLinksTo({ ...linksNaming(file), ...(after && { after }), limit });
    read += batch.length;
    if (batch.length === 0) return sources;
    let skipTo: LinkPosition | undefined;
    // The file's own links name no referrer: skipped without resolving.
    const others = batch.filter(({ sourceId }) => sourceId !== file.id);
    const index = await resolver(records, file.projectId, others);
    for (const { source, link, sourceId } of batch) {
      after = { source, seq: link.seq };
      if (sourceId === file.id) {
        skipTo = { source, seq: LAST_SEQ };
        break;
      }
      if (index.resolve(link, source).target?.fileId !== file.id) continue;
      sources.push(source);
      if (sources.length >= FILE_LINK_LIMITS.referrersMax) return sources;
      // The rest of this source's links cannot add a name: the next read starts after all of them.
      skipTo = { source, seq: LAST_SEQ };
      break;
    }
    if (skipTo) after = skipTo;
    else if (batch.length < limit) return sources;
  }
}

const referrerScanRefusal = (): EditConflictError =>
  new EditConflictError([
    {
      loc: ['query', 'if_unreferenced'],
      msg:
        `Too much work to tell whether the file is referenced: more than ${FILE_LINK_LIMITS.referrerScanMax} ` +
        'links name it without resolving to it (nothing was changed); delete without if_unreferenced, ' +
        'or check GET …/links first',
      type: 'work_budget',
    },
  ]);

const linkBinding = (list: string, accountId: string, projectId: string): CursorBinding => ({
  list,
  account: accountId,
  project: projectId,
});

async function decodePosition(token: string, binding: CursorBinding, key: Uint8Array): Promise<LinkPosition> {
  const payload = (await decodeCursor(token, binding, key, CURSOR_LOC)) as Record<string, unknown> | null;
  if (payload && typeof payload.s === 'string' && Number.isSafeInteger(payload.q)) {
    return { source: payload.s, seq: payload.q as number };
  }
  throw invalidAt(CURSOR_LOC, 'cursor');
}

const pageLimit = (raw: string | undefined) =>
  parsePageLimit(raw, { fallback: LINK_LIMITS.pageDefault, max: LINK_LIMITS.pageMax });

/**
 * `GET /api/projects/{id}/links/broken` (extensions §9): links that resolve to no file (`missing`),
 * to several (`ambiguous`), or to a file without the heading of their anchor (`anchor`), in source
 * then line order. A page reads at most `LINK_LIMITS.scanPerPage` links, so it may hold fewer than
 * `limit` with a `next_cursor`; the list ends when `next_cursor` is null. A key confined to folders
 * (extensions §14) sees the links of the files inside them (read past, not shown, for the others).
 */
export async function listBrokenLinks(
  ctx: MdStoreContext,
  input: LinkPageInput,
): Promise<{ links: BrokenLinkView[]; nextCursor: string | null }> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const limit = pageLimit(input.limit);
  const binding = linkBinding('broken_links', input.principal.accountId, project.id);
  let after =
    input.cursor === undefined ? undefined : await decodePosition(input.cursor, binding, ctx.cursorKey);
  const broken: BrokenLinkView[] = [];
  let scanned = 0;
  // Reads start at the smallest window holding `limit` links (a project full of broken links answers
  // from one read) and grow through the windows: the store marks the links that certainly resolve, so
  // a healthy project's page costs a few reads, and only the others have their targets loaded.
  let window = LINK_LIMITS.pageWindows.findIndex((size) => size >= limit);
  for (; ; window = Math.min(window + 1, LINK_LIMITS.pageWindows.length - 1)) {
    const size = LINK_LIMITS.pageWindows[window]!;
    const batch = await ctx.records.listLinkPage({ projectId: project.id, after, limit: size });
    // What the store found resolved needs no target loaded (most links of a healthy project).
    const index = await resolver(
      ctx.records,
      project.id,
      batch.filter((entry) => !entry.resolved),
    );
    for (const { source, link, resolved } of batch) {
      after = { source, seq: link.seq };
      scanned += 1;
      if (!inPathScope(input.principal, source)) continue;
      const resolution = resolved ? null : index.resolve(link, source);
      if (resolution?.broken) {
        const target = brokenTarget(link, resolution);
        broken.push({ source, line: link.line, raw: link.raw, target, reason: resolution.broken });
      }
      if (broken.length === limit) break;
    }
    const more = batch.length === size || broken.length === limit;
    if (!more) return { links: broken, nextCursor: null };
    if (broken.length === limit || scanned >= LINK_LIMITS.scanPerPage) {
      const nextCursor = await encodeCursor({ s: after!.source, q: after!.seq }, binding, ctx.cursorKey);
      return { links: broken, nextCursor };
    }
  }
}

/**
 * What a broken link points at: the file it resolved to when only its anchor is missing (`anchor`, as
 * `outgoing[].target` gives it), else its resolved path (Markdown) or its target as written (wiki).
 */
const brokenTarget = (link: LinkRecord, resolution: Resolution): string | null =>
  resolution.target?.filename ?? link.path;

/**
 * `GET /api/projects/{id}/links/orphans` (extensions §9): files no other file links to, in filename
 * order, paged like the broken links (at most `LINK_LIMITS.scanPerPage` files read per page). To a key
 * confined to folders (extensions §14), the files and links outside them are not there.
 */
export async function listOrphans(
  ctx: MdStoreContext,
  input: LinkPageInput,
): Promise<{ orphans: string[]; nextCursor: string | null }> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const limit = pageLimit(input.limit);
  const binding = linkBinding('orphans', input.principal.accountId, project.id);
  let after =
    input.cursor === undefined
      ? undefined
      : (await decodePosition(input.cursor, binding, ctx.cursorKey)).source;
  const orphans: string[] = [];
  let scanned = 0;
  for (;;) {
    const files = await ctx.records.listFilePage({
      projectId: project.id,
      sort: 'filename',
      descending: false,
      prefix: '',
      limit: LINK_LIMITS.batch,
      ...(after !== undefined && { after: { filename: after } }),
    });
    const names = files.flatMap((file) => namesOf(file.filename));
    const stems = files.map((file) =>
      file.filename.slice(file.filename.lastIndexOf('/') + 1).replace(/\.mdx?$/, ''),
    );
    const candidates = await ctx.records.listLinksTo({ projectId: project.id, paths: names, stems });
    const index = await resolver(ctx.records, project.id, candidates);
    const linked = new Set<string>();
    for (const { sourceId, source, link } of candidates) {
      if (!inPathScope(input.principal, source)) continue;
      const target = index.resolve(link, source).target;
      if (target && target.fileId !== sourceId) linked.add(target.fileId);
    }
    for (const file of files) {
      after = file.filename;
      scanned += 1;
      if (!linked.has(file.id) && inPathScope(input.principal, file.filename)) orphans.push(file.filename);
      if (orphans.length === limit) break;
    }
    const more = files.length === LINK_LIMITS.batch || orphans.length === limit;
    if (!more) return { orphans, nextCursor: null };
    if (orphans.length === limit || scanned >= LINK_LIMITS.scanPerPage) {
      return { orphans, nextCursor: await encodeCursor({ s: after, q: 0 }, binding, ctx.cursorKey) };
    }
  }
}
