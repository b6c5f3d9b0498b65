import type { Request, Response } from 'express';
import * as v from 'valibot';
import { editJson, isoDate, outlineJson } from '../../views.js';
import { errors, FILE_VALIDATORS, json } from '../api/answers.js';
import { MERGE_BASE_QUERY } from '../api/parameters.js';
import { defineRoute, type QueryParameter } from '../api/route.js';
import { FileEdit, FileEdited, MergeConflicts, Outline, ValidationError } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { attachmentDisposition } from '../content-disposition.js';
import { HttpError } from '../errors.js';
import { queryIssue, queryPairs, singleQueryParams } from '../query.js';
import { jsonRequestBody } from '../request-body.js';
import { conditionsOf, setFileValidators } from '../validators.js';
import { filenameOf, projectIdOf, type RouteDeps, signalOf } from './context.js';

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

const FILE = '/api/projects/:project_id/files/:filename';

export const editFile = defineRoute(
  {
    method: 'PATCH',
    path: FILE,
    operationId: 'editFile',
    summary: 'Edit a file',
    description:
      'Edits applied in order to the current content (replace, append, prepend, replace_section, ' +
      'insert); all of them or none. `dry_run` shows the diff without writing.',
    tags: ['Editing'],
    auth: 'apiKey',
    role: 'write',
    headers: ['If-Match', 'If-None-Match', 'If-Unmodified-Since'],
    query: MERGE_BASE_QUERY,
    body: { contentType: 'application/json', schema: FileEdit },
    answers: {
      200: json('The file after the edits, and the diff', FileEdited, FILE_VALIDATORS),
      ...errors(400, 403, 404, 412, 413, 415, 422, 428),
      409: json(
        'An edit does not apply (one issue per edit); with `merge_base`, also the edited base overlapping the current content (`conflicts`)',
        v.union([ValidationError, MergeConflicts]),
      ),
    },
  },
  (deps) => async (req, res) => {
    const result = await deps.store.files.edit({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      filename: filenameOf(req),
      body: jsonRequestBody(req, res, editBodyLimit(deps), { parse: deps.jsonParser, signal: signalOf(res) }),
      conditions: conditionsOf(req),
      mergeBase: singleQueryParams(req, ['merge_base']).merge_base,
      signal: signalOf(res),
    });
    setFileValidators(res, result.file);
    res.status(200).json(editJson(result));
  },
);

export const getOutline = defineRoute(
  {
    method: 'GET',
    path: `${FILE}/outline`,
    operationId: 'getOutline',
    summary: 'Outline of a file',
    description: 'The headings (with their section paths) and links of the file, with their lines.',
    tags: ['Editing'],
    auth: 'apiKey',
    role: 'read',
    answers: { 200: json('The outline', Outline), ...errors(403, 404, 413, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const found = await store.files.outline({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        filename: filenameOf(req),
        signal: signalOf(res),
      });
      res.status(200).json(outlineJson(found));
    },
);

export const editingRoutes = [editFile, getOutline];

/** `?lines=` and `?section=` of a download (read by `partQueryOf`, below). */
export const PART_QUERY: Readonly<Record<string, QueryParameter>> = {
  lines: {
    schema: v.pipe(v.string(), v.regex(/^[0-9]+-[0-9]+$/), v.examples(['10-20'])),
    description: 'Lines `a-b` (1-based, inclusive; `b` is clipped to the last line).',
  },
  section: {
    schema: v.string(),
    description: 'A heading text; repeated, a path of headings (`?section=Guide&section=Install`).',
    repeated: true,
  },
};

/** The query parameters of a part read, or null when the request asks for the whole file. */
export interface PartQuery {
  readonly lines?: string;
  readonly section?: string[];
}

/**
 * `lines` and `section` of the query string (the app's query parser is off: every route reads what it
 * needs). Values are percent-decoded strictly as UTF-8 (`+` is a space, as in forms); one that is not
 * valid, or a second `lines`, is 422 `["query", NAME]`. Other parameters are ignored, as before.
 */
export function partQueryOf(req: Request): PartQuery | null {
  let lines: string | undefined;
  const section: string[] = [];
  for (const [name, value] of queryPairs(req, PART_PARAMS)) {
    if (name === 'section') section.push(value);
    else if (lines !== undefined) throw new HttpError(422, [queryIssue('lines', 'lines may be given once')]);
    else lines = value;
  }
  if (lines === undefined && section.length === 0) return null;
  return { ...(lines !== undefined && { lines }), ...(section.length > 0 && { section }) };
}

const PART_PARAMS: ReadonlySet<string> = new Set(['lines', 'section']);

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
