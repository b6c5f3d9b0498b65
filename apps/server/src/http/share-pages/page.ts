import { baseName, encodeFilename, type FileView } from '@mdstore/core';

/** The HTML of the share pages (extensions §11): a rendered file, or a folder's index. */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export const SHARE_STYLESHEET = '/share-assets/share.css';

function page(title: string, heading: string, body: string, footer: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${SHARE_STYLESHEET}">
</head>
<body>
<header><p>${escapeHtml(heading)}</p></header>
<main>
${body}</main>
<footer>${footer}</footer>
</body>
</html>
`;
}

/** A shared file: its sanitised fragment, and a link to its bytes. */
export function filePage(filename: string, fragment: string): string {
  return page(
    baseName(filename),
    filename,
    `<article>\n${fragment}</article>\n`,
    '<a href="?raw=1">Raw file</a>',
  );
}

/** A folder share's index: each file at `/s/{token}/{filename}`. */
export function indexPage(token: string, prefix: string, files: readonly FileView[], more: boolean): string {
  const items = files
    .map((file) => {
      const href = `/s/${encodeURIComponent(token)}/${encodeFilename(file.filename)}`;
      return `<li><a href="${escapeHtml(href)}">${escapeHtml(file.filename.slice(prefix.length))}</a></li>`;
    })
    .join('\n');
  const list = files.length === 0 ? '<p>No files.</p>\n' : `<ul class="files">\n${items}\n</ul>\n`;
  const rest = more ? `<p>Only the first ${files.length} files are listed.</p>\n` : '';
  return page(prefix, prefix, `<h1>${escapeHtml(prefix)}</h1>\n${list}${rest}`, 'Shared folder');
}
