import type { Express, NextFunction, Request, Response } from 'express';
import { httpError } from '../errors.js';
import type { RouteDeps } from '../routes/context.js';
import { declaredRole, requireRole } from './authorize.js';
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
 * the same method and path are refused, and so is a route without its role (`authorize.ts`).
 */
export function mountRoutes(app: Express, routes: readonly DefinedRoute[], deps: RouteDeps): void {
  const byPath = new Map<string, DefinedRoute[]>();
  for (const route of routes) {
    const { path, method, operationId } = route.description;
    declaredRole(route.description);
    const same = byPath.get(path) ?? [];
    if (same.some((other) => other.description.method === method)) {
      throw new Error(`Route ${method} ${path} (${operationId}) is described twice`);
    }
    byPath.set(path, [...same, route]);
  }
  for (const [path, described] of byPath) {
    const route = app.route(path);
    const allowed: string[] = [];
    for (const { description, handler } of described) {
      const role = declaredRole(description);
      route[MOUNT[description.method]](role === null ? handler(deps) : requireRole(role, handler(deps)));
      allowed.push(description.method);
      if (description.method === 'GET') allowed.push('HEAD');
    }
    allowed.sort((a, b) => ALLOW_ORDER.indexOf(a) - ALLOW_ORDER.indexOf(b));
    route.all(methodNotAllowed(allowed));
  }
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
