import { attachmentRoutes } from '../routes/attachments.js';
import { auditRoutes } from '../routes/audit.js';
import { changeRoutes } from '../routes/changes.js';
import { changesetRoutes } from '../routes/changesets.js';
import { downloadFile } from '../routes/download.js';
import { draftRoutes } from '../routes/drafts.js';
import { editingRoutes } from '../routes/editing.js';
import { exportProject } from '../routes/export.js';
import { fileRoutes } from '../routes/files.js';
import { historyRoutes } from '../routes/history.js';
import { importProject } from '../routes/import.js';
import { keyRoutes } from '../routes/keys.js';
import { linkRoutes } from '../routes/links.js';
import { memoryRoutes } from '../routes/memory.js';
import { operationRoutes } from '../routes/operations.js';
import { projectRoutes } from '../routes/projects.js';
import { renderProjectText } from '../routes/rendered.js';
import { restoreRoutes } from '../routes/restore.js';
import { searchRoutes } from '../routes/search.js';
import { shareRoutes } from '../routes/shares.js';
import { trashRoutes } from '../routes/trash.js';
import { webhookRoutes } from '../routes/webhooks.js';
import type { DefinedRoute } from './route.js';

/**
 * THE ROUTE TABLE: every HTTP route of the service, for the router (`mount.ts`) and for the OpenAPI
 * document served at `GET /openapi.json` (`openapi.ts`). Nothing else is mounted, so a route cannot
 * exist without its description.
 *
 * To add a route:
 * 1. In `routes/<area>.ts`, write `export const myOperation = defineRoute({ method, path, operationId,
 *    summary, tags, auth, role (extensions §8, §13: 'read' | 'propose' | 'write' | 'admin', null without a key), query?, headers?, body?, answers }, (deps) => async (req, res) => { … })`.
 *    Bodies and answers are valibot schemas: reuse the core's (`@mdstore/core`) and add named answer
 *    schemas to `api/schemas.ts` (and to `COMPONENTS` there, to give them a component name). Error
 *    answers: `...errors(403, 404, 422)` (`api/answers.ts`); 401, 429, 500 and 503 are added to every
 *    `auth: 'apiKey'` route. A new `:param` in a path needs an entry in `PATH_PARAMETERS`, a new
 *    request or response header one in `api/parameters.ts`.
 * 2. Add it to the area's list and that list here (order = order in the document).
 * 3. Run `npm run generate:client -- --from-server` (writes packages/client/openapi.json and the SDK's
 *    types), give the SDK a method for it and a line in packages/client/test/operations.test.ts, and
 *    add the call to apps/server/test/openapi/conformance.test.ts (it fails until you do).
 */
export const ROUTES: readonly DefinedRoute[] = [
  ...projectRoutes,
  ...fileRoutes,
  downloadFile,
  // Extensions §12.
  ...attachmentRoutes,
  ...editingRoutes,
  // Extensions §11.
  renderProjectText,
  ...historyRoutes,
  // Extensions §9.
  ...changesetRoutes,
  // Extensions §13.
  ...draftRoutes,
  ...searchRoutes,
  // Extensions §9.
  ...linkRoutes,
  ...trashRoutes,
  // Extensions §16.
  ...restoreRoutes,
  // Extensions §10.
  exportProject,
  importProject,
  ...keyRoutes,
  // Extensions §11.
  ...shareRoutes,
  ...auditRoutes,
  ...changeRoutes,
  // Extensions §7.
  ...webhookRoutes,
  ...operationRoutes,
  // Extensions §14.
  ...memoryRoutes,
];
