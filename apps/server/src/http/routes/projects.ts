import { projectJson } from '../../views.js';
import { errors, json, PROJECT_VALIDATORS } from '../api/answers.js';
import { PAGING_QUERY } from '../api/parameters.js';
import { defineRoute } from '../api/route.js';
import { Project, ProjectCreate, ProjectDeleted, ProjectList, ProjectUpdate } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { singleQueryParams } from '../query.js';
import { jsonRequestBody } from '../request-body.js';
import { conditionsOf, setProjectValidators } from '../validators.js';
import { projectIdOf } from './context.js';

/** The project routes of the interface, with the ETags and preconditions of extensions §2. */

/** The query parameters of List Projects (extensions §3); others are ignored. */
export const PROJECT_LIST_PARAMS = ['limit', 'cursor'] as const;

const PROJECTS = '/api/projects';
const PROJECT = '/api/projects/:project_id';

export const listProjects = defineRoute(
  {
    method: 'GET',
    path: PROJECTS,
    operationId: 'listProjects',
    summary: 'List projects',
    description: 'Every project of the account, deleted ones included, ordered by created_date then id.',
    tags: ['Projects'],
    auth: 'apiKey',
    role: 'read',
    query: PAGING_QUERY,
    answers: {
      200: json('The projects of the account (one page with limit or cursor)', ProjectList),
      ...errors(422),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const page = await store.projects.page({
        principal: principalOf(res),
        params: singleQueryParams(req, PROJECT_LIST_PARAMS),
      });
      res.status(200).json({
        projects: page.projects.map(projectJson),
        total_count: page.totalCount,
        ...(page.nextCursor !== undefined && { next_cursor: page.nextCursor }),
      });
    },
);

export const createProject = defineRoute(
  {
    method: 'POST',
    path: PROJECTS,
    operationId: 'createProject',
    folderKeys: 'refused',
    summary: 'Create a project',
    tags: ['Projects'],
    auth: 'apiKey',
    role: 'write',
    body: { contentType: 'application/json', schema: ProjectCreate },
    answers: {
      201: json('Created', Project, PROJECT_VALIDATORS),
      ...errors(400, 409, 413, 415, 422),
    },
  },
  (deps) => async (req, res) => {
    const project = await deps.store.projects.create({
      principal: principalOf(res),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
    });
    setProjectValidators(res, project);
    res.status(201).json(projectJson(project));
  },
);

export const getProject = defineRoute(
  {
    method: 'GET',
    path: PROJECT,
    operationId: 'getProject',
    summary: 'Get a project',
    tags: ['Projects'],
    auth: 'apiKey',
    role: 'read',
    headers: ['If-Match', 'If-None-Match'],
    answers: {
      200: json('The project', Project, PROJECT_VALIDATORS),
      304: { description: 'Not modified (no body)', headers: PROJECT_VALIDATORS },
      ...errors(403, 404, 412, 422),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const read = await store.projects.read({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        conditions: conditionsOf(req),
      });
      setProjectValidators(res, read.project);
      if (read.kind === 'not-modified') res.status(304).end();
      else res.status(200).json(projectJson(read.project));
    },
);

export const updateProject = defineRoute(
  {
    method: 'PUT',
    path: PROJECT,
    operationId: 'updateProject',
    folderKeys: 'refused',
    summary: 'Update a project',
    description: 'Only the fields given change; at least one of name, description, settings.',
    tags: ['Projects'],
    auth: 'apiKey',
    // `settings` in the body need `admin`: judged by the core once the body is read.
    role: 'write',
    headers: ['If-Match', 'If-None-Match', 'If-Unmodified-Since'],
    body: { contentType: 'application/json', schema: ProjectUpdate },
    answers: {
      200: json('The project as updated', Project, PROJECT_VALIDATORS),
      ...errors(400, 403, 404, 409, 412, 413, 415, 422),
    },
  },
  (deps) => async (req, res) => {
    const project = await deps.store.projects.update({
      principal: principalOf(res),
      projectId: projectIdOf(req),
      body: jsonRequestBody(req, res, deps.maxJsonBytes),
      conditions: conditionsOf(req),
    });
    setProjectValidators(res, project);
    res.status(200).json(projectJson(project));
  },
);

export const deleteProject = defineRoute(
  {
    method: 'DELETE',
    path: PROJECT,
    operationId: 'deleteProject',
    folderKeys: 'refused',
    summary: 'Delete a project',
    description: 'Deletes every file, then the project. The default project cannot be deleted (403).',
    tags: ['Projects'],
    auth: 'apiKey',
    role: 'admin',
    headers: ['If-Match', 'If-Unmodified-Since'],
    answers: {
      200: json('Deleted', ProjectDeleted),
      ...errors(403, 404, 412, 422),
    },
  },
  ({ store }) =>
    async (req, res) => {
      const { projectId } = await store.projects.delete({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        conditions: conditionsOf(req),
      });
      res.status(200).json({ message: 'Project deleted successfully', project_id: projectId });
    },
);

export const projectRoutes = [listProjects, createProject, getProject, updateProject, deleteProject];
