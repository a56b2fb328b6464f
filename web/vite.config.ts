/// <reference types="vitest/config" />
// Vite + Vitest configuration for the mmviz UI (run from the repo root with
// `--config web/vite.config.ts`).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: webRoot,
  // Relative asset URLs: the built site works from any path and from file-less static hosts.
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The wasm file must stay a separate asset (served as application/wasm).
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
  },
  // The engine worker is a module worker that loads the wasm package with a
  // dynamic import, so it needs ES output (IIFE cannot code-split).
  worker: { format: 'es' },
  server: { host: '127.0.0.1' },
  test: {
    root: webRoot,
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    environment: 'node',
    // The theme's token files are read as text (?raw) by the canvas palette and the contrast tests.
    css: { include: [/src\/styles\/.*\.css/], modules: { classNameStrategy: 'non-scoped' } },
    // The first jsdom render of the whole lab takes seconds on a shared 2-core machine (5 s, the default, timed out there).
    testTimeout: 20_000,
  },
});
