import { InvalidInputError, MalformedInputError, toValidationIssues } from '@mdstore/core';
import type { Express, NextFunction, Request, Response } from 'express';
import * as v from 'valibot';
import { httpError } from '../errors.js';
import type { RouteDeps } from '../routes/context.js';
import { declaredRole, requireRole } from './authorize.js';
import { budgetOf } from './budgets.js';
import { PATH_PARAMETERS } from './parameters.js';
import type { DefinedRoute, Method } from './route.js';

const MOUNT: Record<Method, 'get' | 'post' | 'put' | 'patch' | 'delete'> = {
  GET: 'get',
  POST: 'post',
  PUT: 'put',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** The order of the methods in `Allow`, whatever the order of the table. */
const ALLOW_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'];

/**
 * Mounts the routes of the table, and nothing else: one Express route per path, a handler per described
 * method, and `405` with `Allow` (OPTIONS: `204` with `Allow`) for the other methods. Two descriptions of
 * the same method and path are refused, and so is a route without its role (`authorize.ts`) or without
 * its row in the budget table (`budgets.ts`).
 */
export function mountRoutes(app: Express, routes: readonly DefinedRoute[], deps: RouteDeps): void {
  const byPath = new Map<string, DefinedRoute[]>();
  for (const route of routes) {
    const { path, method, operationId } = route.description;
    declaredRole(route.description);
    // Issue 34: a route without its row in the budget table is not mounted.
    budgetOf(operationId);
    const same = byPath.get(path) ?? [];
    if (same.some((other) => other.description.method === method)) {
      throw new Error(`Route ${method} ${path} (${operationId}) is described twice`);
    }
    byPath.set(path, [...same, route]);
  }
  for (const [path, described] of byPath) {
    const route = app.route(path);
    const allowed: string[] = [];
    const checkPath = pathParameterCheck(path);
    for (const { description, handler } of described) {
      const role = declaredRole(description);
      const handle = handler(deps);
      const checked = (req: Request, res: Response) => {
        checkPath(req);
        return handle(req, res);
      };
      route[MOUNT[description.method]](role === null ? checked : requireRole(role, checked));
      allowed.push(description.method);
      if (description.method === 'GET') allowed.push('HEAD');
    }
    allowed.sort((a, b) => ALLOW_ORDER.indexOf(a) - ALLOW_ORDER.indexOf(b));
    route.all(methodNotAllowed(allowed));
  }
}

/**
 * Parses the path values of a template (`:name`, decoded by Express) with their `PATH_PARAMETERS`
 * schema before the handler runs: a value no store can hold is refused at `["path", name]` with the
 * parameter's status (`refusal`: 422 for ids and numbers, 400 for a filename), for every route alike. Each value is replaced by its parsed form.
 */
export function pathParameterCheck(template: string): (req: Request) => void {
  const names = [...template.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!);
  const parsers = names.map((name) => {
    const parameter = PATH_PARAMETERS[name];
    if (!parameter) throw new Error(`Route ${template}: no PATH_PARAMETERS entry for :${name}`);
    return {
      name,
      schema: parameter.parse,
      Refusal: parameter.refusal === 400 ? MalformedInputError : InvalidInputError,
    };
  });
  return (req) => {
    for (const { name, schema, Refusal } of parsers) {
      const result = v.safeParse(schema, req.params[name] ?? '');
      if (!result.success) throw new Refusal(toValidationIssues(result.issues, ['path', name]));
      req.params[name] = result.output as string;
    }
  };
}

/** 405 with `Allow` for a method the path does not have; OPTIONS is answered with the same list. */
export function methodNotAllowed(allowed: readonly string[]) {
  const allow = allowed.join(', ');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allow);
      res.status(204).end();
      return;
    }
    next(httpError(405, { Allow: allow }));
  };
}
