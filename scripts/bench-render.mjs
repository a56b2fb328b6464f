#!/usr/bin/env node
// Render benchmark of the dense (canvas) views in headless Chromium: builds web/bench/render.html
// (a separate Vite entry, production mode, not part of the app's bundle) into
// artifacts/bench-render/, serves it on loopback, and runs it with playwright-core and Debian's
// /usr/bin/chromium (fresh profile, no sandbox, as web/e2e/run.mjs does).
//
//   node scripts/bench-render.mjs [--runs 21] [--processes 1] [--dpr 1] [--engine] [--lanes 2] [--trace] [--screenshot] [--no-build]
//
// --lanes 2 draws two runs side by side, each column half as wide, as the lab's A/B mode does.
//
// --engine renders real frames: the wasm engine (web/src/wasm-pkg, `npm run build:wasm`) runs
// scripts/bench-frame-64cpu.toml in the page and its frame() output is rendered (consecutive steps
// from the middle of the run; mode full: far seeks over the run) instead of synthetic arrays.
//
// --trace also records a Chromium trace of each mode and reports the renderer main thread's CPU
// time per step (the trace's thread durations of the tasks from the step's animation frame to the
// task after its paint): less sensitive than wall time to other processes on a shared machine.
//
// Prints the median, min and max time to render one step (fresh typed arrays of a 64-CPU frame
// in -> React commit -> canvases drawn -> the browser's style/layout/paint of that frame).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../web/e2e/server.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(repo, 'artifacts', 'bench-render');
const shotDir = join(repo, 'artifacts', 'screenshots');

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const flag = (name) => args.includes(`--${name}`);
const runs = Number(opt('runs', '21'));
const processes = Number(opt('processes', '1'));
const dpr = Number(opt('dpr', '1'));
const source = (flag('engine') ? '&source=engine' : '') + (opt('lanes', '1') === '2' ? '&lanes=2' : '');

if (!flag('no-build')) {
  const { build } = await import('vite');
  await build({
    configFile: join(repo, 'web', 'vite.config.ts'),
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      rollupOptions: { input: { render: join(repo, 'web', 'bench', 'render.html') } },
    },
  });
}

/**
 * CPU time (ms) of the renderer main thread for each step of a trace: the thread durations (tdur) of the
 * top-level tasks from the one holding the step's start mark to the one holding its end mark.
 */
function mainThreadCpuPerStep(trace) {
  const events = trace.traceEvents ?? trace;
  const threadName = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args?.name);
  const marks = new Map();
  let main = null;
  for (const e of events) {
    const m = /^bench-step-(\d+)-(start|end)$/.exec(e.name ?? '');
    if (!m) continue;
    // The marks are on the renderer's main thread.
    main ??= `${e.pid}:${e.tid}`;
    const step = marks.get(m[1]) ?? {};
    step[m[2]] = e.ts;
    marks.set(m[1], step);
  }
  const tasks = events
    .filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && `${e.pid}:${e.tid}` === main && typeof e.tdur === 'number')
    .sort((a, b) => a.ts - b.ts);
  const out = [];
  for (const { start, end } of marks.values()) {
    if (start === undefined || end === undefined) continue;
    let us = 0;
    for (const t of tasks) if (t.ts + t.dur >= start && t.ts <= end) us += t.tdur;
    out.push(us / 1000);
  }
  if (out.length === 0) throw new Error(`no step marks in the trace (threads: ${[...threadName.values()].join(', ')})`);
  return out;
}

const server = await startStaticServer(outDir);
const userDataDir = mkdtempSync(join(tmpdir(), 'mmviz-bench-render-'));
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: dpr,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
  };
  const ms = (x) => `${x.toFixed(2)} ms`;
  const modes = { step: 'consecutive micro-steps (fresh arrays, a few cells change)', full: 'every cell changes (a far seek)', idle: 'nothing rendered (the floor of this measurement)' };
  for (const [mode, what] of Object.entries(modes)) {
    const tracePath = join(userDataDir, `trace-${mode}.json`);
    if (flag('trace')) await context.browser()?.startTracing(page, { path: tracePath, categories: ['toplevel', 'blink.user_timing', 'devtools.timeline'] });
    await page.goto(`${server.url}bench/render.html?mode=${mode}&runs=${runs}&processes=${processes}${source}`);
    await page.waitForFunction(() => window.__benchResult || window.__benchError, null, { timeout: 300_000 });
    const error = await page.evaluate(() => window.__benchError);
    if (error || errors.length > 0) throw new Error(`bench page failed: ${error ?? errors.join('\n')}`);
    const r = await page.evaluate(() => window.__benchResult);
    let cpu = null;
    if (flag('trace')) {
      await context.browser()?.stopTracing();
      cpu = stats(mainThreadCpuPerStep(JSON.parse(readFileSync(tracePath, 'utf8'))));
    }
    const f = stats(r.frameMs);
    const d = stats(r.drawMs);
    const from = !r.engineSteps
      ? 'synthetic arrays'
      : mode === 'full'
        ? `engine frames of bench-frame-64cpu at steps spread over its ${r.engineSteps.total}`
        : `engine frames of bench-frame-64cpu from step ${r.engineSteps.first} of ${r.engineSteps.total}`;
    console.log(`[${mode}] ${what}, ${from}: ${r.cells.ptes} PTEs + ${r.cells.frames} frames + ${r.cells.tlbSlots} TLB slots (${r.canvases} canvases, ${r.canvasesWithPixels} drawn), dpr ${r.dpr}, root font ${r.rootFontPx} px`);
    console.log(`  render one step, median of ${r.runs}: ${ms(f.median)} (min ${ms(f.min)}, max ${ms(f.max)})   [rAF -> next task after that frame's paint]`);
    console.log(`  of which React commit + canvas draw: median ${ms(d.median)} (min ${ms(d.min)}, max ${ms(d.max)})`);
    if (cpu) console.log(`  renderer main-thread CPU time per step (trace): median ${ms(cpu.median)} (min ${ms(cpu.min)}, max ${ms(cpu.max)})`);
    if (r.canvasesWithPixels !== r.canvases) throw new Error('some canvases were left blank');
    if (!r.incrementalMatchesFresh) throw new Error('the canvases drawn step by step differ from a fresh draw of the last step');
  }
  console.log(`  ${await page.evaluate(() => navigator.userAgent)}`);

  if (flag('screenshot')) {
    await mkdir(shotDir, { recursive: true });
    const shots = [
      ['dense-views', `${server.url}bench/render.html?still=1&processes=${processes}&hover=40${source}`],
      ['dense-views-lecture', `${server.url}bench/render.html?still=1&processes=${processes}&font=26${source}`],
    ];
    for (const [name, link] of shots) {
      await page.goto(link);
      await page.waitForFunction(() => window.__benchResult, null, { timeout: 60_000 });
      const path = join(shotDir, `${name}${dpr === 1 ? '' : `-dpr${dpr}`}.png`);
      await page.screenshot({ path, fullPage: true });
      console.log(`screenshot: ${path}`);
    }
  }
} finally {
  await context?.close();
  await server.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
