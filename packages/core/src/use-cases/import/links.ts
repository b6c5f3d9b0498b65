/**
 * Markdown link destinations in a text, for the importers that rename files: `[text](dest)` and
 * `![alt](dest)` outside fenced code blocks and code spans, where `dest` has no spaces (exports
 * percent-encode them) and at most balanced parentheses, as CommonMark allows. One pass over the text, linear in its size.
 */

const LINK = /(!?\[[^\]\n]*\]\()((?:[^()\s]|\([^()\s]*\))+)(\))/g;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CODE_SPAN = /`[^`\n]*`/g;

/** `text` with each link destination replaced by `rewrite(dest)` (its own result when undefined). */
export function rewriteLinkDestinations(text: string, rewrite: (dest: string) => string | undefined): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const opened = FENCE.exec(line);
    if (fence !== undefined) {
      if (opened && opened[1]?.[0] === fence[0] && (opened[1]?.length ?? 0) >= fence.length)
        fence = undefined;
      continue;
    }
    if (opened) {
      fence = opened[1];
      continue;
    }
    if (!line.includes('](')) continue;
    lines[i] = rewriteOutsideCodeSpans(line, rewrite);
  }
  return lines.join('\n');
}

function rewriteOutsideCodeSpans(line: string, rewrite: (dest: string) => string | undefined): string {
  let out = '';
  let last = 0;
  for (const span of line.matchAll(CODE_SPAN)) {
    out += rewriteLinks(line.slice(last, span.index), rewrite) + span[0];
    last = span.index + span[0].length;
  }
  return out + rewriteLinks(line.slice(last), rewrite);
}

const rewriteLinks = (part: string, rewrite: (dest: string) => string | undefined): string =>
  part.replace(LINK, (whole, open: string, dest: string, close: string) => {
    const replaced = rewrite(dest);
    return replaced === undefined ? whole : `${open}${replaced}${close}`;
  });

/** Whether a destination is a path inside the archive (not a URL, a mail link, an anchor or absolute). */
export const isRelativePath = (dest: string): boolean =>
  !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(dest) && !dest.startsWith('#') && !dest.startsWith('/');

/** Splits `path#anchor`; the anchor keeps its `#`. */
export function splitAnchor(dest: string): { path: string; anchor: string } {
  const at = dest.indexOf('#');
  return at < 0 ? { path: dest, anchor: '' } : { path: dest.slice(0, at), anchor: dest.slice(at) };
}

/** Percent-encodes each segment (spaces, parentheses and the rest), keeping `/`. */
export const encodePath = (path: string): string =>
  path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/\(/g, '%28').replace(/\)/g, '%29'))
    .join('/');

/** Percent-decodes, or undefined when the text is not valid percent-encoding. */
export function decodePath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}
