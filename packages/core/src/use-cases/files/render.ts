import * as v from 'valibot';
import { ContentTooLargeError, InvalidInputError } from '../../errors.js';
import { renderWithin } from '../../markdown/content-work.js';
import type { RenderLinks } from '../../markdown/render/links.js';
import { type RenderRequestInput, RenderRequestSchema } from '../../validation/bodies.js';
import { issueAt, toValidationIssues } from '../../validation/issues.js';
import { checkUploadFilename, isJsonObject } from '../../validation/schemas.js';
import { utf8Size } from '../../validation/text.js';
import { assertPathInScope, inPathScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { withContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { renderTargets } from '../links/targets.js';
import { type FileView, toFileView } from '../views.js';
import { checkReadConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { currentText, isMdxFilename, textReservation } from './parts.js';

export type RenderedRead =
  | { readonly kind: 'not-modified'; readonly file: FileView }
  | { readonly kind: 'html'; readonly file: FileView; readonly html: string };

/**
 * `GET …/files/{filename}?format=html` (extensions §11): the preconditions of a download (304, 412),
 * then the current version rendered and sanitised (markdown/render), its links to other files of the
 * project made console links (or share links), its wiki links and embeds resolved first by the link
 * index's rule (links/targets.ts); inline under one step's bound, else in `ctx.contentWork`; past its
 * bounds, the outline's refusal (413).
 */
export async function readFileHtml(
  ctx: MdStoreContext,
  input: {
    principal: Principal;
    projectId: string;
    filename: string;
    conditions?: RequestConditions;
    /** Where links to other files lead: the console's routes unless told (a share's pages). */
    links?: RenderLinks;
    signal?: AbortSignal;
  },
): Promise<RenderedRead> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const conditions = conditionsOf(input.conditions);
  return withContentHold(ctx.contentBudget, input.signal, async (hold) => {
    const read = await currentText(ctx, project, input.filename, {
      signal: input.signal,
      proceed: (file) => checkReadConditions(file, conditions) === 'proceed',
      hold,
    });
    const file = toFileView(read.file, project, ctx.blobs.scheme);
    if (read.text === null) return { kind: 'not-modified', file };
    const mdx = isMdxFilename(read.file.filename);
    const targets = mdx
      ? []
      : await renderTargets(ctx.records, project.id, read.file.filename, read.text, (path) =>
          inPathScope(input.principal, path),
        );
    const html = await renderWithin(
      ctx.contentWork,
      {
        text: read.text,
        mdx,
        filename: read.file.filename,
        links: input.links ?? { kind: 'console', projectId: project.id },
        targets,
      },
      input.signal,
    );
    return { kind: 'html', file, html };
  });
}

/** The file a text is rendered as when the body names none: a Markdown file at the project's root. */
export const RENDER_DEFAULT_FILENAME = 'untitled.md';

/**
 * A render body `{"content": "…", "filename"?: "notes/a.md"}`: `content` a string (else 422 at it),
 * `filename` the upload rules (400, or 415 for another extension). Unknown fields are ignored.
 */
export function parseRenderBody(body: unknown): { content: string; filename: string } {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  if (!('content' in body)) throw new InvalidInputError([issueAt(['body', 'content'], 'missing')]);
  const result = v.safeParse(RenderRequestSchema, body, { abortPipeEarly: true });
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, ['body']));
  const filename = result.output.filename ?? RENDER_DEFAULT_FILENAME;
  if (result.output.filename !== undefined) checkUploadFilename(filename, ['body', 'filename']);
  return { content: result.output.content, filename };
}

/**
 * `POST …/render` (extensions §11): text that is not stored (an editor's unsaved text) rendered exactly
 * as `?format=html` renders a file of that name and content: the same renderer, the same resolution of
 * links and embeds against the project, the same bounds. At most the file size limit (413).
 */
export async function renderText(
  ctx: MdStoreContext,
  input: {
    principal: Principal;
    projectId: string;
    /** `{"content", "filename"?}`, or (HTTP) the deferred request body. */
    body: BodyOf<RenderRequestInput>;
    signal?: AbortSignal;
  },
): Promise<string> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const body = deferred<unknown>(input.body);
  body.check();
  const { content, filename } = parseRenderBody(await body.read());
  if (filename !== RENDER_DEFAULT_FILENAME) assertPathInScope(input.principal, filename);
  const size = utf8Size(content);
  if (size > ctx.settings.maxFileBytes) throw new ContentTooLargeError(ctx.settings.maxFileBytes);
  return withContentHold(ctx.contentBudget, input.signal, async (hold) => {
    await hold.reserve(textReservation(size));
    const mdx = isMdxFilename(filename);
    const targets = mdx
      ? []
      : await renderTargets(ctx.records, project.id, filename, content, (path) =>
          inPathScope(input.principal, path),
        );
    return renderWithin(
      ctx.contentWork,
      { text: content, mdx, filename, links: { kind: 'console', projectId: project.id }, targets },
      input.signal,
    );
  });
}
