import markdownIt, { type Token } from 'markdown-it';
import { frontMatterLength } from '../front-matter.js';
import { type Env, plainText } from '../parse-commonmark.js';
import { HeadingIds } from '../slug.js';
import { collapseWhiteSpace } from '../text.js';
import { fileHref, type RenderLinks, resolveFileLink } from './links.js';
import { sanitizeRendered } from './sanitize.js';

/**
 * The one renderer of a file as HTML (extensions §11): the server's own Markdown parser (markdown-it,
 * CommonMark preset, as parse-commonmark.ts) with its safe link defaults (`javascript:`, `vbscript:`,
 * `file:` and non-image `data:` destinations are not made links), headings given ids by the slug rule
 * (slug.ts) from the same heading text the parse gives, then the one sanitiser (sanitize.ts), which also
 * makes relative links to `.md`/`.mdx` files of the project console or share links. Front matter is not
 * rendered; `.mdx` is shown as its escaped source (its components are code we do not run).
 */

export interface RenderTask {
  readonly text: string;
  readonly mdx: boolean;
  /** The file rendered, for resolving its relative links. */
  readonly filename: string;
  readonly links: RenderLinks;
}

interface RenderEnv extends Env {
  readonly ids: HeadingIds;
}

const md = markdownIt('commonmark');
md.core.ruler.push('heading_ids', (state) => {
  const { ids } = state.env as RenderEnv;
  state.tokens.forEach((token: Token, index: number) => {
    if (token.type !== 'heading_open') return;
    const inline = state.tokens[index + 1]!;
    token.attrSet('id', ids.next(collapseWhiteSpace(plainText(inline.children ?? []))));
  });
});

/** The text without its BOM and front matter: what is shown. */
export function shownText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.slice(frontMatterLength(body));
}

/** The sanitised HTML fragment of a file. */
export function renderHtml(task: RenderTask): string {
  const text = shownText(task.text);
  if (task.mdx) return `<pre class="mdx-source"><code>${md.utils.escapeHtml(text)}</code></pre>\n`;
  const env: RenderEnv = { ids: new HeadingIds() };
  return sanitizeRendered(md.render(text, env), (href) => {
    const target = resolveFileLink(href, task.filename);
    return target ? fileHref(task.links, target, task.filename) : href;
  });
}
