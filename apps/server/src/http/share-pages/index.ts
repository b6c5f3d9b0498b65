import type { MdStore, OpenedShare } from '@mdstore/core';
import { hasAllowedExtension, notFoundAsShare } from '@mdstore/core';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { methodNotAllowed } from '../api/mount.js';
import { singleQueryParams } from '../query.js';
import { sendAttachment } from '../routes/attachments.js';
import { signalOf } from '../routes/context.js';
import { sendDownload } from '../routes/download.js';
import type { RouteDeps } from '../routes/index.js';
import { renderedBody } from '../routes/rendered.js';
import { conditionsOf, headerValue, setFileValidators } from '../validators.js';
import { filePage, indexPage, SHARE_STYLESHEET } from './page.js';
import { SHARE_CSS } from './style.js';

/**
 * Share pages (extensions §11), no key: `GET /s/{token}` (the shared file rendered as a page, or a
 * folder share's index) and `GET /s/{token}/{filename}` (a file of a folder share); `?raw=1` gives the
 * bytes as a download does (`ETag`, conditional requests, ranges). `GET /s/{token}/a/{path}` (extensions
 * §12) is an attachment the shared note shows or links to (a folder share's note named by `?from=`),
 * with an attachment read's headers; a path ending in `.md`/`.mdx` there is a folder share's file.
 * Every page counts against its client address's budget first (`MDSTORE_SHARE_RATE_LIMIT` a minute;
 * the address as the server's `trust proxy` rule gives it), then the token is looked up (hashed, never cached: a revocation holds
 * on the next request, on every instance). Anything not shared — a missing, expired or revoked token,
 * a project gone, a file outside the share — is the same 404.
 *
 * Pages carry a CSP that allows nothing but the server's stylesheet and images from the server or
 * `data:`, `X-Robots-Tag: noindex`, and no `Referer` leaves them (the token is in their URL).
 */

export const SHARE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:";

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': SHARE_CSP,
  'X-Robots-Tag': 'noindex',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

export function sharePageRoutes(deps: RouteDeps): Router {
  const { store } = deps;
  const router = express.Router({ caseSensitive: true, strict: false });
  router.get(SHARE_STYLESHEET, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css; charset=utf-8').send(SHARE_CSS);
  });
  router.all(SHARE_STYLESHEET, methodNotAllowed(['GET', 'HEAD']));
  const handle = (filenameOf: (req: Request) => string | null) => async (req: Request, res: Response) => {
    for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
    await store.shares.limit({ address: req.ip ?? 'unknown' });
    const token = String(req.params.token ?? '');
    const opened = await store.shares.open({ token, filename: filenameOf(req), base: `/s/${token}/` });
    if (opened.kind === 'index') {
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).type('text/html; charset=utf-8');
      res.end(req.method === 'HEAD' ? undefined : indexPage(token, opened.prefix, opened.files, opened.more));
      return;
    }
    if (singleQueryParams(req, ['raw']).raw === '1') return raw(deps, req, res, opened);
    await page(store, req, res, opened);
  };
  router.get(
    '/s/:token/a/*path',
    (req, _res, next) => {
      // `a/…` naming a file (attachments never end in `.md`/`.mdx`) is a folder share's file.
      if (hasAllowedExtension(segments(req.params.path))) next('route');
      else next();
    },
    wrap(async (req, res) => {
      for (const name of ['X-Robots-Tag', 'Referrer-Policy', 'X-Frame-Options']) {
        res.setHeader(name, PAGE_HEADERS[name]!);
      }
      await store.shares.limit({ address: req.ip ?? 'unknown' });
      const token = String(req.params.token ?? '');
      const read = await store.shares.attachment({
        token,
        from: singleQueryParams(req, ['from']).from ?? null,
        base: `/s/${token}/`,
        path: segments(req.params.path),
        conditions: conditionsOf(req),
        range: req.headers.range,
        ifRange: headerValue(req.headers['if-range']),
        open: req.method !== 'HEAD',
        signal: signalOf(res),
      });
      await sendAttachment(deps, req, res, read);
    }),
  );
  router.get('/s/:token', wrap(handle(() => null)));
  router.get('/s/:token/*filename', wrap(handle((req) => segments(req.params.filename))));
  router.all(['/s/:token', '/s/:token/*filename'], methodNotAllowed(['GET', 'HEAD']));
  return router;
}

type OpenedFile = Extract<OpenedShare, { kind: 'file' }>;

/** A wildcard parameter's segments, joined by `/`. */
const segments = (param: unknown): string => (param as string[]).join('/');

/** The file's bytes, with a download's headers and conditional requests. */
async function raw(deps: RouteDeps, req: Request, res: Response, opened: OpenedFile): Promise<void> {
  const read = await notFoundAsShare(() =>
    deps.store.files.read({
      principal: opened.principal,
      projectId: opened.projectId,
      filename: opened.filename,
      conditions: conditionsOf(req),
      range: req.headers.range,
      open: req.method !== 'HEAD',
      signal: signalOf(res),
    }),
  );
  await sendDownload(deps, req, res, read);
}

/** The file rendered as a standalone page: the file's `ETag`, conditional like a download. */
async function page(store: MdStore, req: Request, res: Response, opened: OpenedFile): Promise<void> {
  const read = await notFoundAsShare(() =>
    store.files.html({
      principal: opened.principal,
      projectId: opened.projectId,
      filename: opened.filename,
      conditions: conditionsOf(req),
      links: opened.links,
      signal: signalOf(res),
    }),
  );
  setFileValidators(res, read.file);
  if (read.kind === 'not-modified') {
    res.status(304).end();
    return;
  }
  renderedBody(req, res, filePage(opened.filename, read.html));
}

const wrap =
  (handler: (req: Request, res: Response) => Promise<void>) =>
  (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };
