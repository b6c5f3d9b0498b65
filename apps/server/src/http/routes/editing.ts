import type { EditResult, OutlineHeading, OutlineLink, ValidationIssue } from '@mdstore/core';
import type { Request, Response } from 'express';
import { principalOf } from '../auth.js';
import { attachmentDisposition } from '../content-disposition.js';
import { HttpError } from '../errors.js';
import { jsonRequestBody } from '../request-body.js';
import { conditionsOf, setFileValidators } from '../validators.js';
import { fileJson, isoDate } from '../views.js';
import { filenameOf, projectIdOf, type RouteDeps, type RouteHandlers, signalOf } from './context.js';

/**
 * Editing and reading parts (extensions §4): `PATCH` of a file with edits, `GET …/outline`, and the
 * `?lines=` / `?section=` reads of a download.
 */

/**
 * How large a PATCH body may be: edits may carry text as large as a file, JSON-escaped, so twice the
 * file size limit (or the JSON limit of other bodies, if that is larger).
 */
export const editBodyLimit = (deps: RouteDeps): number =>
  Math.max(deps.maxJsonBytes, 2 * deps.store.settings.maxFileBytes);

export function editingRoutes(deps: RouteDeps): Record<string, RouteHandlers> {
  const { store } = deps;
  return {
    '/api/projects/:project_id/files/:filename': {
      PATCH: async (req, res) => {
        const result = await store.files.edit({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          filename: filenameOf(req),
          body: jsonRequestBody(req, res, editBodyLimit(deps)),
          conditions: conditionsOf(req),
          signal: signalOf(res),
        });
        setFileValidators(res, result.file);
        res.status(200).json(editJson(result));
      },
    },
    '/api/projects/:project_id/files/:filename/outline': {
      GET: async (req, res) => {
        const found = await store.files.outline({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          filename: filenameOf(req),
          signal: signalOf(res),
        });
        res.status(200).json(outlineJson(found));
      },
    },
  };
}

export const editJson = (result: EditResult) => ({ ...fileJson(result.file), diff: result.diff });

export const outlineJson = (found: {
  headings: readonly OutlineHeading[];
  links: readonly OutlineLink[];
  file: { etag: string };
}) => ({
  headings: found.headings.map((h) => ({ level: h.level, text: h.text, line: h.line, path: h.path })),
  links: found.links.map((l) => ({ target: l.target, text: l.text, line: l.line })),
  etag: found.file.etag,
});

/** The query parameters of a part read, or null when the request asks for the whole file. */
export interface PartQuery {
  readonly lines?: string;
  readonly section?: string[];
}

const queryIssue = (name: string, msg: string): ValidationIssue => ({
  loc: ['query', name],
  msg: `Value error, ${msg}`,
  type: 'value_error',
});

/**
 * `lines` and `section` of the query string (the app's query parser is off: every route reads what it
 * needs). Values are percent-decoded strictly as UTF-8 (`+` is a space, as in forms); one that is not
 * valid, or a second `lines`, is 422 `["query", NAME]`. Other parameters are ignored, as before.
 */
export function partQueryOf(req: Request): PartQuery | null {
  const at = req.originalUrl.indexOf('?');
  if (at === -1) return null;
  let lines: string | undefined;
  const section: string[] = [];
  for (const pair of req.originalUrl.slice(at + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = decodeQueryPart(equals === -1 ? pair : pair.slice(0, equals), null);
    if (name !== 'lines' && name !== 'section') continue;
    const value = decodeQueryPart(equals === -1 ? '' : pair.slice(equals + 1), name);
    if (name === 'section') section.push(value);
    else if (lines !== undefined) throw new HttpError(422, [queryIssue('lines', 'lines may be given once')]);
    else lines = value;
  }
  if (lines === undefined && section.length === 0) return null;
  return { ...(lines !== undefined && { lines }), ...(section.length > 0 && { section }) };
}

function decodeQueryPart(raw: string, name: string | null): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    // A parameter name that does not decode cannot be one of ours.
    if (name === null) return '';
    throw new HttpError(422, [queryIssue(name, 'the value is not valid percent-encoded UTF-8')]);
  }
}

/**
 * A download with `?lines=` or `?section=`: `200` with that part, the file's `ETag`, `X-Line-Range`;
 * no `Range` handling, no `Accept-Ranges` or `Repr-Digest` (they describe the whole representation).
 */
export async function downloadPart(
  deps: RouteDeps,
  req: Request,
  res: Response,
  query: PartQuery,
): Promise<void> {
  const read = await deps.store.files.readPart({
    principal: principalOf(res),
    projectId: projectIdOf(req),
    filename: filenameOf(req),
    conditions: conditionsOf(req),
    ...query,
    signal: signalOf(res),
  });
  const { file } = read;
  setFileValidators(res, file);
  if (read.kind === 'not-modified') {
    res.status(304).end();
    return;
  }
  const body = Buffer.from(read.text, 'utf8');
  res.status(200);
  res.setHeader('Content-Type', 'text/markdown; charset=utf-8');
  res.setHeader('Content-Length', String(body.byteLength));
  const { first, last, total } = read.lines;
  res.setHeader('X-Line-Range', `${first}-${last}/${total}`);
  res.setHeader('Content-Disposition', attachmentDisposition(file.filename));
  res.setHeader('X-File-Size', String(file.sizeBytes));
  res.setHeader('X-Created-Date', isoDate(file.createdAt));
  res.setHeader('X-Updated-Date', isoDate(file.updatedAt));
  res.end(req.method === 'HEAD' ? undefined : body);
}
