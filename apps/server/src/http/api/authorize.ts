import { assertRole, ROLES, type Role } from '@mdstore/core';
import { principalOf } from '../auth.js';
import type { Handler } from '../routes/context.js';
import type { RouteDescription } from './route.js';

/**
 * The role a route declares, checked at start-up: an `apiKey` route must name one of the roles, a route
 * without a key must name none. A table that breaks this cannot be mounted.
 */
export function declaredRole(route: RouteDescription): Role | null {
  const { method, path, operationId, auth } = route;
  const role: unknown = route.role;
  if (auth === 'apiKey' && !ROLES.includes(role as Role)) {
    throw new Error(`Route ${method} ${path} (${operationId}) declares no role (one of ${ROLES.join(', ')})`);
  }
  if (auth === 'none' && role !== null) {
    throw new Error(`Route ${method} ${path} (${operationId}) needs no key, so it cannot declare a role`);
  }
  return role as Role | null;
}

/**
 * THE role check of `/api` (extensions §8): runs after authentication (which refuses unknown, revoked
 * and expired keys) and before the handler, so before any body is read. A key whose role does not cover
 * the route's is `403` "API key does not allow this operation". The project scope is the core's access
 * rule (`404`), applied where the project is loaded.
 */
export function requireRole(role: Role, handler: Handler): Handler {
  return (req, res) => {
    assertRole(principalOf(res), role);
    return handler(req, res);
  };
}
