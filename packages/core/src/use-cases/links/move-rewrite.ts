import { ContentTooLargeError, EditConflictError } from '../../errors.js';
import type { ContentLinks } from '../../links/entry.js';
import { resolveLink } from '../../links/entry.js';
import { stemOf, wikiExactNames } from '../../links/paths.js';
import { TargetIndex, targetKeys } from '../../links/resolve.js';
import { type FileRewrite, planLinkRewrites, type RewriteFile } from '../../links/rewrite.js';
import type {
  BlobIntentRecord,
  FileRecord,
  LinkRecord,
  LinkTargetRecord,
  ProjectRecord,
} from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import type { Principal } from '../authentication.js';
import { withStagedResources } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { linksOfText, searchFields } from '../files/content.js';
import { openContent } from '../files/download.js';
import { lockActiveProject, newContentKey } from '../files/shared.js';
import { commitContentVersion } from '../files/update-content.js';

/**
 * Move with `rewrite_links` (extensions §9): the rewrites are planned before the transaction (the
 * linking files' contents are read, the new contents hashed and their links found), then the move's
 * transaction applies each as an `edit`-like content write through the shared per-file step
 * (`commitContentVersion`), so the move and every rewrite commit together or not at all. A linking
 * file written between the plan and the transaction makes the transaction refuse; the move plans
 * again (`REWRITE_ATTEMPTS`), then answers 409.
 */

export const REWRITE_ATTEMPTS = 3;

export interface PlannedRewrite {
  readonly rewrite: FileRewrite;
  /** The linking file as it was read (its revision is checked again in the transaction). */
  readonly file: FileRecord;
  readonly bytes: Uint8Array;
  readonly links: ContentLinks;
}

export interface MovePlan {
  readonly rewrites: PlannedRewrite[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The names a file is linked by: its filename, and without its extension (wiki links). */
const namesOf = (filename: string): string[] => {
  const bare = filename.replace(/\.mdx?$/, '');
  return bare === filename ? [filename] : [filename, bare];
};

/** Plans the rewrites of moving `file` to `to`: which files change, and their new contents. */
export async function planMoveRewrites(
  ctx: MdStoreContext,
  project: ProjectRecord,
  file: FileRecord,
  to: string,
): Promise<MovePlan> {
  const { records } = ctx;
  const moved = new Map([[file.filename, to]]);
  const candidates = [
    ...(await records.listLinksTo({
      projectId: project.id,
      paths: namesOf(file.filename),
      stems: [stemOf(file.filename)],
    })),
    ...(await records.listLinksTo({ projectId: project.id, paths: namesOf(to), stems: [stemOf(to)] })),
  ];
  const own = (await records.findFileLinks({ fileId: file.id }))?.links ?? [];
  const linksBySource = new Map<string, Map<number, LinkRecord>>([
    [file.filename, new Map(own.map((l) => [l.seq, l]))],
  ]);
  for (const { source, link } of candidates) {
    const links = linksBySource.get(source) ?? new Map<number, LinkRecord>();
    links.set(link.seq, link);
    linksBySource.set(source, links);
  }
  const targets = await loadTargets(ctx, project.id, linksBySource, moved);
  const before = new TargetIndex(targets);
  const after = new TargetIndex(
    targets.map((target) =>
      target.fileId === file.id ? { ...target, filename: to, stem: stemOf(to) } : target,
    ),
  );
  const sources: Array<RewriteFile & { record: FileRecord; bytes: Uint8Array }> = [];
  for (const [name, links] of linksBySource) {
    const record =
      name === file.filename ? file : await records.findFile({ projectId: project.id, filename: name });
    if (!record) continue;
    const bytes = await readWhole(ctx, project, record);
    sources.push({
      filename: name,
      content: decoder.decode(bytes),
      links: [...links.values()],
      record,
      bytes,
    });
  }
  const plan = planLinkRewrites({
    moved,
    files: sources,
    before: (link, source) => before.resolve(link, source).target?.filename ?? null,
    after: (link, source) => after.resolve(link, source).target?.filename ?? null,
  });
  const rewrites: PlannedRewrite[] = [];
  for (const rewrite of plan.files) {
    const source = sources.find((s) => s.filename === rewrite.filename)!;
    const bytes = encoder.encode(rewrite.content);
    if (bytes.byteLength > ctx.settings.maxFileBytes)
      throw new ContentTooLargeError(ctx.settings.maxFileBytes);
    const links = await linksOfText(ctx, rewrite.content, rewrite.newFilename);
    rewrites.push({ rewrite, file: source.record, bytes, links });
  }
  return { rewrites };
}

/** The targets the plan resolves against, before the move, and the names a rewrite may write. */
async function loadTargets(
  ctx: MdStoreContext,
  projectId: string,
  linksBySource: ReadonlyMap<string, ReadonlyMap<number, LinkRecord>>,
  moved: ReadonlyMap<string, string>,
): Promise<LinkTargetRecord[]> {
  const filenames = new Set<string>();
  const stems = new Set<string>();
  const add = (keys: { filenames: string[]; stems: string[] }) => {
    for (const name of keys.filenames) filenames.add(name);
    for (const stem of keys.stems) stems.add(stem);
  };
  for (const [source, links] of linksBySource) {
    const list = [...links.values()];
    add(targetKeys(list, source));
    const after = moved.get(source);
    if (after !== undefined)
      add(
        targetKeys(
          list.map((link) => resolveLink(link, link.seq, after)),
          after,
        ),
      );
  }
  for (const [from, to] of moved)
    add({ filenames: [from, to, ...wikiExactNames(stemOf(to))], stems: [stemOf(to)] });
  const first = await ctx.records.listLinkTargets({
    projectId,
    filenames: [...filenames],
    stems: [...stems],
  });
  // A rewritten wiki link may name its target by its bare last segment: the names that could take it.
  const more = new Set<string>();
  for (const target of first)
    for (const name of wikiExactNames(stemOf(target.filename))) if (!filenames.has(name)) more.add(name);
  if (more.size === 0) return first;
  const second = await ctx.records.listLinkTargets({ projectId, filenames: [...more], stems: [] });
  const known = new Set(first.map((target) => target.fileId));
  return [...first, ...second.filter((target) => !known.has(target.fileId))];
}

async function readWhole(ctx: MdStoreContext, project: ProjectRecord, file: FileRecord): Promise<Uint8Array> {
  const content = await openContent(ctx, project, file, null, undefined);
  if (content === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** A linking file changed between the plan and the transaction: plan again. */
export class StaleRewritePlan extends Error {}

/** Where each rewritten content goes: inline in the transaction, or a blob written before it. */
export interface RewriteContents {
  /** fileId → the blob key its new content was written under (absent: inline). */
  readonly blobs: ReadonlyMap<string, string>;
}

/** The rewrites whose new content is kept in the blob store (above `inlineMaxBytes`). */
export const blobRewrites = (ctx: MdStoreContext, plan: MovePlan): PlannedRewrite[] =>
  plan.rewrites.filter((planned) => planned.bytes.byteLength > ctx.settings.inlineMaxBytes);

/**
 * Runs `work` in the move's transaction; rewritten contents above the inline bound are first written to
 * the blob store as staged resources (`withStagedResources`: all committed with the transaction, or
 * all removed again).
 */
export async function inMoveTransaction<R>(
  ctx: MdStoreContext,
  project: ProjectRecord,
  plan: MovePlan | null,
  work: (tx: RecordsTransaction, contents: RewriteContents) => Promise<R>,
): Promise<R> {
  const blobs = plan ? blobRewrites(ctx, plan) : [];
  if (blobs.length === 0) return ctx.records.withTransaction((tx) => work(tx, { blobs: new Map() }));
  const keys = new Map(blobs.map((planned) => [planned.file.id, newContentKey(ctx, planned.file.id)]));
  return withStagedResources(
    ctx,
    [...keys.values()].map((key) => ({ bucket: project.bucketName, key })),
    async (signal) => {
      for (const planned of blobs) {
        await ctx.blobs.put({
          bucket: project.bucketName,
          key: keys.get(planned.file.id)!,
          content: oneChunk(planned.bytes),
          maxBytes: ctx.settings.maxFileBytes,
          signal,
        });
      }
    },
    (tx) => work(tx, { blobs: keys }),
  );
}

async function* oneChunk(bytes: Uint8Array) {
  yield bytes;
}

/**
 * Inside the move's transaction, after the move itself: each planned rewrite becomes the linking
 * file's next revision (`edit`), with its search and link index, through `commitContentVersion`.
 */
export async function applyMoveRewrites(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: { principal: Principal; projectId: string; plan: MovePlan; contents: RewriteContents },
): Promise<BlobIntentRecord[]> {
  const doomed: BlobIntentRecord[] = [];
  for (const { rewrite, file, bytes, links } of o.plan.rewrites) {
    const locked = await lockActiveProject(tx, o.principal, o.projectId);
    const current = await tx.findFile({ projectId: locked.id, filename: rewrite.newFilename });
    if (!current || current.id !== file.id || current.sha256 !== file.sha256) throw new StaleRewritePlan();
    const blobKey = o.contents.blobs.get(current.id);
    const contentKey = blobKey ?? newContentKey(ctx, current.id);
    const hash = ctx.hashing.sha256();
    hash.update(bytes);
    if (blobKey === undefined) await tx.insertInlineContent({ projectId: locked.id, contentKey, bytes });
    const text = decoder.decode(bytes);
    const stored = {
      contentKey,
      inline: blobKey === undefined,
      sizeBytes: bytes.byteLength,
      sha256: hash.digestHex(),
      ...searchFields(text),
      links,
    };
    const committed = await commitContentVersion(ctx, tx, {
      project: locked,
      current,
      stored,
      change: 'edit',
    });
    doomed.push(...committed.doomed);
  }
  return doomed;
}

export const staleRewriteConflict = (): EditConflictError =>
  new EditConflictError([
    {
      loc: ['body', 'rewrite_links'],
      msg: 'Value error, files linking to this one kept changing during the move; try again',
      type: 'rewrite_conflict',
    },
  ]);
