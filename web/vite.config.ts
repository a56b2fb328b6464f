/// <reference types="vitest/config" />
// Vite + Vitest configuration for the mmviz UI (run from the repo root with
// `--config web/vite.config.ts`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/** The build's id: MMVIZ_BUILD, else the commit it is built from and today (UTC), else "dev". */
function buildId(): string {
  if (process.env.MMVIZ_BUILD) return process.env.MMVIZ_BUILD;
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: webRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return `${commit} ${new Date().toISOString().slice(0, 10)}`;
  } catch {
    return 'dev';
  }
}

const BUILD = buildId();

/**
 * Writes sw.js, the service worker that keeps the lab working offline (src/offline/serviceWorker.js):
 * the build's id and the list of every file the build wrote go in front of it.
 */
function offlinePlugin(): Plugin {
  return {
    name: 'mmviz-offline',
    apply: 'build',
    generateBundle(_options, bundle) {
      // Not the service worker itself, and not the source maps if any.
      // index.html is written after this hook: it is the page, './', and named as well.
      const files = Object.keys(bundle).filter((f) => f !== 'sw.js' && f !== 'index.html' && !f.endsWith('.map'));
      const assets = ['./', './index.html', ...files.map((f) => `./${f}`)];
      const source = readFileSync(fileURLToPath(new URL('./src/offline/serviceWorker.js', import.meta.url)), 'utf8');
      this.emitFile({
        type: 'asset',
        fileName: 'sw.js',
        source: `const BUILD = ${JSON.stringify(BUILD.replace(/\s+/g, '-'))};\nconst ASSETS = ${JSON.stringify(assets)};\n${source}`,
      });
    },
  };
}

/**
 * The built site's Content-Security-Policy (web/README.md, "Content-Security-Policy"): everything
 * from the site's own origin, no inline script or style, `'wasm-unsafe-eval'` so that the engine's
 * WebAssembly may compile, and images also from `data:` (the canvases an SVG export embeds, the
 * empty favicon) and `blob:` (the SVG drawn onto a canvas for a PNG export). Nothing else is loosened.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * Writes the policy into the built index.html as the first element of <head> (a meta tag: it goes
 * wherever the files go, to any static host, with no server configuration). Build only: the dev
 * server's hot reload needs inline script.
 */
function cspPlugin(): Plugin {
  return {
    name: 'mmviz-csp',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY }, injectTo: 'head-prepend' }],
    },
  };
}

export default defineConfig({
  root: webRoot,
  // Relative asset URLs: the built site works from any path and from file-less static hosts.
  base: './',
  plugins: [react(), offlinePlugin(), cspPlugin()],
  define: {
    __MMVIZ_BUILD__: JSON.stringify(BUILD),
    // Where the lab is published, for the links it copies (README: "Publish the lab").
    __MMVIZ_PUBLIC_URL__: JSON.stringify(process.env.MMVIZ_PUBLIC_URL ?? ''),
  },
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
