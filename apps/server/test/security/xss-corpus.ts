import { readFileSync } from 'node:fs';

/**
 * The XSS corpus (xss-vectors.txt): each vector is the text between two lines of exactly `%%%%`; the
 * comment lines before the first are not one.
 */
export function xssVectors(): string[] {
  const text = readFileSync(new URL('./xss-vectors.txt', import.meta.url), 'utf8');
  return text
    .split(/^%%%%$/m)
    .slice(1)
    .map((vector) => vector.replace(/^\n/, '').replace(/\n$/, ''))
    .filter((vector) => vector.trim() !== '');
}

/** Elements the sanitiser never lets through (extensions §11), whatever the vector. */
export const FORBIDDEN_ELEMENTS = [
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'form',
  'input',
  'button',
  'select',
  'textarea',
  'base',
  'meta',
  'link',
  'svg',
  'math',
  'template',
  'video',
  'audio',
  'source',
  'body',
  'title',
  'xmp',
  'noscript',
  'plaintext',
  'isindex',
  'keygen',
  'marquee',
];

/** URL attributes, and what a URL in them must not be (after the browser's own stripping). */
export const URL_ATTRIBUTES = [
  'href',
  'src',
  'action',
  'formaction',
  'xlink:href',
  'poster',
  'background',
  'data',
  'srcset',
];
const SAFE_DATA_IMAGE = /^data:image\/(?:png|gif|jpeg|webp|avif)[;,]/i;

/** Whether a URL attribute's value is one that could run script or show a document of its own. */
export function dangerousUrl(element: string, name: string, value: string): boolean {
  // Browsers drop ASCII whitespace and control characters inside the scheme.
  const compact = value.replace(/[\u0000-\u0020]/g, '').toLowerCase();
  if (/^(?:javascript|vbscript|livescript):/.test(compact)) return true;
  if (compact.startsWith('data:'))
    return !(element === 'img' && name === 'src' && SAFE_DATA_IMAGE.test(compact));
  return false;
}
