import sanitizeHtml from 'sanitize-html';

/**
 * The one sanitiser of rendered HTML (extensions §11): sanitize-html, an allow-list over a real HTML
 * parser (htmlparser2), kept up by Apostrophe since 2013, and pure JavaScript: it runs in the core and
 * in a worker thread without a DOM (DOMPurify needs one, jsdom on a server). What is allowed:
 * - text-level and block elements of Markdown and of the usual raw HTML in READMEs (no `main`, `nav`,
 *   `header`, `footer`, `aside`: the page that shows the fragment owns its landmarks; no `form`,
 *   `input`, `iframe`, `object`, `embed`, `base`, `meta`, `link`, `style`, `script`, `svg`, `math`);
 * - attributes only from a list: `href`/`title` on links, `src`/`alt`/`title`/`width`/`height` on
 *   images, `id` on headings, `start` on ordered lists, `language-*` classes on code, `broken-link` on
 *   spans (an unresolved wiki link); never `style` or an event handler;
 * - URLs: `http:`, `https:`, `mailto:` and relative ones; images also `data:image/` of raster types
 *   (an image cannot run script; SVG is left out all the same).
 * `script`, `style`, `textarea`, `noscript`… are dropped with their content; other refused tags leave
 * their text.
 */

export type HrefRewrite = (href: string) => string | null;

/** How links' `href`s and images' `src`s are rewritten (null: the link loses its target). */
export interface UrlRewrites {
  readonly href: HrefRewrite;
  readonly src?: (src: string) => string;
}

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const;
const LANDMARKS = new Set(['main', 'nav', 'header', 'footer', 'aside']);
const RASTER_DATA_IMAGE = /^data:image\/(?:png|gif|jpeg|webp|avif)[;,]/i;
/** Heading ids as the slug rule makes them (letters, marks, digits, `-`, `_`). */
const HEADING_ID = /^[\p{L}\p{M}\p{N}_-]{1,200}$/u;

const BASE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    ...sanitizeHtml.defaults.allowedTags.filter((tag) => !LANDMARKS.has(tag)),
    'img',
    'del',
    'ins',
    'details',
    'summary',
  ],
  allowedAttributes: {
    a: ['href', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
    code: ['class'],
    ...Object.fromEntries(HEADINGS.map((tag) => [tag, ['id']])),
  },
  allowedClasses: { code: ['language-*'], span: ['broken-link'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  enforceHtmlBoundary: false,
  parseStyleAttributes: false,
};

const keepHeadingId = (tagName: string, attribs: sanitizeHtml.Attributes) => {
  const { id, ...rest } = attribs;
  return { tagName, attribs: id !== undefined && HEADING_ID.test(id) ? { ...rest, id } : rest };
};

/**
 * Sanitised HTML; each link's `href` goes through `rewrite.href` (null: the link loses its target), each
 * image's `src` through `rewrite.src`, before the allow-list judges them.
 */
export function sanitizeRendered(html: string, rewrite: HrefRewrite | UrlRewrites): string {
  const { href: rewriteHref, src: rewriteSrc } = typeof rewrite === 'function' ? { href: rewrite } : rewrite;
  return sanitizeHtml(html, {
    ...BASE_OPTIONS,
    transformTags: {
      a: (tagName, attribs) => {
        const { href, ...rest } = attribs;
        const rewritten = href === undefined ? null : rewriteHref(href);
        return { tagName, attribs: rewritten === null ? rest : { ...rest, href: rewritten } };
      },
      img: (tagName, attribs) => {
        const { src: written, ...rest } = attribs;
        const src = written === undefined || rewriteSrc === undefined ? written : rewriteSrc(written);
        const dataUrl = src !== undefined && /^\s*data:/i.test(src);
        const keep = src !== undefined && (!dataUrl || RASTER_DATA_IMAGE.test(src.trim()));
        return { tagName, attribs: keep ? { ...rest, src } : rest };
      },
      ...Object.fromEntries(HEADINGS.map((tag) => [tag, keepHeadingId])),
    },
  });
}
