import type { AuditEntryInput, MdStore, Principal } from '@mdstore/core';
import type { NextFunction, Request, Response } from 'express';
import type { RouteDescription } from './api/route.js';
import { pathOf } from './observe.js';
import { requestIdOf } from './request-id.js';
import type { HttpLogger } from './routes/context.js';

/**
 * The audit log's writer (extensions §8): entries are queued in process and written in batches, off the
 * requests (never in a request's transaction): every `intervalMs`, or at once when `maxBatch` are
 * waiting, and on shutdown (`close`). What a crash can lose: the entries of the last interval.
 */
export const AUDIT_QUEUE = {
  intervalMs: 1_000,
  maxBatch: 200,
  /** Beyond this many unwritten entries (the store is failing), the oldest are dropped and logged. */
  maxQueued: 50_000,
} as const;

export class AuditQueue {
  private pending: AuditEntryInput[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly store: Pick<MdStore, 'audit'>,
    private readonly logger: HttpLogger,
    readonly now: () => number = Date.now,
    private readonly limits: typeof AUDIT_QUEUE = AUDIT_QUEUE,
  ) {}

  push(entry: AuditEntryInput): void {
    if (this.pending.length >= this.limits.maxQueued) {
      this.pending.shift();
      this.logger.warn('audit queue full: the oldest unwritten entry was dropped', {});
    }
    this.pending.push(entry);
    if (this.closed || this.pending.length >= this.limits.maxBatch) {
      void this.flush();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.limits.intervalMs);
      this.timer.unref?.();
    }
  }

  /** Writes what is queued (one transaction per batch); resolves when it and earlier writes are done. */
  flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.limits.maxBatch);
      this.writing = this.writing.then(() =>
        this.store.audit.write(batch).catch((error: unknown) => {
          this.logger.error('writing audit entries failed; they are lost', {
            entries: batch.length,
            error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
          });
        }),
      );
    }
    return this.writing;
  }

  /** Flushes and writes every later entry at once (shutdown: requests still finishing are kept). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}

/** The statuses of refusals that are recorded whatever the route (extensions §8). */
const REFUSALS = new Set([401, 403, 412, 428]);

/**
 * Whether a finished `/api` request is recorded: every change (a route that is not a `GET` and needs
 * more than `read`: searches are reads; or a request its handler marked with `auditChange`) that succeeded, every refusal (`401`, `403`, `412`, `428`, and
 * a `404` for a project: another account's, outside the key's scope, or gone; not a missing file), and
 * every operation on keys, webhooks and share links (extensions §7, §8, §11), whatever its answer.
 */
export function isAudited(
  route: Pick<RouteDescription, 'method' | 'path' | 'role'> | undefined,
  status: number,
  errorCode?: unknown,
  change = false,
): boolean {
  if (REFUSALS.has(status)) return true;
  if (change && status >= 200 && status < 300) return true;
  if (route === undefined) return false;
  if (
    route.path.startsWith('/api/keys') ||
    route.path.startsWith('/api/webhooks') ||
    route.path.includes('/shares')
  )
    return true;
  if (status === 404) return errorCode === 'PROJECT_NOT_FOUND';
  const changes = route.method !== 'GET' && route.role !== null && route.role !== 'read';
  return changes && status >= 200 && status < 300;
}

/** The value of `:name` in `path` for the template, percent-decoded, or null. */
function parameterOf(template: string, path: string, name: string): string | null {
  const index = template.split('/').indexOf(`:${name}`);
  if (index < 0) return null;
  const raw = path.split('/')[index];
  if (raw === undefined) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Names the file a request wrote when its path does not (an upload: the name comes from the multipart
 * form), for its audit entry.
 */
export function auditFilename(res: Response, filename: string): void {
  res.locals.auditFilename = filename;
}

/**
 * Marks a request as a change for the audit log when its route's role does not say so: the memory
 * route (extensions §14) asks for `read` and changes files for every command but `view`.
 */
export function auditChange(res: Response): void {
  res.locals.auditChange = true;
}

/** The file of the audit entry: the path's `:filename`, else the one the handler named. */
function auditedFilenameOf(template: string, path: string, res: Response): string | null {
  const named = res.locals.auditFilename;
  return parameterOf(template, path, 'filename') ?? (typeof named === 'string' ? named : null);
}

/**
 * Records the `/api` requests `isAudited` picks, once their answer is sent: the key (null without a
 * valid one), the route template, the project and file named in the path (or the file an upload's form
 * named, `auditFilename`), the status, the request id
 * and the client address. Never the key, a body, content or metadata.
 */
export function auditRequests(
  queue: AuditQueue,
  routes: readonly RouteDescription[],
  routeOf: (req: Request) => string,
) {
  const byTemplate = new Map<string, Pick<RouteDescription, 'method' | 'path' | 'role'>>(
    routes.map((route) => [`${route.method} ${route.path}`, route]),
  );
  return (req: Request, res: Response, next: NextFunction): void => {
    const at = queue.now();
    res.on('finish', () => {
      const template = routeOf(req);
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const route = byTemplate.get(`${method} ${template}`);
      if (!isAudited(route, res.statusCode, res.locals.errorCode, res.locals.auditChange === true)) return;
      const principal = res.locals.principal as Principal | undefined;
      const path = pathOf(req.originalUrl);
      queue.push({
        at,
        accountId: principal?.accountId ?? null,
        keyId: principal?.keyId ?? null,
        action: `${req.method} ${template}`,
        projectId: parameterOf(template, path, 'project_id'),
        filename: auditedFilenameOf(template, path, res),
        status: res.statusCode,
        requestId: requestIdOf(res) ?? null,
        ip: req.ip ?? null,
      });
    });
    next();
  };
}
