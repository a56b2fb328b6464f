// A synthetic FrameBulk with the shape of scripts/bench-frame-64cpu.toml's frame: 64 CPUs on 2
// nodes with 64 TLB entries each, one process with a 4,096-page heap on node 0 (or `processes`
// such processes), 4,096 frames per node. Deterministic for a given step.
import {
  FRAME_DIRTY,
  FRAME_FREE,
  FRAME_ISOLATED,
  FRAME_LOCKED,
  FRAME_MAPPED,
  FRAME_MIGRATING,
  FRAME_UNMAPPED_PID,
  PTE_ACCESSED,
  PTE_DIRTY,
  PTE_MIGRATION,
  PTE_NONE,
  PTE_PRESENT,
  PTE_PROTNONE,
  PTE_WRITE,
  TLB_DIRTY,
  TLB_WRITE,
  type FrameBulk,
} from '../src/engine/bulk';

export interface SyntheticShape {
  cpus: number;
  tlbSlots: number;
  processes: number;
  ptesPerProcess: number;
  nodes: number;
  framesPerNode: number;
}

export const BENCH_FRAME_64CPU: SyntheticShape = { cpus: 64, tlbSlots: 64, processes: 1, ptesPerProcess: 4096, nodes: 2, framesPerNode: 4096 };

/** mulberry32: a small deterministic PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticStep {
  bulk: FrameBulk;
  eventCpu: number;
  touchedPtes: [number, number][];
  touchedPfns: number[];
  touchedCpus: number[];
}

/** The bulk state at `step` (fresh typed arrays, as a frame from the engine would bring). */
export function syntheticStep(step: number, shape: SyntheticShape = BENCH_FRAME_64CPU): SyntheticStep {
  const rand = rng(0x9e3779b9 ^ (step * 2654435761));
  const nPte = shape.processes * shape.ptesPerProcess;
  const nFrames = shape.nodes * shape.framesPerNode;
  const heapVpn = 0x7f0000;
  const ptePid = new Uint16Array(nPte);
  const pteVpn = new Uint32Array(nPte);
  const ptePfn = new Uint32Array(nPte);
  const pteFlags = new Uint8Array(nPte);
  const framePfn = new Uint32Array(nFrames);
  const frameNode = new Uint8Array(nFrames);
  const frameFlags = new Uint8Array(nFrames);
  const frameMapPid = new Uint16Array(nFrames).fill(FRAME_UNMAPPED_PID);
  const frameMapVpn = new Uint32Array(nFrames);
  for (let f = 0; f < nFrames; f++) {
    framePfn[f] = f;
    frameNode[f] = Math.floor(f / shape.framesPerNode);
  }
  let nextPfn = 0;
  for (let p = 0; p < shape.processes; p++) {
    for (let k = 0; k < shape.ptesPerProcess; k++) {
      const i = p * shape.ptesPerProcess + k;
      ptePid[i] = p + 1;
      pteVpn[i] = heapVpn + k;
      const x = rand();
      const kind = x < 0.04 ? PTE_NONE : x < 0.9 ? PTE_PRESENT : x < 0.985 ? PTE_PROTNONE : PTE_MIGRATION;
      let flags = kind;
      if (kind !== PTE_NONE) {
        // Most of the heap sits on node 0; NUMA balancing moved some of it to node 1.
        const pfn = rand() < 0.8 ? nextPfn++ % shape.framesPerNode : shape.framesPerNode + (nextPfn++ % shape.framesPerNode);
        ptePfn[i] = pfn % nFrames;
        if (rand() < 0.2) flags |= PTE_WRITE;
        if (flags & PTE_WRITE && rand() < 0.7) flags |= PTE_DIRTY;
        if (rand() < 0.75) flags |= PTE_ACCESSED;
        const f = ptePfn[i] ?? 0;
        frameMapPid[f] = p + 1;
        frameMapVpn[f] = heapVpn + k;
        const s = kind === PTE_MIGRATION ? FRAME_MIGRATING : rand() < 0.01 ? FRAME_ISOLATED : FRAME_MAPPED;
        frameFlags[f] = s | (flags & PTE_DIRTY ? FRAME_DIRTY : 0) | (s !== FRAME_MAPPED || rand() < 0.003 ? FRAME_LOCKED : 0);
      }
      pteFlags[i] = flags;
    }
  }
  for (let f = 0; f < nFrames; f++) if (frameMapPid[f] === FRAME_UNMAPPED_PID) frameFlags[f] = FRAME_FREE;

  // TLBs: full on most CPUs, fewer entries on some (recently flushed).
  const counts = new Uint32Array(shape.cpus);
  for (let c = 0; c < shape.cpus; c++) counts[c] = rand() < 0.15 ? Math.floor(rand() * shape.tlbSlots) : shape.tlbSlots;
  const nTlb = counts.reduce((a, b) => a + b, 0);
  const tlbCpuStart = new Uint32Array(shape.cpus);
  const tlbPid = new Uint16Array(nTlb);
  const tlbVpn = new Uint32Array(nTlb);
  const tlbPfn = new Uint32Array(nTlb);
  const tlbFlags = new Uint8Array(nTlb);
  let t = 0;
  for (let c = 0; c < shape.cpus; c++) {
    tlbCpuStart[c] = t;
    for (let s = 0; s < (counts[c] ?? 0); s++, t++) {
      const i = Math.floor(rand() * nPte);
      tlbPid[t] = ptePid[i] ?? 1;
      tlbVpn[t] = pteVpn[i] ?? 0;
      tlbPfn[t] = ptePfn[i] ?? 0;
      const f = pteFlags[i] ?? 0;
      tlbFlags[t] = (f & PTE_WRITE ? TLB_WRITE : 0) | (f & PTE_DIRTY ? TLB_DIRTY : 0);
    }
  }
  const pick = Math.floor(rand() * nPte);
  const eventCpu = Math.floor(rand() * shape.cpus);
  return {
    bulk: { ptePid, pteVpn, ptePfn, pteFlags, framePfn, frameNode, frameFlags, frameMapPid, frameMapVpn, tlbCpuStart, tlbPid, tlbVpn, tlbPfn, tlbFlags },
    eventCpu,
    touchedPtes: [[ptePid[pick] ?? 1, pteVpn[pick] ?? 0]],
    touchedPfns: [ptePfn[pick] ?? 0],
    touchedCpus: [eventCpu, (eventCpu + 7) % shape.cpus],
  };
}

/** Copies every array of a bulk (a frame from the worker always brings new arrays). */
function copyBulk(b: FrameBulk): FrameBulk {
  return {
    ptePid: b.ptePid.slice(),
    pteVpn: b.pteVpn.slice(),
    ptePfn: b.ptePfn.slice(),
    pteFlags: b.pteFlags.slice(),
    framePfn: b.framePfn.slice(),
    frameNode: b.frameNode.slice(),
    frameFlags: b.frameFlags.slice(),
    frameMapPid: b.frameMapPid.slice(),
    frameMapVpn: b.frameMapVpn.slice(),
    tlbCpuStart: b.tlbCpuStart.slice(),
    tlbPid: b.tlbPid.slice(),
    tlbVpn: b.tlbVpn.slice(),
    tlbPfn: b.tlbPfn.slice(),
    tlbFlags: b.tlbFlags.slice(),
  };
}

/**
 * `count` consecutive micro-steps as the engine would step them: fresh arrays every step, but only
 * what one kernel action changes differs (a PTE becomes PROT_NONE or present again, its frame is
 * locked or released, the stepping CPU's TLB gets or loses an entry).
 */
export function syntheticRun(count: number, shape: SyntheticShape = BENCH_FRAME_64CPU): SyntheticStep[] {
  const rand = rng(12345);
  const out: SyntheticStep[] = [syntheticStep(0, shape)];
  for (let s = 1; s < count; s++) {
    const prev = out[s - 1] as SyntheticStep;
    const bulk = copyBulk(prev.bulk);
    const i = Math.floor(rand() * bulk.ptePid.length);
    const f = bulk.pteFlags[i] ?? 0;
    const kind = f & 3;
    // Hinting unmaps (PROT_NONE), the fault maps it back present and accessed.
    bulk.pteFlags[i] = kind === PTE_PRESENT ? (f & ~3 & ~PTE_ACCESSED) | PTE_PROTNONE : kind === PTE_PROTNONE ? (f & ~3) | PTE_PRESENT | PTE_ACCESSED : f;
    const pfn = bulk.ptePfn[i] ?? 0;
    const fi = pfn < bulk.frameFlags.length ? pfn : 0;
    bulk.frameFlags[fi] = (bulk.frameFlags[fi] ?? 0) ^ FRAME_LOCKED;
    const cpu = Math.floor(rand() * shape.cpus);
    const start = bulk.tlbCpuStart[cpu] ?? 0;
    const end = cpu + 1 < shape.cpus ? (bulk.tlbCpuStart[cpu + 1] ?? start) : bulk.tlbPid.length;
    if (end > start) {
      const t = start + Math.floor(rand() * (end - start));
      bulk.tlbPid[t] = bulk.ptePid[i] ?? 1;
      bulk.tlbVpn[t] = bulk.pteVpn[i] ?? 0;
      bulk.tlbPfn[t] = pfn;
      bulk.tlbFlags[t] = rand() < 0.2 ? TLB_WRITE : 0;
    }
    out.push({ bulk, eventCpu: cpu, touchedPtes: [[bulk.ptePid[i] ?? 1, bulk.pteVpn[i] ?? 0]], touchedPfns: [pfn], touchedCpus: [cpu] });
  }
  return out;
}
