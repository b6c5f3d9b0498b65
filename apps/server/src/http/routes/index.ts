import type { RouteDeps, RouteHandlers } from './context.js';
import { editingRoutes } from './editing.js';
import { fileRoutes } from './files.js';
import { projectRoutes } from './projects.js';

export type { Handler, HttpLogger, RouteDeps, RouteHandlers } from './context.js';

/** Every route of the service. A path whose method is not listed answers 405 with `Allow`. */
export function routeTable(deps: RouteDeps): Record<string, RouteHandlers> {
  return mergeRoutes(projectRoutes(deps), fileRoutes(deps), editingRoutes(deps));
}

/** Route tables joined path by path: two tables may give the same path different methods. */
function mergeRoutes(...tables: Record<string, RouteHandlers>[]): Record<string, RouteHandlers> {
  const merged: Record<string, RouteHandlers> = {};
  for (const table of tables) {
    for (const [path, methods] of Object.entries(table)) merged[path] = { ...merged[path], ...methods };
  }
  return merged;
}
