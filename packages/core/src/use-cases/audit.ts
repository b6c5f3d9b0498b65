import { DAY_MS } from '../defaults/trash.js';
import type { ValidationIssue } from '../errors.js';
import { InvalidInputError, ProjectNotFoundError } from '../errors.js';
import type { AuditPosition, AuditRecord } from '../model/records.js';
import type { AuditQuery } from '../ports/records.js';
import { parseInstant } from '../search/filter/dates.js';
import { inKeyScope } from './access.js';
import type { Principal } from './authentication.js';
import type { MdStoreContext } from './context.js';

/** Extensions §8: the audit log's bounds, defined once. */
export const AUDIT_LIMITS = {
  defaultLimit: 100,
  maxLimit: 1000,
  /** Entries removed per statement when old ones expire. */
  expiryBatch: 1000,
} as const;

/** An entry as the edge reports it; the core gives it its id. */
export type AuditEntryInput = Omit<AuditRecord, 'id'>;

/** Writes a batch of entries in one transaction (the server's queue calls it, off the requests). */
export async function writeAuditEntries(
  ctx: MdStoreContext,
  entries: readonly AuditEntryInput[],
): Promise<void> {
  if (entries.length === 0) return;
  const records = entries.map((entry) => ({ id: ctx.ids.uuid(), ...entry }));
  await ctx.records.withTransaction((tx) => tx.insertAuditEntries({ entries: records }));
}

/** The query parameters of `GET /api/audit`, as given. */
export type AuditParams = Partial<
  Record<'limit' | 'cursor' | 'since' | 'until' | 'key_id' | 'project_id' | 'status', string>
>;

export interface AuditPage {
  readonly entries: AuditRecord[];
  /** The next page's cursor, or null on the last page. */
  readonly nextCursor: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const issue = (name: string, msg: string, type = 'value_error'): ValidationIssue => ({
  loc: ['query', name],
  msg,
  type,
});

export const encodeCursor = (position: AuditPosition): string =>
  btoa(JSON.stringify([position.at, position.id]))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

export function decodeCursor(cursor: string): AuditPosition | undefined {
  try {
    const [at, id] = JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/'))) as unknown[];
    return Number.isSafeInteger(at) && typeof id === 'string' && UUID.test(id)
      ? { at: at as number, id }
      : undefined;
  } catch {
    return undefined;
  }
}

export const integerIn = (text: string, min: number, max: number): number | undefined => {
  if (!/^\d{1,9}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
};

/** Every parameter checked, every problem reported at once (`422` at `["query", NAME]`). */
function parseAuditParams(params: AuditParams) {
  const issues: ValidationIssue[] = [];
  const query: { limit: number } & Omit<AuditQuery, 'accountId' | 'limit' | 'projectIds'> & {
      projectId?: string;
    } = { limit: AUDIT_LIMITS.defaultLimit };
  if (params.limit !== undefined) {
    const limit = integerIn(params.limit, 1, AUDIT_LIMITS.maxLimit);
    if (limit === undefined)
      issues.push(issue('limit', `Input should be an integer from 1 to ${AUDIT_LIMITS.maxLimit}`));
    else query.limit = limit;
  }
  if (params.cursor !== undefined) {
    const after = decodeCursor(params.cursor);
    if (after === undefined) issues.push(issue('cursor', 'Value error, not a cursor of this list'));
    else Object.assign(query, { after });
  }
  for (const name of ['since', 'until'] as const) {
    const text = params[name];
    if (text === undefined) continue;
    const at = parseInstant(text);
    if (at === undefined) issues.push(issue(name, 'Input should be a valid datetime (ISO 8601)'));
    else Object.assign(query, { [name]: Math.ceil(at) });
  }
  for (const [name, field] of [
    ['key_id', 'keyId'],
    ['project_id', 'projectId'],
  ] as const) {
    const text = params[name];
    if (text === undefined) continue;
    if (!UUID.test(text)) issues.push(issue(name, 'Input should be a valid UUID', 'uuid_parsing'));
    else Object.assign(query, { [field]: text.toLowerCase() });
  }
  if (params.status !== undefined) {
    const status = integerIn(params.status, 100, 599);
    if (status === undefined) issues.push(issue('status', 'Input should be an HTTP status (100 to 599)'));
    else Object.assign(query, { status });
  }
  if (issues.length > 0) throw new InvalidInputError(issues);
  return query;
}

/**
 * `GET /api/audit`: the account's entries, newest first, with the filters given. A key scoped to some
 * projects sees only the entries of those projects (another project is `404`, as everywhere).
 */
export async function listAudit(
  ctx: MdStoreContext,
  input: { principal: Principal; params?: AuditParams },
): Promise<AuditPage> {
  const { projectId, ...query } = parseAuditParams(input.params ?? {});
  const { principal } = input;
  if (projectId !== undefined && !inKeyScope(principal, projectId)) throw new ProjectNotFoundError(projectId);
  const projectIds = projectId !== undefined ? [projectId] : (principal.projectIds ?? undefined);
  const rows = await ctx.records.listAuditEntries({
    ...query,
    accountId: principal.accountId,
    limit: query.limit + 1,
    ...(projectIds !== undefined && { projectIds }),
  });
  const entries = rows.slice(0, query.limit);
  const last = entries.at(-1);
  return {
    entries,
    nextCursor: rows.length > query.limit && last ? encodeCursor({ at: last.at, id: last.id }) : null,
  };
}

/** Removes the entries older than `auditRetentionDays`, in batches; returns how many. */
export async function expireAudit(ctx: MdStoreContext): Promise<number> {
  const before = ctx.clock.now() - ctx.settings.auditRetentionDays * DAY_MS;
  let removed = 0;
  for (;;) {
    const batch = await ctx.records.withTransaction((tx) =>
      tx.deleteAuditEntriesBefore({ before, limit: AUDIT_LIMITS.expiryBatch }),
    );
    removed += batch;
    if (batch < AUDIT_LIMITS.expiryBatch) return removed;
  }
}
