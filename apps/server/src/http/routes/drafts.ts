import { DRAFT_LIMITS } from '@mdstore/core';
import type { Request } from 'express';
import * as v from 'valibot';
import { draftDiffJson, draftJson, draftListJson, publishedJson } from '../../views.js';
import { errors, json } from '../api/answers.js';
import {
  Draft,
  DraftCreate,
  DraftDiff,
  DraftList,
  DraftOperations,
  DraftReviewCreate,
} from '../api/draft-schemas.js';
import { defineRoute, type QueryParameter, type Tag } from '../api/route.js';
import { AnyError, DraftPublished, MergeConflicts, ValidationError } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { singleQueryParams } from '../query.js';
import { jsonRequestBody } from '../request-body.js';
import { changesetBodyLimit } from './changesets.js';
import { filenameOf, projectIdOf, signalOf } from './context.js';

/**
 * Drafts (extensions §13): proposed changes to several files, kept apart until published. `propose`
 * keys open drafts, add operations and close their own; `write` keys also review and publish.
 */

const DRAFTS = '/api/projects/:project_id/drafts';
const ONE = `${DRAFTS}/:draft_id`;
const TAGS: readonly Tag[] = ['Drafts'];
const draftIdOf = (req: Request): string => String(req.params.draft_id ?? '');

const OPERATION_ERRORS = {
  ...errors(400, 403, 404, 415, 422),
  409: json(
    'Too many open drafts; the draft is not open; or an operation names a taken or missing file, or its edits do not apply',
    AnyError,
  ),
  412: json("An operation's if_match does not hold", ValidationError),
  413: json('Content above the size limits (of a file, or of the draft in all)', AnyError),
};

export const createDraft = defineRoute(
  {
    method: 'POST',
    path: DRAFTS,
    operationId: 'createDraft',
    folderKeys: 'refused',
    summary: 'Open a draft',
    description:
      'A proposed change to several files, kept apart until it is published. Operations are those of a changeset; each records the ETag its file has now (`base_etag`, null when the file does not exist). Nothing live changes.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'propose',
    body: { contentType: 'application/json', schema: DraftCreate },
    answers: { 201: json('The draft', Draft), ...OPERATION_ERRORS },
  },
  (deps) => async (req, res) => {
    const draft = await deps.store.drafts.create({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      body: jsonRequestBody(req, res, changesetBodyLimit(deps), {
        parse: deps.jsonParser,
        signal: signalOf(res),
      }),
      signal: signalOf(res),
    });
    res.status(201).json(draftJson(draft));
  },
);

export const addDraftOperations = defineRoute(
  {
    method: 'POST',
    path: `${ONE}/operations`,
    operationId: 'addDraftOperations',
    folderKeys: 'refused',
    summary: 'Add operations to a draft',
    description:
      'Staged on the draft’s files as they are: an edit applies to the draft’s text of the file; a file keeps the base of the first operation that touched it.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'propose',
    body: { contentType: 'application/json', schema: DraftOperations },
    answers: { 200: json('The draft', Draft), ...OPERATION_ERRORS },
  },
  (deps) => async (req, res) => {
    const draft = await deps.store.drafts.addOperations({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      draftId: draftIdOf(req),
      body: jsonRequestBody(req, res, changesetBodyLimit(deps), {
        parse: deps.jsonParser,
        signal: signalOf(res),
      }),
      signal: signalOf(res),
    });
    res.status(200).json(draftJson(draft));
  },
);

const LIST_PARAMS = ['state', 'limit', 'cursor'] as const;
const LIST_QUERY: Readonly<Record<(typeof LIST_PARAMS)[number], QueryParameter>> = {
  state: { schema: v.picklist(['open', 'published', 'closed']), description: 'Only drafts in this state.' },
  limit: {
    schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(DRAFT_LIMITS.pageMax)),
    description: `Drafts per page (default ${DRAFT_LIMITS.pageDefault}).`,
  },
  cursor: { schema: v.string(), description: '`next_cursor` of the previous page.' },
};

export const listDrafts = defineRoute(
  {
    method: 'GET',
    path: DRAFTS,
    operationId: 'listDrafts',
    folderKeys: 'refused',
    summary: 'List drafts',
    description: 'The project’s drafts, newest first, paged.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'read',
    query: LIST_QUERY,
    answers: { 200: json('A page of drafts', DraftList), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const page = await store.drafts.list({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        ...singleQueryParams(req, LIST_PARAMS),
      });
      res.status(200).json(draftListJson(page));
    },
);

export const getDraft = defineRoute(
  {
    method: 'GET',
    path: ONE,
    operationId: 'getDraft',
    folderKeys: 'refused',
    summary: 'Get a draft',
    description: 'The draft with its files (operation and base, never the content) and its reviews.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'read',
    answers: { 200: json('The draft', Draft), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const draft = await store.drafts.get({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        draftId: draftIdOf(req),
      });
      res.status(200).json(draftJson(draft));
    },
);

export const readDraftFile = defineRoute(
  {
    method: 'GET',
    path: `${ONE}/files/:filename`,
    operationId: 'readDraftFile',
    folderKeys: 'refused',
    summary: 'Read a draft’s text of a file',
    description:
      'The whole text the draft proposes for a file it puts or edits (404 for one it deletes or moves).',
    tags: TAGS,
    auth: 'apiKey',
    role: 'read',
    answers: {
      200: { description: 'The draft’s text', body: { contentType: 'text/markdown' } },
      ...errors(403, 404, 422),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const { text } = await store.drafts.readFile({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        draftId: draftIdOf(req),
        filename: filenameOf(req),
      });
      res.status(200).type('text/markdown; charset=utf-8').send(text);
    },
);

const DIFF_PARAMS = ['limit', 'cursor'] as const;
const DIFF_QUERY: Readonly<Record<(typeof DIFF_PARAMS)[number], QueryParameter>> = {
  limit: {
    schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(DRAFT_LIMITS.diffPageMax)),
    description: `Files per page (default ${DRAFT_LIMITS.diffPageDefault}).`,
  },
  cursor: { schema: v.string(), description: '`next_cursor` of the previous page.' },
};

export const diffDraft = defineRoute(
  {
    method: 'GET',
    path: `${ONE}/diff`,
    operationId: 'diffDraft',
    folderKeys: 'refused',
    summary: 'Diff a draft',
    description:
      'Per file, in the order first touched: the unified diff from its base to the draft, and `stale: true` when the file changed since the base.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'read',
    query: DIFF_QUERY,
    answers: {
      200: json('A page of the draft’s files with their diffs', DraftDiff),
      ...errors(403, 404, 422),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const page = await store.drafts.diff({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        draftId: draftIdOf(req),
        ...singleQueryParams(req, DIFF_PARAMS),
        signal: signalOf(res),
      });
      res.status(200).json(draftDiffJson(page));
    },
);

export const reviewDraft = defineRoute(
  {
    method: 'POST',
    path: `${ONE}/reviews`,
    operationId: 'reviewDraft',
    folderKeys: 'refused',
    summary: 'Review a draft',
    description: 'Approve or request changes, with a comment.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'write',
    body: { contentType: 'application/json', schema: DraftReviewCreate },
    answers: {
      200: json('The draft', Draft),
      ...errors(400, 403, 404, 413, 415, 422),
      409: json('The draft is not open, or holds the most reviews it may', AnyError),
    },
  },
  (deps) => async (req, res) => {
    const draft = await deps.store.drafts.review({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      draftId: draftIdOf(req),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
    });
    res.status(200).json(draftJson(draft));
  },
);

export const closeDraft = defineRoute(
  {
    method: 'POST',
    path: `${ONE}/close`,
    operationId: 'closeDraft',
    folderKeys: 'refused',
    summary: 'Close a draft',
    description:
      'Nothing is published. Its author may close it (a `propose` key too); other keys need `write`.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'propose',
    answers: {
      200: json('The draft', Draft),
      ...errors(403, 404, 422),
      409: json('The draft is not open', AnyError),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const draft = await store.drafts.close({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        draftId: draftIdOf(req),
      });
      res.status(200).json(draftJson(draft));
    },
);

export const publishDraft = defineRoute(
  {
    method: 'POST',
    path: `${ONE}/publish`,
    operationId: 'publishDraft',
    folderKeys: 'refused',
    summary: 'Publish a draft',
    description:
      'Applies the draft as one changeset (all or nothing; each revision carries the changeset id and the draft’s title). Files changed since their base are merged three ways and listed in `merged`; overlapping changes are 409 `Draft conflicts` with the hunks, and nothing changes.',
    tags: TAGS,
    auth: 'apiKey',
    role: 'write',
    answers: {
      200: json('The published draft and the changeset', DraftPublished),
      ...errors(403, 404, 422),
      409: json(
        'Overlapping changes (`Draft conflicts` with `conflicts`), the draft is not open, or an operation fails',
        v.union([MergeConflicts, AnyError]),
      ),
      412: json('A file changed during every attempt of the publish', ValidationError),
      413: json('Content above the size limits', AnyError),
      428: json('Refused as a changeset would be', ValidationError),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const published = await store.drafts.publish({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        draftId: draftIdOf(req),
        signal: signalOf(res),
      });
      res.status(200).json(publishedJson(published));
    },
);

export const draftRoutes = [
  createDraft,
  listDrafts,
  getDraft,
  addDraftOperations,
  readDraftFile,
  diffDraft,
  reviewDraft,
  closeDraft,
  publishDraft,
];
