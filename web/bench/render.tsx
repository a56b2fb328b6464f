// Render benchmark of the dense views (scripts/bench-render.mjs drives it in headless Chromium):
// mounts PteCanvas, FrameCanvas and TlbCanvas in a column as wide as the lab's left column, then
// renders one step at a time from fresh typed arrays and times it.
//
// Query: mode (step: consecutive micro-steps, few cells change; full: every cell changes, as after a
// far seek; idle: frames with nothing to render, the floor of the measurement), runs (21), warmup (3), processes (1), font (root font px, e.g. 24 for lecture type),
// hover (a pfn to show as hovered), still (1: draw one step and stop, for screenshots),
// source (engine: real frames of scripts/bench-frame-64cpu.toml from the wasm engine, see
// engineFrames.ts; otherwise synthetic arrays), lanes (2: two runs side by side as the lab's A/B
// mode draws them, each column half the width, lane B a few steps behind lane A).
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import '../src/styles/global.css';
import panel from '../src/panels/Panel.module.css';
import { FrameCanvas, PteCanvas, TlbCanvas } from '../src/panels/dense';
import { engineRun } from './engineFrames';
import { BENCH_FRAME_64CPU, syntheticRun, syntheticStep, type SyntheticShape, type SyntheticStep } from './synthetic';

const q = new URLSearchParams(location.search);
const num = (name: string, fallback: number): number => {
  const v = Number(q.get(name));
  return q.has(name) && Number.isFinite(v) ? v : fallback;
};
const runs = num('runs', 21);
const mode = q.get('mode') === 'full' ? 'full' : q.get('mode') === 'idle' ? 'idle' : 'step';
const warmup = num('warmup', 3);
const source = q.get('source') === 'engine' ? 'engine' : 'synthetic';
let shape: SyntheticShape = { ...BENCH_FRAME_64CPU, processes: num('processes', 1) };
if (q.has('font')) document.documentElement.style.fontSize = `${num('font', 17)}px`;
const hoverPfn = q.has('hover') ? num('hover', 0) : null;
const lanes = num('lanes', 1) === 2 ? 2 : 1;
/** How many steps lane B is behind lane A (A/B runs part, so the lanes show different frames). */
const LANE_B_BEHIND = 3;

/** One step of every lane: lane A shows `steps[i]`, lane B `steps[i - LANE_B_BEHIND]`. */
function Lanes({ steps, i }: { steps: SyntheticStep[]; i: number }) {
  const a = steps[i] as SyntheticStep;
  if (lanes === 1) return <Step s={a} width={853} />;
  const b = steps[Math.max(0, i - LANE_B_BEHIND)] as SyntheticStep;
  return (
    <div style={{ display: 'flex' }}>
      <Step s={a} width={628} />
      <Step s={b} width={628} />
    </div>
  );
}

function Step({ s, width }: { s: SyntheticStep; width: number }) {
  return (
    <div style={{ width, padding: 12 }}>
      <section className={panel.panel} aria-labelledby="m-title">
        <h2 id="m-title" className={panel.title}>
          Machine <span className={panel.subtitle}>dense view: {shape.cpus} CPUs, {shape.nodes * shape.framesPerNode} frames</span>
        </h2>
        <FrameCanvas bulk={s.bulk} touchedPfns={s.touchedPfns} hoverPfn={hoverPfn} />
        <TlbCanvas bulk={s.bulk} slots={shape.tlbSlots} cpuCount={shape.cpus} eventCpu={s.eventCpu} touchedCpus={s.touchedCpus} touchedPtes={s.touchedPtes} touchedPfns={s.touchedPfns} hoverPfn={hoverPfn} />
      </section>
      <section className={panel.panel} aria-labelledby="pt-title" style={{ marginTop: 12 }}>
        <h2 id="pt-title" className={panel.title}>
          Page tables <span className={panel.subtitle}>dense view</span>
        </h2>
        <PteCanvas bulk={s.bulk} processes={Array.from({ length: shape.processes }, (_, p) => ({ pid: p + 1, name: 'bench' }))} touched={s.touchedPtes} hoverPfn={hoverPfn} />
      </section>
    </div>
  );
}

export interface RenderBenchResult {
  mode: string;
  /** synthetic arrays, or real frames from the engine (with the steps they come from). */
  source: string;
  engineSteps?: { first: number; total: number };
  /** The canvases drawn step by step hold the same pixels as a fresh draw of the last step. */
  incrementalMatchesFresh: boolean;
  runs: number;
  /** rAF start -> the next task after that frame's style/layout/paint (React commit, canvas draw, browser rendering on the main thread). */
  frameMs: number[];
  /** rAF start -> React commit with the canvases drawn (synchronous part). */
  drawMs: number[];
  cells: { ptes: number; frames: number; tlbSlots: number };
  canvases: number;
  canvasesWithPixels: number;
  dpr: number;
  rootFontPx: number;
  userAgent: string;
}

declare global {
  interface Window {
    __benchResult?: RenderBenchResult;
    __benchError?: string;
  }
}

/** Runs `fn` at the start of the next frame; resolves with [ms in fn, ms until the next task after the frame]. */
function timedFrame(fn: () => void, mark?: string): Promise<[number, number]> {
  return new Promise((resolve) => {
    requestAnimationFrame(() => {
      // The marks let scripts/bench-render.mjs --trace find each step in a Chromium trace.
      if (mark) performance.mark(`${mark}-start`);
      const t0 = performance.now();
      fn();
      const t1 = performance.now();
      // A message posted from a rAF callback is handled after this frame's style, layout and paint.
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        const t2 = performance.now();
        if (mark) performance.mark(`${mark}-end`);
        resolve([t1 - t0, t2 - t0]);
      };
      ch.port2.postMessage(0);
    });
  });
}

/** A cheap hash of every canvas's pixels (FNV-1a over 32-bit words). */
function pixelHash(): string {
  return [...document.querySelectorAll('canvas')]
    .map((c) => {
      const ctx = c.getContext('2d');
      if (!ctx) return 'none';
      const d = new Uint32Array(ctx.getImageData(0, 0, c.width, c.height).data.buffer);
      let h = 0x811c9dc5;
      for (let i = 0; i < d.length; i++) h = Math.imul(h ^ (d[i] ?? 0), 16777619);
      return `${c.width}x${c.height}:${(h >>> 0).toString(16)}`;
    })
    .join(' ');
}

/** Whether a canvas has any pixel other than its top-left one (i.e. something was drawn). */
function hasPixels(c: HTMLCanvasElement): boolean {
  const ctx = c.getContext('2d');
  if (!ctx || c.width === 0 || c.height === 0) return false;
  const d = new Uint32Array(ctx.getImageData(0, 0, c.width, c.height).data.buffer);
  const bg = d[0];
  return d.some((v) => v !== bg);
}

async function main(): Promise<void> {
  const el = document.getElementById('root');
  if (!el) throw new Error('no #root');
  const root = createRoot(el);
  // Steps are made before timing: they stand for arrays that arrived from the engine worker.
  const n = warmup + runs + 1;
  let engineSteps: { first: number; total: number } | undefined;
  let steps: SyntheticStep[];
  if (source === 'engine') {
    const run = await engineRun(n, mode);
    steps = run.steps;
    shape = run.shape;
    engineSteps = { first: run.firstStep, total: run.totalSteps };
  } else {
    steps = mode === 'full' ? Array.from({ length: n }, (_, i) => syntheticStep(i, shape)) : syntheticRun(n, shape);
  }
  flushSync(() => root.render(<Lanes steps={steps} i={0} />));
  if (q.get('still') === '1') {
    await timedFrame(() => {});
  } else {
    const frameMs: number[] = [];
    const drawMs: number[] = [];
    for (let i = 1; i < steps.length; i++) {
      // idle: the same frame with nothing rendered, the floor of this measurement on this machine.
      const [draw, frame] = await timedFrame(() => (mode === 'idle' ? undefined : flushSync(() => root.render(<Lanes steps={steps} i={i} />))), i > warmup ? `bench-step-${i}` : undefined);
      if (i > warmup) {
        drawMs.push(draw);
        frameMs.push(frame);
      }
    }
    const canvases = [...document.querySelectorAll('canvas')];
    const withPixels = canvases.filter(hasPixels).length;
    // The pixels after drawing step by step must equal a fresh draw of the last step (idle drew none of them).
    const stepped = pixelHash();
    flushSync(() => root.render(<div />));
    flushSync(() => root.render(<Lanes steps={steps} i={steps.length - 1} />));
    const fresh = pixelHash();
    window.__benchResult = {
      incrementalMatchesFresh: mode === 'idle' || stepped === fresh,
      mode,
      source,
      ...(engineSteps ? { engineSteps } : {}),
      runs,
      frameMs,
      drawMs,
      cells: { ptes: lanes * shape.processes * shape.ptesPerProcess, frames: lanes * shape.nodes * shape.framesPerNode, tlbSlots: lanes * shape.cpus * shape.tlbSlots },
      canvases: canvases.length,
      canvasesWithPixels: withPixels,
      dpr: window.devicePixelRatio,
      rootFontPx: parseFloat(getComputedStyle(document.documentElement).fontSize),
      userAgent: navigator.userAgent,
    };
    return;
  }
  window.__benchResult = { mode, source, incrementalMatchesFresh: true, runs: 0, frameMs: [], drawMs: [], cells: { ptes: 0, frames: 0, tlbSlots: 0 }, canvases: 0, canvasesWithPixels: 0, dpr: window.devicePixelRatio, rootFontPx: 0, userAgent: '' };
}

main().catch((e: unknown) => {
  window.__benchError = e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e);
});
