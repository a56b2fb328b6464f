// The browser for an e2e file of its own: the built site (web/dist) on a loopback server and a
// headless Debian Chromium (never a downloaded browser). A file calls useBrowser() inside its
// describe(); the returned newLab() opens a page (and a Lab page object) in that browser.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, afterEach, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { Lab } from './helper.mjs';
import { builtPolicy, checkGuards, guardContext } from './guard.mjs';
import { startStaticServer } from './server.mjs';

const distDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/**
 * Starts a server and a browser before the calling suite's tests and stops them after.
 * @param {{ viewport?: { width: number, height: number } }} [options] the pinned viewport (default 1280x720)
 */
export function useBrowser({ viewport = { width: 1280, height: 720 } } = {}) {
  const state = { server: null, context: null, userDataDir: null, baseUrl: '', pageErrors: [] };
  before(async () => {
    if (process.env.MMVIZ_E2E_URL) {
      state.baseUrl = process.env.MMVIZ_E2E_URL;
    } else {
      if (!existsSync(join(distDir, 'index.html'))) {
        throw new Error('web/dist is not built: run `npx vite build --config web/vite.config.ts` (or `npm run build`) first');
      }
      builtPolicy(distDir); // throws unless the build wrote its CSP meta tag
      state.server = await startStaticServer(distDir);
      state.baseUrl = state.server.url;
    }
    state.userDataDir = mkdtempSync(join(tmpdir(), 'mmviz-e2e-'));
    state.context = await chromium.launchPersistentContext(state.userDataDir, {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
      viewport,
    });
    await state.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(state.baseUrl).origin });
    await guardContext(state.context, state.baseUrl);
    for (const p of state.context.pages()) await p.close();
  });
  // A request off the lab's origin or a CSP violation fails the test that caused it.
  afterEach(() => checkGuards());
  after(async () => {
    await state.context?.close();
    await state.server?.close();
    if (state.userDataDir) rmSync(state.userDataDir, { recursive: true, force: true });
  });
  return {
    /** Page errors and unexpected dialogs seen so far. */
    pageErrors: state.pageErrors,
    /** A fresh page (and Lab) for one test; a dialog or an uncaught error is recorded. */
    async newLab() {
      const page = await state.context.newPage();
      page.on('pageerror', (e) => state.pageErrors.push(e.message));
      page.on('dialog', (d) => {
        state.pageErrors.push(`unexpected dialog: ${d.message()}`);
        void d.dismiss();
      });
      return new Lab(page, state.baseUrl);
    },
    /** A page in a new browser context of its own (new profile: no storage, no history), as a recipient of a link has; close() when done. */
    async freshLab() {
      const dir = mkdtempSync(join(tmpdir(), 'mmviz-e2e-fresh-'));
      const ctx = await chromium.launchPersistentContext(dir, {
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
        viewport,
      });
      await guardContext(ctx, state.baseUrl);
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      page.on('pageerror', (e) => state.pageErrors.push(e.message));
      return {
        lab: new Lab(page, state.baseUrl),
        close: async () => {
          await ctx.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}
