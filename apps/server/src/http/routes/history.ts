import { HISTORY_LIMITS } from '@mdstore/core';
import type { Request, Response } from 'express';
import * as v from 'valibot';
import { fileJson, revisionListJson } from '../../views.js';
import { DOWNLOAD_HEADERS, errors, FILE_VALIDATORS, json, markdown } from '../api/answers.js';
import { defineRoute, type RequestHeader } from '../api/route.js';
import {
  CopyRequest,
  File,
  MovedFile,
  MoveRequest,
  RestoreRequest,
  RevisionList as RevisionListSchema,
} from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { singleQueryParams } from '../query.js';
import { jsonRequestBody } from '../request-body.js';
import { conditionsOf, headerValue, setFileValidators } from '../validators.js';
import { filenameOf, projectIdOf, signalOf } from './context.js';
import { sendDownload } from './download.js';

/**
 * History, move and copy (extensions §5): the revisions of a file, one revision's content, the diff of
 * two revisions, restore, move and copy.
 */

const FILE = '/api/projects/:project_id/files/:filename';
const WRITE_CONDITIONS: readonly RequestHeader[] = ['If-Match', 'If-None-Match', 'If-Unmodified-Since'];
const REVISION = v.pipe(v.number(), v.integer(), v.minValue(1));

const target = (req: Request, res: Response) => ({
  principal: principalOf(res),
  projectId: projectIdOf(req),
  filename: filenameOf(req),
});

export const listRevisions = defineRoute(
  {
    method: 'GET',
    path: `${FILE}/revisions`,
    operationId: 'listRevisions',
    summary: 'List the revisions of a file',
    description: 'The kept revisions, newest first, the current one included.',
    tags: ['History'],
    auth: 'apiKey',
    role: 'read',
    query: {
      limit: {
        schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(HISTORY_LIMITS.revisionsPageMax)),
        description: `Page size (default ${HISTORY_LIMITS.revisionsPageDefault}).`,
      },
      cursor: { schema: v.string(), description: '`next_cursor` of the previous page.' },
    },
    answers: { 200: json('One page of revisions', RevisionListSchema), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const query = singleQueryParams(req, ['limit', 'cursor']);
      const list = await store.files.listRevisions({ ...target(req, res), ...query });
      res.status(200).json(revisionListJson(list));
    },
);

export const downloadRevision = defineRoute(
  {
    method: 'GET',
    path: `${FILE}/revisions/:revision`,
    operationId: 'downloadRevision',
    summary: 'Download a revision',
    description: 'The content of a kept revision, as a download (ranges and preconditions included).',
    tags: ['History'],
    auth: 'apiKey',
    role: 'read',
    headers: ['If-Match', 'If-None-Match', 'If-Modified-Since', 'If-Unmodified-Since', 'Range', 'If-Range'],
    answers: {
      200: markdown('The content of the revision', [...DOWNLOAD_HEADERS, 'Accept-Ranges', 'Repr-Digest']),
      206: markdown('One byte range of it', [
        ...DOWNLOAD_HEADERS,
        'Content-Range',
        'Accept-Ranges',
        'Repr-Digest',
      ]),
      304: { description: 'Not modified (no body)', headers: FILE_VALIDATORS },
      ...errors(403, 404, 412, 416, 422),
    },
  },
  (deps) => async (req, res) => {
    const read = await deps.store.files.readRevision({
      ...target(req, res),
      revision: String(req.params.revision ?? ''),
      conditions: conditionsOf(req),
      range: req.headers.range,
      ifRange: headerValue(req.headers['if-range']),
      open: req.method !== 'HEAD',
      signal: signalOf(res),
    });
    await sendDownload(deps, req, res, read);
  },
);

export const diffRevisions = defineRoute(
  {
    method: 'GET',
    path: `${FILE}/diff`,
    operationId: 'diffRevisions',
    summary: 'Diff two revisions',
    description: 'A unified diff from revision `from` to revision `to` (default: the current one).',
    tags: ['History'],
    auth: 'apiKey',
    role: 'read',
    query: {
      from: { schema: REVISION, description: 'The older revision.', required: true },
      to: { schema: REVISION, description: 'The newer revision (default: the current one).' },
    },
    answers: {
      200: { description: 'The unified diff', body: { contentType: 'text/x-diff' } },
      ...errors(403, 404, 413, 422),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const query = singleQueryParams(req, ['from', 'to']);
      const diff = await store.files.diff({ ...target(req, res), ...query, signal: signalOf(res) });
      const body = Buffer.from(diff, 'utf8');
      res.status(200);
      res.setHeader('Content-Type', 'text/x-diff; charset=utf-8');
      res.setHeader('Content-Length', String(body.byteLength));
      res.end(req.method === 'HEAD' ? undefined : body);
    },
);

export const restoreRevision = defineRoute(
  {
    method: 'POST',
    path: `${FILE}/restore`,
    operationId: 'restoreRevision',
    summary: 'Restore a revision',
    description: 'Makes a kept revision (content and metadata) the current one, as a new revision.',
    tags: ['History'],
    auth: 'apiKey',
    role: 'write',
    headers: WRITE_CONDITIONS,
    body: { contentType: 'application/json', schema: RestoreRequest },
    answers: {
      200: json('The file as restored', File, FILE_VALIDATORS),
      ...errors(400, 403, 404, 412, 413, 415, 422, 428),
    },
  },
  (deps) => async (req, res) => {
    const restored = await deps.store.files.restore({
      ...target(req, res),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
      conditions: conditionsOf(req),
    });
    setFileValidators(res, restored);
    res.status(200).json(fileJson(restored));
  },
);

export const moveFile = defineRoute(
  {
    method: 'POST',
    path: `${FILE}/move`,
    operationId: 'moveFile',
    summary: 'Move (rename) a file',
    description:
      'The file keeps its history under the new name. With `"rewrite_links": true` every link to it in other files (and its own relative links, when its folder changes) is rewritten in the same transaction; `"dry_run": true` changes nothing and answers what would be rewritten (extensions §9).',
    tags: ['History'],
    auth: 'apiKey',
    role: 'write',
    headers: WRITE_CONDITIONS,
    body: { contentType: 'application/json', schema: MoveRequest },
    answers: {
      200: json('The file under its new name', MovedFile, FILE_VALIDATORS),
      ...errors(400, 403, 404, 409, 412, 413, 415, 422, 428),
    },
  },
  (deps) => async (req, res) => {
    const moved = await deps.store.files.move({
      ...target(req, res),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
      conditions: conditionsOf(req),
    });
    setFileValidators(res, moved);
    res.status(200).json({ ...fileJson(moved), ...(moved.rewritten && { rewritten: moved.rewritten }) });
  },
);

export const copyFile = defineRoute(
  {
    method: 'POST',
    path: `${FILE}/copy`,
    operationId: 'copyFile',
    summary: 'Copy a file',
    description: 'To a new name, in this project or another of the account (`project_id`).',
    tags: ['History'],
    auth: 'apiKey',
    role: 'write',
    headers: WRITE_CONDITIONS,
    body: { contentType: 'application/json', schema: CopyRequest },
    answers: {
      201: json('The copy', File, FILE_VALIDATORS),
      ...errors(400, 403, 404, 409, 412, 413, 415, 422, 428),
    },
  },
  (deps) => async (req, res) => {
    const copied = await deps.store.files.copy({
      ...target(req, res),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
      conditions: conditionsOf(req),
      signal: signalOf(res),
    });
    setFileValidators(res, copied);
    res.status(201).json(fileJson(copied));
  },
);

export const historyRoutes = [
  listRevisions,
  downloadRevision,
  diffRevisions,
  restoreRevision,
  moveFile,
  copyFile,
];
