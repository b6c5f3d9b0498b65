import { REWRITE_LIMITS } from '../../defaults/rewrites.js';
import {
  ContentTooLargeError,
  EditConflictError,
  isMdStoreError,
  OperationFailedError,
} from '../../errors.js';
import { resolveLink } from '../../links/entry.js';
import { stemOf, wikiExactNames } from '../../links/paths.js';
import { type AttachmentTarget, type Resolution, TargetIndex, targetKeys } from '../../links/resolve.js';
import { type FileRewrite, planLinkRewrites, type RewriteFile } from '../../links/rewrite.js';
import { giveTurn } from '../../markdown/work-budget.js';
import type { FileRecord, LinkRecord, LinkTargetRecord, ProjectRecord } from '../../model/records.js';
import { type ChangesetPlan, type PlannedFile, StalePlan, utf8Length } from '../changesets/plan.js';
import type { MdStoreContext } from '../context.js';
import { readText } from '../files/parts.js';
import { attachmentTargets } from './targets.js';

/**
 * Move with `rewrite_links` (extensions §9): the rewrites are planned before any transaction (the
 * linking files' contents are read and rewritten), then the move and every rewrite become ONE changeset
 * (`moveChangesetPlan`) committed by the changeset's commit: one revision per touched file carrying the
 * changeset's id, the new contents stored by its rules (inline, or staged blobs), all or nothing. A
 * linking file written between the plan and the commit makes the commit refuse (`StalePlan`); the move
 * plans again (`REWRITE_ATTEMPTS`), then answers 409.
 *
 * What moves is a file or an attachment (extensions §12: links to attachments are rewritten on moves
 * like links to files); an attachment has no links of its own, and the changeset then holds only the
 * linking files (the attachment's record moves in the same transaction: `alsoInTransaction`).
 */

export const REWRITE_ATTEMPTS = 3;

/** At most this many code points of a rewrite's changeset message (a changeset's own bound). */
const MESSAGE_MAX = 1000;

/**
 * The message of a move's changeset with `rewrite_links`: each revision it writes says it is a link
 * rewrite, and of which move (history, the console's "Change" column). Cut to a changeset message's bound.
 */
export function rewriteMessage(from: string, to: string): string {
  return [...`Links rewritten: ${from} moved to ${to}`].slice(0, MESSAGE_MAX).join('');
}

export interface PlannedRewrite {
  readonly rewrite: FileRewrite;
  /** The linking file as it was read (its revision is checked again in the transaction). */
  readonly file: FileRecord;
}

export interface MovePlan {
  readonly rewrites: PlannedRewrite[];
}

/** What a move moves: a file (its own relative links move with it), or an attachment, by its path. */
export type MoveSubject =
  | { readonly kind: 'file'; readonly file: FileRecord }
  | { readonly kind: 'attachment'; readonly path: string };

const nameOf = (subject: MoveSubject): string =>
  subject.kind === 'file' ? subject.file.filename : subject.path;

/** The file or attachment a link resolves to, by its name or path; null when it resolves to neither. */
const resolvedName = (resolution: Resolution): string | null =>
  resolution.target?.filename ?? resolution.attachment?.path ?? null;

/** The names a file is linked by: its filename, and without its extension (wiki links). */
const namesOf = (filename: string): string[] => {
  const bare = filename.replace(/\.mdx?$/, '');
  return bare === filename ? [filename] : [filename, bare];
};

/**
 * Plans the rewrites of moving `subject` (a file or an attachment) to `to`: which files change, and their
 * new contents. Only files the key `reaches` are rewritten (extensions §14: a key scoped to folders
 * changes nothing outside them; links from outside keep their text).
 */
export async function planMoveRewrites(
  ctx: MdStoreContext,
  project: ProjectRecord,
  subject: MoveSubject,
  to: string,
  reaches: (filename: string) => boolean = () => true,
): Promise<MovePlan> {
  const { records } = ctx;
  const from = nameOf(subject);
  const file = subject.kind === 'file' ? subject.file : null;
  const moved = new Map([[from, to]]);
  // The links to look at, read with the bound's LIMIT (one more, to know it is passed): never all.
  const bounded = { limit: REWRITE_LIMITS.maxLinks + 1 };
  const candidates = [
    ...(await records.listLinksTo({
      projectId: project.id,
      paths: namesOf(from),
      stems: [stemOf(from)],
      ...bounded,
    })),
    ...(await records.listLinksTo({
      projectId: project.id,
      paths: namesOf(to),
      stems: [stemOf(to)],
      ...bounded,
    })),
  ];
  const own = file ? ((await records.findFileLinks({ fileId: file.id, ...bounded }))?.links ?? []) : [];
  if (candidates.length + own.length > REWRITE_LIMITS.maxLinks)
    throw rewriteRefusal(`more than ${REWRITE_LIMITS.maxLinks} links to look at`);
  const linksBySource = new Map<string, Map<number, LinkRecord>>(
    file ? [[file.filename, new Map(own.map((l) => [l.seq, l]))]] : [],
  );
  for (const { source, link } of candidates) {
    if (!reaches(source)) continue;
    const links = linksBySource.get(source) ?? new Map<number, LinkRecord>();
    links.set(link.seq, link);
    linksBySource.set(source, links);
  }
  const { targets, attachments } = await loadTargets(ctx, project.id, linksBySource, moved);
  const before = new TargetIndex(targets, attachments);
  const after = new TargetIndex(
    targets.map((target) =>
      target.fileId === file?.id ? { ...target, filename: to, stem: stemOf(to) } : target,
    ),
    attachments.map((attachment) =>
      file === null && attachment.path === from ? { ...attachment, path: to } : attachment,
    ),
  );
  // The files to rewrite, by their records (one read), and their bytes judged before any is read.
  const others = [...linksBySource.keys()].filter((name) => name !== file?.filename);
  const found = await records.findFiles({ projectId: project.id, filenames: others });
  const recordOf = new Map<string, FileRecord>([
    ...(file ? [[file.filename, file] as const] : []),
    ...found.map((f) => [f.filename, f] as const),
  ]);
  let bytes = 0;
  for (const name of linksBySource.keys()) bytes += recordOf.get(name)?.sizeBytes ?? 0;
  const maxBytes = ctx.settings.maxFileBytes * REWRITE_LIMITS.bytesFactor;
  if (bytes > maxBytes) throw rewriteRefusal(`more than ${maxBytes} bytes of files to rewrite`);
  const rules = {
    moved,
    before: (link: LinkRecord, source: string) => resolvedName(before.resolve(link, source)),
    after: (link: LinkRecord, source: string) => resolvedName(after.resolve(link, source)),
  };
  // One file at a time: read, planned, its content dropped; a turn of the event loop every
  // `linksPerTurn` links, so that other requests run between the steps.
  const rewrites: PlannedRewrite[] = [];
  let sinceTurn = 0;
  for (const [name, links] of linksBySource) {
    const record = recordOf.get(name);
    if (!record) continue;
    const content = await readText(ctx, project, record);
    // The version read was replaced and removed meanwhile: plan again on the newer files.
    if (content === null) throw new StalePlan();
    const source: RewriteFile = { filename: name, content, links: [...links.values()] };
    for (const rewrite of planLinkRewrites({ ...rules, files: [source] }).files) {
      // The commit finds the new contents' links and stores them (`commitChangeset`); the size is judged here.
      if (utf8Length(rewrite.content) > ctx.settings.maxFileBytes)
        throw new ContentTooLargeError(ctx.settings.maxFileBytes);
      rewrites.push({ rewrite, file: record });
    }
    sinceTurn += links.size;
    if (sinceTurn >= REWRITE_LIMITS.linksPerTurn) {
      sinceTurn = 0;
      await giveTurn();
    }
  }
  return { rewrites };
}

/** A move whose rewrites pass `REWRITE_LIMITS`: 409 `work_budget`, nothing read or written. */
const rewriteRefusal = (what: string): EditConflictError =>
  new EditConflictError([
    {
      loc: ['body', 'rewrite_links'],
      msg:
        `Too much work for one move with rewrite_links: ${what} (nothing was changed); ` +
        'move without rewrite_links, or rewrite the links in smaller changesets first',
      type: 'work_budget',
    },
  ]);

const lastSegment = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * The targets the plan resolves against, before the move, and the names a rewrite may write: files, and
 * the attachments the links name by their paths or names (extensions §12).
 */
async function loadTargets(
  ctx: MdStoreContext,
  projectId: string,
  linksBySource: ReadonlyMap<string, ReadonlyMap<number, LinkRecord>>,
  moved: ReadonlyMap<string, string>,
): Promise<{ targets: LinkTargetRecord[]; attachments: AttachmentTarget[] }> {
  const filenames = new Set<string>();
  const stems = new Set<string>();
  const paths = new Set<string>();
  const names = new Set<string>();
  const add = (keys: {
    filenames: string[];
    stems: string[];
    attachments?: string[];
    attachmentNames?: string[];
  }) => {
    for (const name of keys.filenames) filenames.add(name);
    for (const stem of keys.stems) stems.add(stem);
    for (const path of keys.attachments ?? []) paths.add(path);
    for (const name of keys.attachmentNames ?? []) names.add(name);
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
    add({
      filenames: [from, to, ...wikiExactNames(stemOf(to))],
      stems: [stemOf(to)],
      attachments: [from, to],
      // The attachments that share the new name: a bare `![[name]]` still names the moved one only alone.
      attachmentNames: [lastSegment(to)],
    });
  const [first, attachments] = await Promise.all([
    ctx.records.listLinkTargets({ projectId, filenames: [...filenames], stems: [...stems] }),
    attachmentTargets(ctx.records, projectId, { attachments: [...paths], attachmentNames: [...names] }),
  ]);
  // A rewritten wiki link may name its target by its bare last segment: the names that could take it.
  const more = new Set<string>();
  for (const target of first)
    for (const name of wikiExactNames(stemOf(target.filename))) if (!filenames.has(name)) more.add(name);
  if (more.size === 0) return { targets: first, attachments };
  const second = await ctx.records.listLinkTargets({ projectId, filenames: [...more], stems: [] });
  const known = new Set(first.map((target) => target.fileId));
  return { targets: [...first, ...second.filter((target) => !known.has(target.fileId))], attachments };
}

/**
 * The move and its rewrites as a changeset plan (extensions §9): the moved file under its new name (with
 * its rewritten content when its own links changed), and each linking file with its rewritten content,
 * every one an `edit`. What the plan read is what the commit checks under the project lock (`seen`:
 * the files as read, and the new name free), so a file written in between makes it plan again. An
 * attachment's move (extensions §12) plans the linking files only (`moved` null): its record is the
 * caller's to check and move in the commit's transaction.
 */
export function moveChangesetPlan(
  project: ProjectRecord,
  subject: MoveSubject & { kind: 'file' },
  to: string,
  plan: MovePlan,
): { changeset: ChangesetPlan; moved: PlannedFile };
export function moveChangesetPlan(
  project: ProjectRecord,
  subject: MoveSubject,
  to: string,
  plan: MovePlan,
): { changeset: ChangesetPlan; moved: PlannedFile | null };
export function moveChangesetPlan(
  project: ProjectRecord,
  subject: MoveSubject,
  to: string,
  plan: MovePlan,
): { changeset: ChangesetPlan; moved: PlannedFile | null } {
  const planned = (origin: FileRecord, filename: string): PlannedFile => ({
    origin,
    fileId: origin.id,
    filename,
    text: null,
    metadataJson: origin.metadataJson,
    kind: 'move',
    deleted: false,
  });
  const file = subject.kind === 'file' ? subject.file : null;
  const moved = file ? planned(file, to) : null;
  const files = moved ? [moved] : [];
  const seen = new Map<string, FileRecord | null>(
    file
      ? [
          [file.filename, file],
          [to, null],
        ]
      : [],
  );
  for (const { rewrite, file: source } of plan.rewrites) {
    const rewritten = moved && source.id === moved.fileId ? moved : planned(source, source.filename);
    rewritten.text = rewrite.content;
    rewritten.kind = 'edit';
    if (rewritten === moved) continue;
    files.push(rewritten);
    seen.set(source.filename, source);
  }
  const touched = files.map((f) => ({ file: f, filename: f.filename }));
  return { changeset: { project, files, touched, seen }, moved };
}

/** The answer's `rewritten`: each rewritten file (by its name after the move) and its links, by name. */
export const rewrittenOf = (plan: MovePlan): Array<{ filename: string; links: number }> =>
  plan.rewrites
    .map(({ rewrite }) => ({ filename: rewrite.newFilename, links: rewrite.links }))
    .sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));

/**
 * A move with `rewrite_links`, attempt by attempt (`attempt` plans and commits once): planned again when
 * a file changed before the commit (`StalePlan`), at most `REWRITE_ATTEMPTS` times, then 409.
 */
export async function withReplanning<T>(attempt: (n: number) => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof StalePlan)) throw moveError(error);
      if (n >= REWRITE_ATTEMPTS) throw staleRewriteConflict();
    }
  }
}

/** A changeset operation's error (e.g. the storage cap, at `body.operations`) answered as the move's own. */
const moveError = (error: unknown): unknown =>
  error instanceof OperationFailedError && isMdStoreError(error.cause) ? error.cause : error;

export const staleRewriteConflict = (): EditConflictError =>
  new EditConflictError([
    {
      loc: ['body', 'rewrite_links'],
      msg: 'Value error, files linking to this one kept changing during the move; try again',
      type: 'rewrite_conflict',
    },
  ]);
