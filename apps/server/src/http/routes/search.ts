import { searchAnswerJson } from '../../views.js';
import { errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { SearchAllRequest, SearchAnswer, SearchRequest } from '../api/schemas.js';
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
      'Full-text query, filter on fields, metadata and front matter, sorting and paging (extensions §3). `project_ids` is not accepted here.',
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

export const searchRoutes = [searchProject, searchAll];
