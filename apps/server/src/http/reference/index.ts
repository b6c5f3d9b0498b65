import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import express, { type Router } from 'express';
import { PrecompressedAsset } from './compressed.js';

const require = createRequire(import.meta.url);

/** Redoc's self-contained browser bundle, from the `redoc` package: served from here, never a CDN. */
const REDOC_BUNDLE = require.resolve('redoc/bundles/redoc.standalone.js');
const REDOC_VERSION = (require('redoc/package.json') as { version: string }).version;
/**
 * The one thing the bundle fetches from elsewhere: the logo beside "API docs by Redocly" in its sidebar.
 * It is served with an empty image in its place (the attribution link stays), so the page loads nothing
 * from outside and breaks no Content-Security-Policy.
 */
const REDOC_REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = 'data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22/%3E';

let bundle: PrecompressedAsset | undefined;
function redocBundle(): PrecompressedAsset {
  if (bundle === undefined) {
    const original = readFileSync(REDOC_BUNDLE, 'utf8');
    // Should a newer Redoc load something else, the Chromium test of /docs names it.
    bundle = new PrecompressedAsset(
      original.replaceAll(REDOC_REMOTE_LOGO, EMPTY_IMAGE),
      `redoc-${REDOC_VERSION}`,
    );
  }
  return bundle;
}

/**
 * What the page may load: its own script and the document, nothing from anywhere else. The browser then
 * enforces that the reference works offline. Redoc injects its styles and runs search in a blob worker.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mdstore API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="/openapi.json" hide-hostname="true"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`;

/**
 * `GET /docs` (the API reference rendered by Redoc in the browser), its script, and `GET /openapi.json`.
 * No key: the reference is public, like the interface it describes.
 */
export function referenceRoutes(options: { document: () => unknown }): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  let document: PrecompressedAsset | undefined;
  router.get('/openapi.json', async (req, res) => {
    document ??= new PrecompressedAsset(JSON.stringify(options.document()));
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/json; charset=utf-8');
    await document.send(req, res);
  });
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/html; charset=utf-8').send(PAGE);
  });
  router.get('/docs/redoc.standalone.js', async (req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/javascript; charset=utf-8');
    await redocBundle().send(req, res);
  });
  return router;
}
