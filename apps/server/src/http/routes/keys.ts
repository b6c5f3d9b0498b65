import type { KeyView } from '@mdstore/core';
import type * as v from 'valibot';
import { isoDate } from '../../views.js';
import { Key, KeyCreate, KeyCreated, KeyList } from '../api/access-schemas.js';
import { empty, errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { principalOf } from '../auth.js';
import { jsonRequestBody } from '../request-body.js';

/** API keys of the account (extensions §8): create, list, revoke; `admin` keys only. */

const KEYS = '/api/keys';

const orNullDate = (at: number | null) => (at === null ? null : isoDate(at));

function keyFields(key: KeyView) {
  return {
    id: key.keyId,
    name: key.name,
    role: key.role,
    project_ids: key.projectIds === null ? null : [...key.projectIds],
    path_prefixes: key.pathPrefixes === null ? null : [...key.pathPrefixes],
    expires_date: orNullDate(key.expiresAt),
    created_date: isoDate(key.createdAt),
  };
}

export const keyJson = (key: KeyView): v.InferOutput<typeof Key> => ({
  ...keyFields(key),
  last_used_date: orNullDate(key.lastUsedAt),
});

export const createKey = defineRoute(
  {
    method: 'POST',
    path: KEYS,
    operationId: 'createKey',
    summary: 'Create an API key',
    description:
      'A key with a role, optionally confined to some projects and expiring. Never more than the creating key has (403). The secret is in this answer only.',
    tags: ['Access'],
    auth: 'apiKey',
    role: 'admin',
    body: { contentType: 'application/json', schema: KeyCreate },
    answers: {
      201: json('Created; `api_key` is the secret, shown only here', KeyCreated),
      ...errors(400, 403, 404, 409, 413, 415, 422),
    },
  },
  (deps) => async (req, res) => {
    const created = await deps.store.keys.create({
      principal: principalOf(res),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
    });
    const body: v.InferOutput<typeof KeyCreated> = { ...keyFields(created), api_key: created.apiKey };
    res.status(201).json(body);
  },
);

export const listKeys = defineRoute(
  {
    method: 'GET',
    path: KEYS,
    operationId: 'listKeys',
    summary: 'List API keys',
    description:
      'The account’s keys that are not revoked, oldest first; never a secret. A project-scoped key lists only keys scoped to a subset of its projects.',
    tags: ['Access'],
    auth: 'apiKey',
    role: 'admin',
    answers: { 200: json('The keys of the account', KeyList) },
  },
  ({ store }) =>
    async (_req, res) => {
      const keys = await store.keys.list({ principal: principalOf(res) });
      res.status(200).json({ keys: keys.map(keyJson) });
    },
);

export const currentKey = defineRoute(
  {
    method: 'GET',
    path: `${KEYS}/current`,
    operationId: 'currentKey',
    summary: 'The key making the request',
    description:
      'Its id, name, role, projects and expiry (never the secret), for any role: how a client such as the console learns what its key may do.',
    tags: ['Access'],
    auth: 'apiKey',
    role: 'read',
    answers: { 200: json('The key of this request', Key) },
  },
  ({ store }) =>
    async (_req, res) => {
      res.status(200).json(keyJson(await store.keys.current({ principal: principalOf(res) })));
    },
);

export const revokeKey = defineRoute(
  {
    method: 'DELETE',
    path: `${KEYS}/:key_id`,
    operationId: 'revokeKey',
    summary: 'Revoke an API key',
    description:
      'At once on this instance, within 1 s on every instance sharing the store. A key may revoke itself, or a key reaching no further than it does.',
    tags: ['Access'],
    auth: 'apiKey',
    role: 'admin',
    answers: { 204: empty('Revoked'), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      await store.keys.revoke({ principal: principalOf(res), keyId: String(req.params.key_id ?? '') });
      res.status(204).end();
    },
);

export const keyRoutes = [createKey, listKeys, currentKey, revokeKey];
