import type { Request, Response } from 'express';
import * as v from 'valibot';
import { isoDate } from '../../views.js';
import type { QueryParameter } from '../api/route.js';
import { principalOf } from '../auth.js';
import { attachmentDisposition } from '../content-disposition.js';
import { HttpError } from '../errors.js';
import { queryIssue, singleQueryParams } from '../query.js';
import { conditionsOf, setFileValidators } from '../validators.js';
import { filenameOf, projectIdOf, type RouteDeps, signalOf } from './context.js';

/** `?format=html` of a download (extensions §11). */
export const FORMAT_QUERY: Readonly<Record<string, QueryParameter>> = {
  format: {
    schema: v.picklist(['html']),
    description: '`html`: the file rendered as a sanitised HTML fragment instead of its bytes.',
  },
};

/**
 * A fragment cannot run anything even when opened on its own: no script, style or frame of any origin
 * (what the sanitiser let through needs none), images from anywhere the fragment names.
 */
export const FRAGMENT_CSP = "default-src 'none'; img-src * data:; sandbox";

/** `format` of the query string, once at most: `html`, or absent; anything else is 422. */
export function formatOf(req: Request): 'html' | null {
  const { format } = singleQueryParams(req, ['format']);
  if (format === undefined) return null;
  if (format !== 'html') throw new HttpError(422, [queryIssue('format', "format must be 'html'")]);
  return format;
}

/**
 * A download with `?format=html`: the download's preconditions (304/412) and validators (the file's
 * `ETag`), and the HTML fragment (`text/html; charset=utf-8`), shown inline.
 */
export async function renderedFile(deps: RouteDeps, req: Request, res: Response): Promise<void> {
  const read = await deps.store.files.html({
    principal: principalOf(res),
    projectId: projectIdOf(req),
    filename: filenameOf(req),
    conditions: conditionsOf(req),
    signal: signalOf(res),
  });
  const { file } = read;
  setFileValidators(res, file);
  if (read.kind === 'not-modified') {
    res.status(304).end();
    return;
  }
  const body = Buffer.from(read.html, 'utf8');
  res.status(200);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', String(body.byteLength));
  res.setHeader('Content-Security-Policy', FRAGMENT_CSP);
  res.setHeader('Content-Disposition', attachmentDisposition(file.filename).replace(/^attachment/, 'inline'));
  res.setHeader('X-File-Size', String(file.sizeBytes));
  res.setHeader('X-Created-Date', isoDate(file.createdAt));
  res.setHeader('X-Updated-Date', isoDate(file.updatedAt));
  res.end(req.method === 'HEAD' ? undefined : body);
}
