import { searchAnswerJson, searchStatusJson } from '../../views.js';
import { errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { SearchAllRequest, SearchAnswer, SearchRequest, SearchStatus } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { jsonRequestBody } from '../request-body.js';
import { projectIdOf } from './context.js';

/** Search and filter (extensions §3): in one project, or across the account's projects. */

export const searchProject = defineRoute(
  {
    method: 'POST',
    path: '/api/projects/:project_id/search',
    operationId: 'searchProject',
    summary: 'Search a project',
    description:
      'Full-text query, filter on fields, metadata and front matter, sorting and paging (extensions §3). `mode` semantic or hybrid searches by meaning (extensions §15): filters first, then the vector ranking (or both rankings fused by reciprocal rank, k = 60); hits add `text_rank`, `vector_rank`, `heading` and `snippet`; with embeddings off, 422 at `["body","mode"]`. `project_ids` is not accepted here.',
    tags: ['Search'],
    auth: 'apiKey',
    role: 'read',
    body: { contentType: 'application/json', schema: SearchRequest },
    answers: { 200: json('The matches, one page', SearchAnswer), ...errors(403, 404, 413, 415, 422) },
  },
  (deps) => async (req, res) => {
    const answer = await deps.store.files.search({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
    });
    res.status(200).json(searchAnswerJson(answer));
  },
);

export const searchAll = defineRoute(
  {
    method: 'POST',
    path: '/api/search',
    operationId: 'searchAll',
    summary: 'Search every project',
    description:
      "As project search, over the account's active projects or those of `project_ids` (another account's: 403, a missing one: 404).",
    tags: ['Search'],
    auth: 'apiKey',
    role: 'read',
    body: { contentType: 'application/json', schema: SearchAllRequest },
    answers: { 200: json('The matches, one page', SearchAnswer), ...errors(403, 404, 413, 415, 422) },
  },
  (deps) => async (req, res) => {
    const answer = await deps.store.files.search({
      principal: principalOf(res),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
    });
    res.status(200).json(searchAnswerJson(answer));
  },
);

export const searchStatus = defineRoute(
  {
    method: 'GET',
    path: '/api/projects/:project_id/search/status',
    operationId: 'searchStatus',
    summary: 'Where search by meaning stands',
    description:
      'Extensions §15: files embedded, file changes not embedded yet and the lag of the oldest, read from the store (the same on every instance). With embeddings off: `enabled: false` and zeros.',
    tags: ['Search'],
    auth: 'apiKey',
    role: 'read',
    answers: { 200: json('The indexer’s state for the project', SearchStatus), ...errors(403, 404) },
  },
  (deps) => async (req, res) => {
    const status = await deps.store.files.searchStatus({
      principal: principalOf(res),
      projectId: projectIdOf(req),
    });
    res.status(200).json(searchStatusJson(status));
  },
);

export const searchRoutes = [searchProject, searchAll, searchStatus];
