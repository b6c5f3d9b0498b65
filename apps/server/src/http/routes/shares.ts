import type { ShareView } from '@mdstore/core';
import type { Request } from 'express';
import type * as v from 'valibot';
import { isoDate } from '../../views.js';
import { type Share, ShareCreate, ShareCreated, ShareList } from '../api/access-schemas.js';
import { empty, errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { principalOf } from '../auth.js';
import { jsonRequestBody } from '../request-body.js';
import { projectIdOf } from './context.js';

/** Share links of a project (extensions §11): create, list, revoke; `admin` keys only, audited. */

const SHARES = '/api/projects/:project_id/shares';

const shareJson = (share: ShareView): v.InferOutput<typeof Share> => ({
  id: share.shareId,
  filename: share.filename,
  prefix: share.prefix,
  expires_date: isoDate(share.expiresAt),
  created_date: isoDate(share.createdAt),
});

/**
 * The server's own base URL as the client reached it: the `Host` (or, behind a trusted proxy,
 * `X-Forwarded-Host` and `-Proto`, as Express reads them under the server's `trust proxy` rule).
 */
export const baseUrlOf = (req: Request): string => `${req.protocol}://${req.host}`;

export const createShare = defineRoute(
  {
    method: 'POST',
    path: SHARES,
    operationId: 'createShare',
    folderKeys: 'refused',
    summary: 'Create a share link',
    description:
      'A link that shows one file, or every file under a folder, of the project without a key, until it expires or is revoked. The link (its token) is in this answer only.',
    tags: ['Access'],
    auth: 'apiKey',
    role: 'admin',
    body: { contentType: 'application/json', schema: ShareCreate },
    answers: {
      201: json('Created; `url` holds the token, shown only here', ShareCreated),
      ...errors(400, 403, 404, 409, 413, 415, 422),
    },
  },
  (deps) => async (req, res) => {
    const created = await deps.store.shares.create({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
    });
    const body: v.InferOutput<typeof ShareCreated> = {
      ...shareJson(created),
      url: `${baseUrlOf(req)}/s/${created.token}`,
    };
    res.status(201).json(body);
  },
);

export const listShares = defineRoute(
  {
    method: 'GET',
    path: SHARES,
    operationId: 'listShares',
    folderKeys: 'refused',
    summary: 'List share links',
    description:
      'The project’s links that still work (not revoked, not expired), oldest first; never a token.',
    tags: ['Access'],
    auth: 'apiKey',
    role: 'admin',
    answers: { 200: json('The share links of the project', ShareList), ...errors(403, 404) },
  },
  ({ store }) =>
    async (req, res) => {
      const shares = await store.shares.list({ principal: principalOf(res), projectId: projectIdOf(req) });
      res.status(200).json({ shares: shares.map(shareJson) });
    },
);

export const revokeShare = defineRoute(
  {
    method: 'DELETE',
    path: `${SHARES}/:share_id`,
    operationId: 'revokeShare',
    folderKeys: 'refused',
    summary: 'Revoke a share link',
    description: 'The link stops working at once on this instance, and on every instance sharing the store.',
    tags: ['Access'],
    auth: 'apiKey',
    role: 'admin',
    answers: { 204: empty('Revoked'), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      await store.shares.revoke({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        shareId: String(req.params.share_id ?? ''),
      });
      res.status(204).end();
    },
);

export const shareRoutes = [createShare, listShares, revokeShare];
