import type { RouteDeps, RouteHandlers } from './context.js';
import { fileRoutes } from './files.js';
import { projectRoutes } from './projects.js';

export type { Handler, HttpLogger, RouteDeps, RouteHandlers } from './context.js';

/** Every route of the service. A path whose method is not listed answers 405 with `Allow`. */
export function routeTable(deps: RouteDeps): Record<string, RouteHandlers> {
  return { ...projectRoutes(deps), ...fileRoutes(deps) };
}
