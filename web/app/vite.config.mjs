// Builds the web app into dist/web/app, served by the app front door under /app/ (DESIGN §7).
// Pages are separate chunks (dynamic import in src/pages.ts), so no page pulls more script than it needs.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../../dist/web/app', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Hashed names under assets/ are served with a year-long immutable cache; index.html with no-cache.
    assetsDir: 'assets',
    reportCompressedSize: false,
    // The chunk graph, read by test/web/bundle-budget.test.ts to hold each page to its script budget.
    manifest: true,
    chunkSizeWarningLimit: 600,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
