import type { Request, Response } from 'express';
import { principalOf } from '../auth.js';
import { jsonRequestBody } from '../request-body.js';
import { conditionsOf, setProjectValidators } from '../validators.js';
import { projectJson } from '../views.js';
import { projectIdOf, type RouteDeps, type RouteHandlers } from './context.js';

/** The project routes of the interface, with the ETags and preconditions of extensions §2. */
export function projectRoutes(deps: RouteDeps): Record<string, RouteHandlers> {
  const { store } = deps;
  return {
    '/api/projects': {
      GET: async (_req, res) => {
        const projects = await store.projects.list({ principal: principalOf(res) });
        res.status(200).json({ projects: projects.map(projectJson), total_count: projects.length });
      },
      POST: async (req, res) => {
        const project = await store.projects.create({
          principal: principalOf(res),
          body: jsonRequestBody(req, res, deps.maxJsonBytes),
        });
        setProjectValidators(res, project);
        res.status(201).json(projectJson(project));
      },
    },
    '/api/projects/:project_id': {
      GET: async (req: Request, res: Response) => {
        const read = await store.projects.read({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          conditions: conditionsOf(req),
        });
        setProjectValidators(res, read.project);
        if (read.kind === 'not-modified') res.status(304).end();
        else res.status(200).json(projectJson(read.project));
      },
      PUT: async (req, res) => {
        const project = await store.projects.update({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          body: jsonRequestBody(req, res, deps.maxJsonBytes),
          conditions: conditionsOf(req),
        });
        setProjectValidators(res, project);
        res.status(200).json(projectJson(project));
      },
      DELETE: async (req, res) => {
        const { projectId } = await store.projects.delete({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          conditions: conditionsOf(req),
        });
        res.status(200).json({ message: 'Project deleted successfully', project_id: projectId });
      },
    },
  };
}
