import type { Request, Response } from 'express';
import * as v from 'valibot';
import { isoDate } from '../../views.js';
import { errors, json } from '../api/answers.js';
import { defineRoute, type QueryParameter } from '../api/route.js';
import { Rendered, RenderRequest } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { attachmentDisposition } from '../content-disposition.js';
import { HttpError } from '../errors.js';
import { queryIssue, singleQueryParams } from '../query.js';
import { jsonRequestBody } from '../request-body.js';
import { conditionsOf, setFileValidators } from '../validators.js';
import { filenameOf, projectIdOf, type RouteDeps, signalOf } from './context.js';
import { editBodyLimit } from './editing.js';

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
  res.setHeader('Content-Security-Policy', FRAGMENT_CSP);
  res.setHeader('Content-Disposition', attachmentDisposition(file.filename).replace(/^attachment/, 'inline'));
  res.setHeader('X-File-Size', String(file.sizeBytes));
  res.setHeader('X-Created-Date', isoDate(file.createdAt));
  res.setHeader('X-Updated-Date', isoDate(file.updatedAt));
  renderedBody(req, res, read.html);
}

/** A 200 answer of HTML (`HEAD`: its headers only). */
export function renderedBody(req: Request, res: Response, html: string): void {
  const body = Buffer.from(html, 'utf8');
  res.status(200);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', String(body.byteLength));
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * `POST …/render` (extensions §11): unsaved text rendered as `?format=html` renders a stored file (the
 * console's live preview). The body is bounded as an edit's is (text as large as a file, JSON-escaped).
 */
export const renderProjectText = defineRoute(
  {
    method: 'POST',
    path: '/api/projects/:project_id/render',
    operationId: 'renderText',
    summary: 'Render text',
    description:
      "Renders Markdown that is not stored (an editor's unsaved text) as `?format=html` renders a file of " +
      'that name and content: the same sanitised HTML, links and embeds resolved against the project.',
    tags: ['Files'],
    auth: 'apiKey',
    role: 'read',
    body: { contentType: 'application/json', schema: RenderRequest },
    answers: { 200: json('The rendered HTML', Rendered), ...errors(400, 403, 404, 413, 415, 422) },
  },
  (deps) => async (req, res) => {
    const html = await deps.store.files.render({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      body: jsonRequestBody(req, res, editBodyLimit(deps), { parse: deps.jsonParser, signal: signalOf(res) }),
      signal: signalOf(res),
    });
    res.status(200).json({ html });
  },
);
