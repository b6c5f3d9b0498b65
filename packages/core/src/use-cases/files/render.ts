import { renderWithin } from '../../markdown/content-work.js';
import type { RenderLinks } from '../../markdown/render/links.js';
import { inPathScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { withContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import { renderTargets } from '../links/targets.js';
import { type FileView, toFileView } from '../views.js';
import { checkReadConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { currentText, isMdxFilename } from './parts.js';

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
