import type { Request, Response } from 'express';
import * as v from 'valibot';
import { attachmentJson, fileJson, trashPageJson } from '../../views.js';
import { errors, FILE_VALIDATORS, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { Attachment, File, TrashList, TrashRestore } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { singleQueryParams } from '../query.js';
import { jsonRequestBody } from '../request-body.js';
import { setFileValidators } from '../validators.js';
import { setAttachmentValidators } from './attachments.js';
import { projectIdOf } from './context.js';

/** The trash of a project (extensions §5): list, restore, remove for good. */

const TRASH = '/api/projects/:project_id/trash';

/** A request that carries no body at all: restore then uses the item's own name. */
const hasNoBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;

const item = (req: Request, res: Response) => ({
  principal: principalOf(res),
  projectId: projectIdOf(req),
  trashId: String(req.params.trash_id ?? ''),
});

export const listTrash = defineRoute(
  {
    method: 'GET',
    path: TRASH,
    operationId: 'listTrash',
    folderKeys: 'refused',
    summary: 'List the trash',
    description:
      'Deleted files kept for `settings.trash_retention_days`, newest deletion first; items past ' +
      '`expires_date` are never listed. `limit` and `cursor` as for List Files.',
    tags: ['Trash'],
    auth: 'apiKey',
    role: 'read',
    query: {
      limit: {
        schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)),
        description: 'Page size (default 100).',
      },
      cursor: { schema: v.string(), description: '`next_cursor` of the previous page.' },
    },
    answers: { 200: json('One page of the trash', TrashList), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const page = await store.trash.list({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        ...singleQueryParams(req, ['limit', 'cursor']),
      });
      res.status(200).json(trashPageJson(page));
    },
);

export const restoreTrashItem = defineRoute(
  {
    method: 'POST',
    path: `${TRASH}/:trash_id/restore`,
    operationId: 'restoreTrashItem',
    folderKeys: 'refused',
    summary: 'Restore a file from the trash',
    description:
      "The same file back under its own name or `to`, with a new revision (`change: restore`); `{}` or no body: the item's own name. An attachment's item (`kind: attachment`, extensions §12) comes back as the same attachment at its path or `to` (an attachment path), answered as an Attachment.",
    tags: ['Trash'],
    auth: 'apiKey',
    role: 'write',
    body: { contentType: 'application/json', schema: TrashRestore },
    answers: {
      201: json('The restored file, or attachment', v.union([File, Attachment]), FILE_VALIDATORS),
      ...errors(400, 403, 404, 409, 413, 415, 422),
    },
  },
  (deps) => async (req, res) => {
    const restored = await deps.store.trash.restore({
      ...item(req, res),
      body: hasNoBody(req) ? undefined : jsonRequestBody(req, res, deps.maxJsonBytes),
    });
    if ('attachment' in restored) {
      setAttachmentValidators(res, restored.attachment);
      res.status(201).json(attachmentJson(restored.attachment));
      return;
    }
    setFileValidators(res, restored);
    res.status(201).json(fileJson(restored));
  },
);

export const deleteTrashItem = defineRoute(
  {
    method: 'DELETE',
    path: `${TRASH}/:trash_id`,
    operationId: 'deleteTrashItem',
    folderKeys: 'refused',
    summary: 'Remove a file from the trash for good',
    description: 'Its content and revisions go too.',
    tags: ['Trash'],
    auth: 'apiKey',
    role: 'write',
    answers: { 204: { description: 'Removed' }, ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      await store.trash.delete(item(req, res));
      res.status(204).end();
    },
);

export const trashRoutes = [listTrash, restoreTrashItem, deleteTrashItem];
