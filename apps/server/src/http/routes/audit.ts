import { AUDIT_LIMITS, type AuditParams } from '@mdstore/core';
import * as v from 'valibot';
import { isoDate } from '../../views.js';
import { AuditList } from '../api/access-schemas.js';
import { errors, json } from '../api/answers.js';
import { defineRoute, type QueryParameter } from '../api/route.js';
import { principalOf } from '../auth.js';
import { singleQueryParams } from '../query.js';

/** `GET /api/audit` (extensions §8): the account's audit log, newest first; `admin` keys only. */

const AUDIT_PARAMS = ['limit', 'cursor', 'since', 'until', 'key_id', 'project_id', 'status'] as const;

const text = (description: string) => v.pipe(v.string(), v.description(description));

const AUDIT_QUERY: Readonly<Record<(typeof AUDIT_PARAMS)[number], QueryParameter>> = {
  limit: {
    schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(AUDIT_LIMITS.maxLimit)),
    description: `Entries per page (default ${AUDIT_LIMITS.defaultLimit}).`,
  },
  cursor: { schema: text('`next_cursor` of the previous page.'), description: 'Where the page starts.' },
  since: { schema: text('ISO 8601 instant (inclusive).'), description: 'Entries at or after this time.' },
  until: { schema: text('ISO 8601 instant (exclusive).'), description: 'Entries before this time.' },
  key_id: { schema: v.pipe(v.string(), v.uuid()), description: 'Entries of this key.' },
  project_id: { schema: v.pipe(v.string(), v.uuid()), description: 'Entries on this project.' },
  status: { schema: v.pipe(v.number(), v.integer()), description: 'Entries with this answer status.' },
};

export const listAudit = defineRoute(
  {
    method: 'GET',
    path: '/api/audit',
    operationId: 'listAudit',
    folderKeys: 'refused',
    summary: 'Read the audit log',
    description:
      'Changes, refusals (401, 403, 404 on a project, 412, 428) and key operations of the account, newest first. Never a key, content or metadata. Entries are written within about a second.',
    tags: ['Access'],
    auth: 'apiKey',
    role: 'admin',
    query: AUDIT_QUERY,
    answers: { 200: json('A page of the audit log', AuditList), ...errors(404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const params: AuditParams = singleQueryParams(req, AUDIT_PARAMS);
      const page = await store.audit.list({ principal: principalOf(res), params });
      const body: v.InferOutput<typeof AuditList> = {
        entries: page.entries.map((entry) => ({
          id: entry.id,
          date: isoDate(entry.at),
          key_id: entry.keyId,
          action: entry.action,
          project_id: entry.projectId,
          filename: entry.filename,
          status: entry.status,
          request_id: entry.requestId,
          ip: entry.ip,
        })),
        next_cursor: page.nextCursor,
      };
      res.status(200).json(body);
    },
);

export const auditRoutes = [listAudit];
