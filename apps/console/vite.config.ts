import { defaultClientConditions, defineConfig } from 'vite';

/**
 * The console's build: one HTML page, hashed assets under `assets/` (served with a year's cache by the
 * server), the editor split into its own chunk so the first load stays small. No inline script or style
 * (the page runs under `script-src 'self'`), no module-preload polyfill (it would be inlined).
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  // The SDK (`@mdstore/client`) from its TypeScript sources, as the repository's tests read it: the
  // console's bundle needs no `dist` of it, and takes only what the console calls (no `node:` module:
  // Node's helpers are `@mdstore/client/node`, never imported here).
  resolve: { conditions: ['mdstore-source', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    // The editor's chunk (CodeMirror with Markdown and its embedded languages) is loaded on "Edit" only.
    chunkSizeWarningLimit: 600,
  },
});
