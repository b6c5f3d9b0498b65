import * as v from 'valibot';
import {
  InvalidInputError,
  isMdStoreError,
  mdStoreError,
  RateLimitedError,
  ShareNotFoundError,
} from '../errors.js';
import type { RenderLinks } from '../markdown/render/links.js';
import type { ApiKeyRecord, ShareRecord } from '../model/records.js';
import { issueAt } from '../validation/issues.js';
import { UuidSchema } from '../validation/schemas.js';
import { parseCreateShareBody, SHARE_LIMITS } from '../validation/shares.js';
import { loadOwnedProject } from './access.js';
import { type AttachmentDownload, type ReadAttachmentInput, readAttachment } from './attachments/read.js';
import { constantTimeEqual, type Principal } from './authentication.js';
import type { MdStoreContext } from './context.js';
import { deferred } from './deferred-body.js';
import { findFileOr404 } from './files/shared.js';
import { linksToAttachment } from './links/targets.js';
import { type FileView, toFileView } from './views.js';

/**
 * Share links (extensions §11): an admin key shares one file, or every file under a folder, of a
 * project; whoever holds the link's token reads them without a key until it expires or is revoked.
 * The token (the runtime's secret: 256 random bits on the server) is shown once, in the link; only its
 * hash is kept, and it is compared in constant time. Shares are never cached: a revocation holds on the
 * next request, on every instance sharing the store.
 */

/** A share as listed: never its token. */
export interface ShareView {
  readonly shareId: string;
  readonly projectId: string;
  readonly filename: string | null;
  readonly prefix: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** A share right after its creation: the only time its token is known. */
export interface CreatedShare extends ShareView {
  readonly token: string;
}

const toShareView = (share: ShareRecord): ShareView => ({
  shareId: share.id,
  projectId: share.projectId,
  filename: share.filename,
  prefix: share.prefix,
  createdAt: share.createdAt,
  expiresAt: share.expiresAt,
});

const isLive = (share: ShareRecord, now: number): boolean =>
  share.revokedAt === null && share.expiresAt > now;

/**
 * Whether the key that made a share still stands (issue 34, finding 10): a share never outlives its
 * creator, so one made by a key since revoked (or removed) answers as a revoked share does. A share
 * made before creators were recorded (`createdBy: null`) lives out its own expiry.
 */
const creatorStands = (share: ShareRecord, key: ApiKeyRecord | null | undefined): boolean =>
  share.createdBy === null || (!!key && key.accountId === share.accountId && key.revokedAt === null);

/**
 * A share's expiry: the one asked for, but never later than the creating key's own (a key expiring in
 * 30 s cannot make a link that works for 30 days).
 */
const shareExpiry = (principal: Principal, at: number, expiresInSeconds: number): number =>
  Math.min(at + expiresInSeconds * 1000, principal.expiresAt ?? Number.POSITIVE_INFINITY);

/** `POST …/shares`: a file that exists, or a folder (which may be empty); the token shown once. */
export async function createShare(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; body: unknown },
): Promise<CreatedShare> {
  const body = deferred<unknown>(input.body);
  body.check();
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const fields = parseCreateShareBody(await body.read());
  if (fields.filename !== null) await findFileOr404(ctx.records, project.id, fields.filename);
  const at = ctx.clock.now();
  // Issue 34: a bounded number of live shares per project, so that their listing is bounded.
  const max = SHARE_LIMITS.maxLivePerProject;
  if ((await ctx.records.listShares({ projectId: project.id, liveAt: at, limit: max })).length >= max) {
    throw mdStoreError('COUNT_LIMIT_REACHED', { what: 'shares', max });
  }
  const token = ctx.secrets.generate();
  const share: ShareRecord = {
    id: ctx.ids.uuid(),
    accountId: project.accountId,
    projectId: project.id,
    filename: fields.filename,
    prefix: fields.prefix,
    tokenHash: await ctx.secrets.hash(token),
    createdBy: input.principal.keyId,
    createdAt: at,
    expiresAt: shareExpiry(input.principal, at, fields.expiresInSeconds),
    revokedAt: null,
  };
  await ctx.records.withTransaction((tx) => tx.insertShare({ share }));
  return { ...toShareView(share), token };
}

/**
 * `GET …/shares`: the project's shares that still work (not revoked, not expired, their creating key
 * not revoked), oldest first.
 */
export async function listShares(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string },
): Promise<ShareView[]> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const now = ctx.clock.now();
  const live = (
    await ctx.records.listShares({
      projectId: project.id,
      liveAt: now,
      limit: SHARE_LIMITS.maxLivePerProject,
    })
  ).filter((s) => isLive(s, now));
  // Only the creators of these shares are read (issue 34), each once: one bounded read of at most as
  // many keys as there are distinct creators, never the account's keys.
  const creators = [...new Set(live.flatMap((share) => (share.createdBy === null ? [] : [share.createdBy])))];
  if (creators.length === 0) return live.map(toShareView);
  const keys = new Map((await ctx.records.findApiKeys({ keyIds: creators })).map((key) => [key.id, key]));
  return live
    .filter((share) => creatorStands(share, share.createdBy === null ? null : keys.get(share.createdBy)))
    .map(toShareView);
}

/** `DELETE …/shares/{id}`: the link stops working at once; unknown, revoked or another project's: 404. */
export async function revokeShare(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; shareId: string },
): Promise<void> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const parsed = v.safeParse(UuidSchema, input.shareId);
  if (!parsed.success) throw new InvalidInputError([issueAt(['path', 'share_id'], 'uuid')]);
  const share = await ctx.records.findShareById({ shareId: parsed.output });
  if (!share || share.projectId !== project.id || share.revokedAt !== null) throw new ShareNotFoundError();
  const revokedAt = ctx.clock.now();
  if (!(await ctx.records.withTransaction((tx) => tx.revokeShare({ shareId: share.id, revokedAt })))) {
    throw new ShareNotFoundError();
  }
}

/** The most files a folder share's index page lists. */
export const SHARE_INDEX_LIMIT = 1000;

/**
 * What a share link opens (`GET /s/{token}[/{filename}]`), with the principal its reads run as: the
 * share's account, `read` only, confined to its project, expiring with it.
 * - `file`: one file to show, its links made share links (`base` + filename, within the share);
 * - `index`: a folder share's files, in filename order, at most `SHARE_INDEX_LIMIT` (`more` when there
 *   are others).
 * A missing, expired or revoked token, a project gone, or a file outside the share: `SHARE_NOT_FOUND`.
 */
export type OpenedShare =
  | {
      readonly kind: 'file';
      readonly principal: Principal;
      readonly projectId: string;
      readonly filename: string;
      readonly links: RenderLinks;
    }
  | {
      readonly kind: 'index';
      readonly principal: Principal;
      readonly prefix: string;
      readonly files: FileView[];
      readonly more: boolean;
    };

/** Longer than any token the runtime makes: refused before hashing. */
const MAX_TOKEN_LENGTH = 256;

export async function openShare(
  ctx: MdStoreContext,
  input: { token: string; filename: string | null; base: string },
): Promise<OpenedShare> {
  if (input.token.length === 0 || input.token.length > MAX_TOKEN_LENGTH) throw new ShareNotFoundError();
  const tokenHash = await ctx.secrets.hash(input.token);
  const share = await ctx.records.findShareByHash({ tokenHash });
  if (!share || !constantTimeEqual(share.tokenHash, tokenHash) || !isLive(share, ctx.clock.now())) {
    throw new ShareNotFoundError();
  }
  const creator =
    share.createdBy === null ? null : await ctx.records.findApiKeyById({ keyId: share.createdBy });
  if (!creatorStands(share, creator)) throw new ShareNotFoundError();
  const principal: Principal = {
    accountId: share.accountId,
    keyId: share.id,
    tier: 'standard',
    role: 'read',
    projectIds: [share.projectId],
    // The share's own file or folder is checked below, by the share's rule.
    pathPrefixes: null,
    expiresAt: share.expiresAt,
  };
  const project = await notFoundAsShare(() => loadOwnedProject(ctx.records, principal, share.projectId));
  const filename = input.filename ?? share.filename;
  if (filename === null) {
    const page = await ctx.records.listFilePage({
      projectId: project.id,
      sort: 'filename',
      descending: false,
      prefix: share.prefix!,
      limit: SHARE_INDEX_LIMIT + 1,
    });
    const files = page.slice(0, SHARE_INDEX_LIMIT).map((file) => toFileView(file, project, ctx.blobs.scheme));
    return { kind: 'index', principal, prefix: share.prefix!, files, more: page.length > SHARE_INDEX_LIMIT };
  }
  const shared = share.prefix !== null ? filename.startsWith(share.prefix) : filename === share.filename;
  if (!shared) throw new ShareNotFoundError();
  return {
    kind: 'file',
    principal,
    projectId: project.id,
    filename,
    links: { kind: 'share', base: input.base, prefix: share.prefix },
  };
}

/**
 * `GET /s/{token}/a/{path}` (extensions §12): an attachment a shared note shows or links to, read as the
 * share's principal with an attachment read's headers (its type, `nosniff`, the sandbox of a type that
 * could run script). The note is the one-file share's file, or for a folder share its file named by
 * `from` (its page's images name it: `?from=`). The note's links, as the link index has them for its
 * current version (the links its page shows, found by the same rule, at the cost of a few index reads
 * and no parse), must name the attachment: anything else of the project — another attachment, one
 * another note shows — is `SHARE_NOT_FOUND`, as a missing, expired or revoked token is.
 */
export async function readShareAttachment(
  ctx: MdStoreContext,
  input: Omit<ReadAttachmentInput, 'principal' | 'projectId'> & {
    token: string;
    from: string | null;
    base: string;
  },
): Promise<AttachmentDownload> {
  const { token, from, base, ...read } = input;
  const opened = await openShare(ctx, { token, filename: from, base });
  if (opened.kind !== 'file') throw new ShareNotFoundError();
  const { principal, projectId } = opened;
  const note = await notFoundAsShare(() => findFileOr404(ctx.records, projectId, opened.filename));
  if (!(await linksToAttachment(ctx.records, note, input.path))) throw new ShareNotFoundError();
  return notFoundAsShare(() => readAttachment(ctx, { ...read, principal, projectId }));
}

/** A project, file or attachment that is gone reads as the share being gone: a link reveals nothing else. */
export async function notFoundAsShare<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (
      isMdStoreError(error, 'PROJECT_NOT_FOUND') ||
      isMdStoreError(error, 'FILE_NOT_FOUND') ||
      isMdStoreError(error, 'ATTACHMENT_NOT_FOUND')
    ) {
      throw new ShareNotFoundError();
    }
    throw error;
  }
}

/** The window of the share pages' limit per client address. */
export const SHARE_RATE_WINDOW_MS = 60_000;

/**
 * Counts one share page against its client address's budget (`shareRateLimit` a minute, shared by the
 * instances on one store as the key budgets are); past it, 429 with `Retry-After`. Counted before the
 * token is looked at, so guessing tokens costs the same budget.
 */
export async function limitSharePages(ctx: MdStoreContext, input: { address: string }): Promise<void> {
  const now = ctx.clock.now();
  const decision = await ctx.rateLimiter.consume({
    key: `share-page:${input.address}`,
    limit: ctx.settings.shareRateLimit,
    windowMs: SHARE_RATE_WINDOW_MS,
    now,
  });
  if (!decision.allowed) throw new RateLimitedError(Math.max(1, Math.ceil((decision.resetAt - now) / 1000)));
}
