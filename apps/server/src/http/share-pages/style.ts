/**
 * The share pages' stylesheet (extensions §11), served as `/share-assets/share.css` from the server's
 * own files (the pages' CSP allows styles from `'self'` only). Readable text on a phone (fluid width,
 * no horizontal scroll but in code), light and dark, and a clean print (no chrome, links spelled out).
 */
export const SHARE_CSS = `:root {
  color-scheme: light dark;
  --text: #1f2328;
  --muted: #59636e;
  --line: #d1d9e0;
  --code: #f6f8fa;
  --link: #0969da;
  --page: #ffffff;
}
@media (prefers-color-scheme: dark) {
  :root { --text: #e6edf3; --muted: #9198a1; --line: #3d444d; --code: #151b23; --link: #4493f8; --page: #0d1117; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0;
  background: var(--page);
  color: var(--text);
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  overflow-wrap: break-word;
}
header, main, footer { max-width: 46rem; margin: 0 auto; padding: 0 1rem; }
header { padding-top: 1rem; color: var(--muted); font-size: 0.875rem; border-bottom: 1px solid var(--line); }
footer { padding: 2rem 1rem; color: var(--muted); font-size: 0.875rem; }
main { padding-top: 1rem; padding-bottom: 1rem; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.5em 0 0.5em; }
h1, h2 { padding-bottom: 0.3em; border-bottom: 1px solid var(--line); }
a { color: var(--link); }
img { max-width: 100%; height: auto; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.875em; }
code { background: var(--code); padding: 0.1em 0.3em; border-radius: 4px; }
pre { background: var(--code); padding: 1rem; border-radius: 6px; overflow-x: auto; }
pre code { background: none; padding: 0; }
blockquote { margin: 0; padding: 0 1em; color: var(--muted); border-left: 0.25em solid var(--line); }
table { border-collapse: collapse; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: 0.4em 0.8em; }
ul.files { padding-left: 1.2em; }
ul.files li { margin: 0.3em 0; }
@media print {
  :root { --text: #000; --muted: #444; --line: #bbb; --code: #f4f4f4; --link: #000; --page: #fff; }
  body { font-size: 11pt; }
  header, footer { display: none; }
  main { max-width: none; padding: 0; }
  a[href^="http"]::after { content: " (" attr(href) ")"; font-size: 0.85em; }
  pre { white-space: pre-wrap; }
  h1, h2, h3 { break-after: avoid; }
  pre, blockquote, img, table { break-inside: avoid; }
}
`;
