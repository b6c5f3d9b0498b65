import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type Router } from 'express';
import { PrecompressedAsset } from '../reference/compressed.js';

/**
 * The console's built files (`apps/console/dist`, made by `npm run build`): the same number of folders
 * up from `src/http/console` and from `dist/http/console`, so the source and the build find them alike.
 */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../../console/dist/', import.meta.url));

/**
 * The console's Content-Security-Policy (extensions §11): scripts only from the server's own files (no
 * inline script, no `eval`), requests only to the server itself, nothing from anywhere else. Styles come
 * from the server's stylesheet and from the `<style>` elements CodeMirror makes, which carry the page's
 * nonce (new on every load, read by the editor from `<meta name="csp-nonce">`); any other inline style,
 * such as a `style` attribute in a rendered file, is refused. Images: the server's, `data:`, and the
 * `blob:` URLs the console makes of attachments it read with the key (nothing from elsewhere).
 */
export const consoleCsp = (nonce: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    // `blob:`: the images of attachments, read with the key and shown through object URLs.
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

/** Hashed asset names (`index-Clun_wD0.js`): their content never changes under that name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

interface Built {
  /** The page, with `{{nonce}}` where each answer puts its own. */
  readonly page: string;
  readonly assets: ReadonlyMap<string, { asset: PrecompressedAsset; type: string }>;
}

async function loadBuilt(dir: string): Promise<Built | null> {
  let html: string;
  try {
    html = await readFile(path.join(dir, 'index.html'), 'utf8');
  } catch {
    return null;
  }
  const assets = new Map<string, { asset: PrecompressedAsset; type: string }>();
  const names = await readdir(path.join(dir, 'assets')).catch(() => [] as string[]);
  for (const name of names) {
    const type = TYPES[path.extname(name)];
    if (type === undefined) continue;
    const text = await readFile(path.join(dir, 'assets', name), 'utf8');
    // The name carries the content's hash: it is the ETag too.
    assets.set(name, { asset: new PrecompressedAsset(text, name), type });
  }
  const page = html.replace('<head>', '<head>\n<meta name="csp-nonce" content="{{nonce}}">');
  return { page, assets };
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mdstore</title></head>
<body><main><h1>mdstore</h1><p>The console is not built on this server: run <code>npm run build</code>.
The API is at <a href="/docs">/docs</a>.</p></main></body></html>
`;

/**
 * `GET /` (the console, no key: it asks for one) and `GET /assets/{name}` (its hashed scripts and
 * styles, cached for a year). The files are read once, on the first request, and the assets compressed
 * once (brotli and gzip, as `/docs` is served).
 */
export function consoleRoutes(options: { dir?: string } = {}): Router {
  const dir = options.dir ?? CONSOLE_DIST;
  let built: Promise<Built | null> | undefined;
  const files = async () => {
    built ??= loadBuilt(dir);
    const found = await built;
    // Not built yet: looked for again on the next request, so a build made meanwhile is served.
    if (found === null) built = undefined;
    return found;
  };
  const router = express.Router({ caseSensitive: true, strict: true });
  router.get('/', async (_req: Request, res: Response) => {
    const found = await files();
    const nonce = randomBytes(18).toString('base64');
    res.setHeader('Content-Security-Policy', consoleCsp(nonce));
    // A new nonce each time: never stored (the page is half a kilobyte; its assets are what is cached).
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.type('text/html; charset=utf-8');
    if (found === null) {
      res.status(503).send(NOT_BUILT);
      return;
    }
    res.send(found.page.replace('{{nonce}}', nonce));
  });
  router.get('/assets/:name', async (req: Request, res: Response, next) => {
    const found = (await files())?.assets.get(String(req.params.name));
    if (found === undefined) {
      next();
      return;
    }
    res.setHeader('Cache-Control', IMMUTABLE);
    res.type(found.type);
    await found.asset.send(req, res);
  });
  return router;
}
