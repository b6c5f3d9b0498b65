export {
  headingsTask,
  inlineContentWork,
  outlineTask,
  renderTask,
  renderWithin,
} from './content-work.js';
export { headingsParseCost, outlineCost, renderCost } from './cost.js';
export { type DiffNames, diffCost, MAX_DIFF_COMPARISONS, unifiedDiff } from './diff.js';
export {
  type EditRequest,
  EditRequestSchema,
  EditSchema,
  HeadingPathSchema,
  MAX_EDITS,
  parseEditRequest,
} from './edit-schema.js';
export { type ApplyEditsOptions, applyEdits, applyEditsInTurns, type MarkdownEdit } from './edits.js';
export { frontMatterLength } from './front-matter.js';
export { consoleFileHref, encodeFilename } from './hrefs.js';
export {
  type ContentWorkLimits,
  INLINE_WORK_LIMITS,
  OUTLINE_MAX_LENGTH,
  POOL_STEP_WORK_LIMIT,
  POOL_WORK_LIMITS,
} from './limits.js';
export { LINES_LOC, type LineSlice, lineCount, parseLineRange, sliceLines } from './lines.js';
export { type Outline, type OutlineHeading, type OutlineLink, outline } from './outline.js';
export {
  type DocumentHeading,
  type DocumentLink,
  type MdxFallback,
  markdownParserCalls,
  type ParsedDocument,
  type ParseOptions,
  parseDocument,
} from './parse.js';
export type { HeadingLevel } from './parse-types.js';
export {
  attachmentHref,
  type FileLinkTarget,
  fileHref,
  type RenderLinks,
  type RenderTarget,
  resolveFileLink,
} from './render/links.js';
export {
  type RenderTask,
  renderHtml,
  shownText,
} from './render/render.js';
export { sanitizeRendered } from './render/sanitize.js';
export { type FindSectionOptions, findSection, type HeadingPath, type Section } from './sections.js';
export { githubSlug, HeadingIds } from './slug.js';
export {
  newWorkBudget,
  OCCURRENCE_COST,
  SCAN_COST,
  STEP_WORK_LIMIT,
  spendWork,
  WORK_BUDGET,
  type WorkBudget,
} from './work-budget.js';
