import { defineConfig } from 'vite';

/**
 * The console's build: one HTML page, hashed assets under `assets/` (served with a year's cache by the
 * server), the editor split into its own chunk so the first load stays small. No inline script or style
 * (the page runs under `script-src 'self'`), no module-preload polyfill (it would be inlined).
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
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
