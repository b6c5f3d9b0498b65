import markdownIt, { type StateCore, type Token } from 'markdown-it';
import { relativeDestination } from '../../links/paths.js';
import { frontMatterLength } from '../front-matter.js';
import { type Env, plainText } from '../parse-commonmark.js';
import { githubSlug, HeadingIds } from '../slug.js';
import { collapseWhiteSpace } from '../text.js';
import { findWikiLinks, type WikiLink } from '../wiki-links.js';
import { attachmentHref, fileHref, type RenderLinks, type RenderTarget, resolveFileLink } from './links.js';
import { sanitizeRendered } from './sanitize.js';

/**
 * The one renderer of a file as HTML (extensions §11, §12): the server's own Markdown parser (markdown-it,
 * CommonMark preset, as parse-commonmark.ts) with its safe link defaults (`javascript:`, `vbscript:`,
 * `file:` and non-image `data:` destinations are not made links), headings given ids by the slug rule
 * (slug.ts) from the same heading text the parse gives, wiki links and embeds found in the same text
 * runs as the link index finds them (wiki-links.ts) and shown as their targets resolved beforehand
 * (`RenderTask.targets`), then the one sanitiser (sanitize.ts), which also makes relative links to
 * `.md`/`.mdx` files of the project console or share links, and other relative links and images links
 * to the project's attachments. Front matter is not rendered; `.mdx` is shown as its escaped source (its
 * components are code we do not run).
 *
 * Wiki links (`[[target]]`, `[[target|text]]`, `[[target#heading]]`, `[[#heading]]`) and embeds
 * (`![[target]]`):
 * - to a file: a link to it (its heading's id by the slug rule); `![[note]]` too (no inline embed);
 * - to an attachment: `![[image.png]]` of an `image/*` attachment is an `<img>` of its bytes (its text,
 *   or `|300` / `|300x200` as Obsidian writes a size); any other is a link to its bytes;
 * - unresolved (`broken`): its text in `<span class="broken-link">`, no link;
 * - not resolved beforehand (absent from `targets`): its text alone.
 * The HTML never inlines an attachment's bytes (an SVG is an `<img>`, which runs no script).
 */

export interface RenderTask {
  readonly text: string;
  readonly mdx: boolean;
  /** The file rendered, for resolving its relative links. */
  readonly filename: string;
  readonly links: RenderLinks;
  /** Wiki links' and embeds' targets resolved beforehand, by target as written (`WikiLink.target`). */
  readonly targets?: ReadonlyArray<readonly [string, RenderTarget]>;
}

interface RenderEnv extends Env {
  readonly ids: HeadingIds;
  readonly task: RenderTask;
  readonly targets: ReadonlyMap<string, RenderTarget>;
}

const md = markdownIt('commonmark');
// Heading ids from the text as written (a wiki link's brackets included), as the link index's slugs are;
// then wiki links; both before `text_join`, where escapes are still their own tokens, as in the link
// index's parse, so an escaped `\[\[` is never a wiki link here either.
md.core.ruler.before('text_join', 'heading_ids', (state) => {
  const { ids } = state.env as RenderEnv;
  state.tokens.forEach((token: Token, index: number) => {
    if (token.type !== 'heading_open') return;
    const inline = state.tokens[index + 1]!;
    token.attrSet('id', ids.next(collapseWhiteSpace(plainText(inline.children ?? []))));
  });
});
md.core.ruler.before('text_join', 'wiki_links', (state) => {
  for (const block of state.tokens) {
    if (block.type === 'inline' && block.children) block.children = withWikiLinks(state, block.children);
  }
});

/** Inline tokens with the wiki links of their text runs (outside link texts) made links or images. */
function withWikiLinks(state: StateCore, children: Token[]): Token[] {
  const out: Token[] = [];
  let inLink = 0;
  for (const child of children) {
    if (child.type === 'link_open') inLink++;
    else if (child.type === 'link_close') inLink--;
    const found = child.type === 'text' && inLink === 0 ? findWikiLinks(child.content, { embeds: true }) : [];
    if (found.length === 0) {
      out.push(child);
      continue;
    }
    const source = child.content;
    let at = 0;
    for (const wiki of found) {
      const start = wiki.embed ? wiki.index - 1 : wiki.index;
      const end = source.indexOf(']]', wiki.index + 2) + 2;
      if (start > at) out.push(text(state, source.slice(at, start)));
      out.push(...wikiTokens(state, wiki));
      at = end;
    }
    if (at < source.length) out.push(text(state, source.slice(at)));
  }
  return out;
}

function text(state: StateCore, content: string): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  return token;
}

/** Obsidian's size of an embedded image: `|300` (width) or `|300x200`. */
const IMAGE_SIZE = /^(\d{1,5})(?:x(\d{1,5}))?$/;

function wikiTokens(state: StateCore, wiki: WikiLink): Token[] {
  const env = state.env as RenderEnv;
  const target = env.targets.get(wiki.target);
  if (target === undefined) return [text(state, wiki.text)];
  if (target.kind === 'broken') {
    const open = new state.Token('broken_open', 'span', 1);
    open.attrSet('class', 'broken-link');
    return [open, text(state, wiki.text), new state.Token('broken_close', 'span', -1)];
  }
  let href: string | null;
  if (target.kind === 'attachment') {
    href = attachmentHref(env.task.links, target.path, env.task.filename);
    if (wiki.embed && target.image) {
      const image = new state.Token('image', 'img', 0);
      const size = wiki.text === wiki.target ? null : IMAGE_SIZE.exec(wiki.text);
      image.attrs = [
        ['src', href],
        ['alt', ''],
      ];
      if (size) {
        image.attrSet('width', size[1]!);
        if (size[2]) image.attrSet('height', size[2]);
      }
      image.children = [text(state, size ? target.path : wiki.text)];
      return [image];
    }
  } else {
    const anchor = target.heading ? githubSlug(target.heading) : null;
    href = fileHref(env.task.links, { filename: target.filename, anchor }, env.task.filename);
  }
  // A link that must lose its target (outside a share) keeps its text.
  if (href === null) return [text(state, wiki.text)];
  const open = new state.Token('link_open', 'a', 1);
  open.attrSet('href', href);
  return [open, text(state, wiki.text), new state.Token('link_close', 'a', -1)];
}

/** The text without its BOM and front matter: what is shown. */
export function shownText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.slice(frontMatterLength(body));
}

/** The sanitised HTML fragment of a file. */
export function renderHtml(task: RenderTask): string {
  const text = shownText(task.text);
  if (task.mdx) return `<pre class="mdx-source"><code>${md.utils.escapeHtml(text)}</code></pre>\n`;
  const env: RenderEnv = { ids: new HeadingIds(), task, targets: new Map(task.targets ?? []) };
  // A relative path to anything but a file is an attachment's (extensions §12).
  const attachment = (url: string): string | null => {
    // Raw white space or a control character: not a path a browser would read as written.
    if (/[\u0000-\u0020\u007f]/.test(url)) return null;
    const destination = relativeDestination(url, task.filename);
    if (!destination?.path) return null;
    return attachmentHref(task.links, destination.path, task.filename);
  };
  return sanitizeRendered(md.render(text, env), {
    href: (href) => {
      const target = resolveFileLink(href, task.filename);
      if (target) return fileHref(task.links, target, task.filename);
      return attachment(href) ?? href;
    },
    src: (src) => attachment(src) ?? src,
  });
}
