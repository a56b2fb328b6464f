// Which part of a large machine's PTEs and frames the lab asks the engine for.
//
// The engine windows the bulk arrays of a frame (by default the first ENGINE_WINDOW PTEs, ordered
// by pid then vpn, and the first ENGINE_WINDOW frames). The lab keeps ONE window request, a PTE
// offset and a first pfn, and asks for every frame with it; paging, "go to vpn", a selected frame
// or a PTE the step touched outside the window move it. Pure functions only: the store (simSlice)
// decides when.
import type { FrameWindowRequest } from '../engine/bulk';
import type { ScenarioSummary, Touched } from '../engine/types';

/** PTEs / frames a window holds when no count is given: the engine's DEFAULT_WINDOW (wasm-core/engine/src/view/bulk.rs). */
export const ENGINE_WINDOW = 65_536;

/** The window the lab asks for: the index of its first PTE (over all PTEs, ordered by pid then vpn) and its first pfn. */
export interface WindowRequest {
  pteOffset: number;
  pfnStart: number;
}

/** The engine's default window (the first PTEs and the first frames). */
export const DEFAULT_WINDOW_REQUEST: WindowRequest = { pteOffset: 0, pfnStart: 0 };

/** The engine's argument for `w`: undefined for the default window (the fixture engine has only that one recorded), else only the fields that differ from it. */
export function toFrameWindow(w: WindowRequest): FrameWindowRequest | undefined {
  if (w.pteOffset === 0 && w.pfnStart === 0) return undefined;
  const out: FrameWindowRequest = {};
  if (w.pteOffset !== 0) out.pteOffset = w.pteOffset;
  if (w.pfnStart !== 0) out.pfnStart = w.pfnStart;
  return out;
}

export function sameWindow(a: WindowRequest, b: WindowRequest): boolean {
  return a.pteOffset === b.pteOffset && a.pfnStart === b.pfnStart;
}

/** The processes ordered by pid and each one's VMAs by start, as the engine orders PTEs. */
function orderedVmas(summary: ScenarioSummary): { pid: number; startVpn: number; pages: number }[] {
  return [...summary.processes]
    .sort((a, b) => a.pid - b.pid)
    .flatMap((p) => [...p.vmas].sort((a, b) => a.startVpn - b.startVpn).map((v) => ({ pid: p.pid, startVpn: v.startVpn, pages: v.pages })));
}

/** Number of PTEs of every VMA of every process (the engine's `pteWindow.total` for the default window). */
export function pteTotal(summary: ScenarioSummary): number {
  return summary.processes.reduce((n, p) => n + p.vmas.reduce((m, v) => m + v.pages, 0), 0);
}

/** Number of frames of the machine. */
export function frameTotal(summary: ScenarioSummary): number {
  return summary.topology.nodes.reduce((n, node) => n + node.memPages, 0);
}

/**
 * Index of the PTE (pid, vpn) over all PTEs (ordered by pid, then vpn), or -1 when no VMA of `pid` holds `vpn`.
 * From the summary's VMAs: a forked process whose VMAs the summary does not list would shift the later processes' PTEs.
 */
export function pteIndex(summary: ScenarioSummary, pid: number, vpn: number): number {
  let before = 0;
  for (const v of orderedVmas(summary)) {
    if (v.pid === pid && vpn >= v.startVpn && vpn < v.startVpn + v.pages) return before + (vpn - v.startVpn);
    before += v.pages;
  }
  return -1;
}

/** The first index of a window of `size` over `total` items that shows `index` near its top (an eighth of the window above it). */
export function windowStartAround(index: number, total: number, size = ENGINE_WINDOW): number {
  return clampStart(index - Math.floor(size / 8), total, size);
}

/** `start` clamped so that a window of `size` at it is full (0 when everything fits). */
export function clampStart(start: number, total: number, size = ENGINE_WINDOW): number {
  if (!Number.isFinite(start)) return 0;
  return Math.max(0, Math.min(Math.max(0, total - size), Math.trunc(start)));
}

/** `w` clamped to the run of `summary` (a window past the end would be refused by the engine). */
export function clampWindow(summary: ScenarioSummary, w: WindowRequest): WindowRequest {
  return { pteOffset: clampStart(w.pteOffset, pteTotal(summary)), pfnStart: clampStart(w.pfnStart, frameTotal(summary)) };
}

/** Whether item `index` is in the window starting at `start`. */
export function inWindow(index: number, start: number, size = ENGINE_WINDOW): boolean {
  return index >= start && index < start + size;
}

/** The window with the PTE (pid, vpn) in it: `w` when it already is, else one around it; null when no VMA holds it. */
export function windowForPte(summary: ScenarioSummary, w: WindowRequest, pid: number, vpn: number): WindowRequest | null {
  const index = pteIndex(summary, pid, vpn);
  if (index < 0) return null;
  if (inWindow(index, w.pteOffset)) return w;
  return { ...w, pteOffset: windowStartAround(index, pteTotal(summary)) };
}

/** The window with frame `pfn` in it: `w` when it already is, else one around it; null when the machine has no such frame. */
export function windowForPfn(summary: ScenarioSummary, w: WindowRequest, pfn: number): WindowRequest | null {
  const total = frameTotal(summary);
  if (!Number.isInteger(pfn) || pfn < 0 || pfn >= total) return null;
  if (inWindow(pfn, w.pfnStart)) return w;
  return { ...w, pfnStart: windowStartAround(pfn, total) };
}

/**
 * The window that shows what a step touched: `w` unchanged when some touched PTE (frame) is in it or the step touched none,
 * else moved to the first touched one. So a step that touches two distant PTEs does not move the window back and forth.
 */
export function followTouched(summary: ScenarioSummary, w: WindowRequest, touched: Pick<Touched, 'ptes' | 'pfns'> | null | undefined): WindowRequest {
  if (!touched) return w;
  let out = w;
  const ptes = touched.ptes.map(([pid, vpn]) => pteIndex(summary, pid, vpn)).filter((i) => i >= 0);
  const first = ptes[0];
  if (first !== undefined && !ptes.some((i) => inWindow(i, w.pteOffset))) out = { ...out, pteOffset: windowStartAround(first, pteTotal(summary)) };
  const total = frameTotal(summary);
  const pfns = touched.pfns.filter((p) => p >= 0 && p < total);
  const pfn = pfns[0];
  if (pfn !== undefined && !pfns.some((p) => inWindow(p, w.pfnStart))) out = { ...out, pfnStart: windowStartAround(pfn, total) };
  return out;
}
