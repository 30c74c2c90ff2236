// Vite build: the four window pages (bar, graph, editor, settings) as a multi-page app into ui/dist.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
    // Inline nothing as data: scripts; assets stay files (CSP: script-src 'self').
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        bar: resolve(here, 'bar.html'),
        graph: resolve(here, 'graph.html'),
        editor: resolve(here, 'editor.html'),
        settings: resolve(here, 'settings.html'),
      },
    },
  },
});
