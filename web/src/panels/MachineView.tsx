// Machine view (SVG): NUMA nodes with their CPUs (task, lazy state,
// mm_cpumask, TLB entries), page frames per node, and IPIs as arrows. It reads
// the frame's bulk arrays: frame cells get numbers, not objects, and each CPU
// box builds objects only for the few TLB lines it draws. Dense machines (more
// than DENSE_THRESHOLD frames, or TLB slots over all CPUs) draw their frames and
// TLBs on canvases under the SVG instead (./dense).
import { cpuRanges } from '../base/numactl';
import { memo, type ReactElement, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { fitText, formatHex, functionLabel } from '../base/format';
import { textWidthPx } from '../base/measureText';
import { archOverPx, cellInDirection, rectCenterPx, type RectPx } from '../base/geometry';
import {
  DEFAULT_METRICS,
  frameLabelFits,
  labFontsPx,
  LECTURE_FONTS,
  LECTURE_METRICS,
  LECTURE_TLB_LINES,
  machineLayoutPx,
  MAX_FRAMES_DRAWN,
  MAX_TLB_LINES,
  tlbLinesShown,
  type MachineFontsPx,
  type MachineMetricsPx,
} from '../base/machineLayout';
import { useReducedMotion } from '../base/useReducedMotion';
import { FRAME_DIRTY, FRAME_LOCKED, frameState, NO_PID, tlbCount, tlbEntries as tlbEntriesOf, windowNote, type TlbEntryView } from '../engine/bulk';
import type { CpuView, FrameState, IpiView, SimEvent } from '../engine/types';
import { ENGINE_WINDOW, frameTotal } from '../store/bulkWindow';
import { useAppStore, useLane, useLaneActions, useRun } from '../store/context';
import { FrameCanvas, isDense, parseIndex, TlbCanvas, WindowPager } from './dense';
import { findFrame, frameText } from './dense/denseMath';
import { FRAME_TOKENS } from './dense/palette';
import styles from './MachineView.module.css';
import panel from './Panel.module.css';

/** Fill of a frame state: the theme's token, as the dense frame grid reads it (palette.FRAME_TOKENS). */
export const FRAME_COLORS: Record<FrameState, string> = {
  free: `var(${FRAME_TOKENS[0]})`,
  mapped: `var(${FRAME_TOKENS[1]})`,
  isolated: `var(${FRAME_TOKENS[2]})`,
  migrating: `var(${FRAME_TOKENS[3]})`,
};

/** The pfn label's colour: on a free frame like other text, on the Okabe–Ito fills black (at least 5.4:1 on each). */
const FRAME_TEXT: Record<FrameState, string> = {
  free: 'var(--frame-text)',
  mapped: 'var(--on-fill)',
  isolated: 'var(--on-fill)',
  migrating: 'var(--on-fill)',
};

interface CpuBoxProps {
  cpu: CpuView;
  /** The first TLB entries (at most as many lines as the box draws). */
  tlb: readonly TlbEntryView[];
  /** Entries in the CPU's TLB. */
  tlbTotal: number;
  rect: RectPx;
  inMask: boolean;
  isEventCpu: boolean;
  isTouched: boolean;
  tlbEntries: number;
  showPid: boolean;
  /** The TLBs are drawn as a dense grid: the box gives the count instead of listing lines. */
  tlbDense: boolean;
  /** The hovered and selected frames: TLB lines caching them are outlined. */
  linkedPfns: readonly number[];
  /** The layout's sizes, its type and the most TLB lines a box draws (lecture mode has its own). */
  metrics: MachineMetricsPx;
  fonts: MachineFontsPx;
  maxTlbLines: number;
}

/** Gap between the mask badge and the box's right edge (the box's outline is up to 3 px wide). */
const BADGE_INSET_PX = 7;

/**
 * The mm_cpumask badge of a CPU box: "mask" where the box has room beside its name, squeezed a
 * little (SVG textLength) where the type is room-sized, "M" where even that does not fit.
 */
export function maskBadge(cpuId: number, boxWidthPx: number, fonts: MachineFontsPx, small: boolean): { text: string; widthPx: number; squeezeToPx: number | null } {
  const padPx = 8;
  const word = textWidthPx('mask', fonts.badge, { bold: true }) ?? fonts.badge * 2.6;
  const name = textWidthPx(`CPU ${cpuId}`, fonts.name, { bold: true }) ?? fonts.name * 0.62 * `CPU ${cpuId}`.length;
  // Room between the name (8 px in) and the badge's inset, with a gap after the name.
  const room = boxWidthPx - 8 - name - 6 - BADGE_INSET_PX;
  const natural = Math.max(fonts.badgeWidth, word + padPx);
  if (!small && room >= natural) return { text: 'mask', widthPx: natural, squeezeToPx: null };
  // Glyphs narrowed to 80 % at most (with a tighter pad) stay readable on a projector.
  if (!small && room - padPx + 2 >= word * 0.8) return { text: 'mask', widthPx: room, squeezeToPx: Math.min(word, room - padPx + 2) };
  const letter = textWidthPx('M', fonts.badge, { bold: true }) ?? fonts.badge * 0.8;
  return { text: 'M', widthPx: Math.max(small ? fonts.badgeWidth : 0, letter + padPx), squeezeToPx: null };
}

/**
 * A CPU box's state line: the engine's words, without repeating the line below (the function
 * the CPU is in, or "user mode").
 */
export function boxState(cpu: Pick<CpuView, 'state' | 'inFunction'>): string {
  if (cpu.inFunction && cpu.state === `in ${cpu.inFunction}`) return 'in the kernel';
  if (cpu.state === 'running user code') return 'computing';
  return cpu.state;
}

function CpuBox({ cpu, tlb, tlbTotal, rect, inMask, isEventCpu, isTouched, tlbEntries, showPid, tlbDense, linkedPfns, metrics: m, fonts, maxTlbLines }: CpuBoxProps) {
  // One-letter badges on a narrow box (the lab's small type says it is narrow).
  const small = fonts.badgeWidth < 30;
  const monoPx = fonts.mono;
  const x = rect.xPx + 8;
  const textWidthPx = rect.widthPx - 14;
  const line = (i: number): number => rect.yPx + m.cpuLinePx - 3 + i * m.cpuLinePx;
  const badge = maskBadge(cpu.id, rect.widthPx, fonts, small);
  const classes = [styles.cpu, cpu.lazy ? styles.lazy : '', isTouched ? styles.touchedCpu : '', isEventCpu ? styles.eventCpu : ''].join(' ');
  const shown = tlbDense ? 0 : tlbLinesShown(tlbEntries, maxTlbLines);
  // When the TLB is bigger than the box, the last line summarises the rest.
  const overflow = !tlbDense && tlbTotal > shown ? tlbTotal - (shown - 1) : 0;
  const slots = tlbDense ? [] : Array.from({ length: overflow > 0 ? shown - 1 : shown }, (_, i) => tlb[i] ?? null);
  // Room-sized type leaves room for the short form only.
  const shortTlb = small || fonts.mono >= 20;
  const tlbText = (e: NonNullable<(typeof slots)[number]>): string =>
    shortTlb
      ? `${e.vpn.toString(16)}→${e.pfn.toString(16)}`
      : `${formatHex(e.vpn)}→${formatHex(e.pfn)}${e.write ? ' W' : ''}${e.dirty ? ' D' : ''}${showPid ? ` pid ${e.pid}` : ''}`;
  return (
    <g>
      <title>
        {`CPU ${cpu.id}: ${cpu.task ? `task ${cpu.task}` : 'no task'}, ${cpu.state}${cpu.inFunction ? `, in ${cpu.inFunction}` : ''}${cpu.lazy ? ', lazy TLB' : ''}${inMask ? ', in mm_cpumask' : ''}; ${tlbTotal} TLB entries${cpu.stack.length > 0 ? `; stack (bottom first): ${cpu.stack.join(' › ')}` : ''}`}
      </title>
      <rect x={rect.xPx} y={rect.yPx} width={rect.widthPx} height={rect.heightPx} rx={6} className={classes} />
      <text x={x} y={line(0)} className={styles.cpuName} fontSize={fonts.name}>
        CPU {cpu.id}
      </text>
      {inMask && (
        <g>
          <rect x={rect.xPx + rect.widthPx - badge.widthPx - BADGE_INSET_PX} y={rect.yPx + 5} width={badge.widthPx} height={fonts.badgeHeight} rx={3} className={styles.maskBadge} />
          <text
            x={rect.xPx + rect.widthPx - badge.widthPx / 2 - BADGE_INSET_PX}
            y={rect.yPx + 5 + fonts.badgeHeight * 0.5 + fonts.badge * 0.36}
            className={styles.maskText}
            fontSize={fonts.badge}
            textAnchor="middle"
            {...(badge.squeezeToPx !== null ? { textLength: badge.squeezeToPx, lengthAdjust: 'spacingAndGlyphs' } : {})}
          >
            {badge.text}
          </text>
        </g>
      )}
      {cpu.lazy && (
        <text x={rect.xPx + rect.widthPx - (inMask ? badge.widthPx + BADGE_INSET_PX + 4 : 8)} y={line(0)} textAnchor="end" className={styles.lazyText} fontSize={fonts.state}>
          {small ? 'z' : 'lazy'}
        </text>
      )}
      <text x={x} y={line(1)} fontSize={fonts.task} className={cpu.task ? styles.cpuTask : styles.cpuUser}>
        {cpu.task ? `task ${cpu.task}` : 'no task'}
      </text>
      <text x={x} y={line(2)} fontSize={fonts.state} className={styles.cpuState}>
        {fitText(boxState(cpu), textWidthPx, fonts.state, 0.52, { italic: true })}
      </text>
      <text x={x} y={line(3)} fontSize={fonts.fn} className={cpu.inFunction ? styles.cpuFn : styles.cpuUser}>
        {cpu.inFunction ? fitText(functionLabel(cpu.inFunction), textWidthPx, fonts.fn, 0.6, { mono: true, bold: true }) : cpu.task ? 'user mode' : ''}
      </text>
      {slots.map((e, i) => (
        <g key={i}>
          {e && linkedPfns.includes(e.pfn) && (
            <rect x={rect.xPx + 4} y={line(3) + (i + 1) * m.tlbLinePx + 2 - monoPx} width={rect.widthPx - 8} height={monoPx + 5} rx={2} className={styles.tlbLinked} />
          )}
          <text x={x} y={line(3) + (i + 1) * m.tlbLinePx + 2} fontSize={monoPx} className={e ? styles.tlb : styles.tlbEmpty}>
            {e ? fitText(tlbText(e), textWidthPx, monoPx, 0.6, { mono: true }) : '·'}
          </text>
        </g>
      ))}
      {tlbDense && (
        <text x={x} y={line(3) + m.tlbLinePx + 2} fontSize={monoPx} className={styles.tlbMore}>
          {fitText(`TLB ${tlbTotal}/${tlbEntries}`, textWidthPx, monoPx, 0.6, { mono: true, italic: true })}
        </text>
      )}
      {overflow > 0 && (
        <text x={x} y={line(3) + shown * m.tlbLinePx + 2} fontSize={monoPx} className={styles.tlbMore}>
          {fitText(`+${overflow} more (${tlbTotal}/${tlbEntries})`, textWidthPx, monoPx, 0.6, { mono: true, italic: true })}
        </text>
      )}
    </g>
  );
}

/** Each CPU's call stack, bottom first, with the function on top marked: an IPI handler on top shows what it interrupted. */
function CpuStacks({ cpus, event }: { cpus: readonly CpuView[]; event: SimEvent | null }) {
  // An IPI handler runs and returns within its step: name it on the receiver, above the stack it interrupted.
  const handler = event?.kind === 'ipi_recv' ? event : null;
  const eventCpu = event?.cpu ?? null;
  return (
    <dl className={styles.stacks} aria-label="Call stacks">
      {cpus.map((cpu) => (
        <div key={cpu.id} className={cpu.id === eventCpu ? styles.stackEventCpu : styles.stackRow}>
          <dt className={styles.stackCpu}>CPU {cpu.id}</dt>
          <dd className={styles.stack}>
            {cpu.stack.length === 0 ? (
              <span className={styles.stackIdle}>{cpu.task ? 'user mode' : 'idle'}</span>
            ) : (
              cpu.stack.map((fn, i) => (
                <span key={i}>
                  {i > 0 && <span className={styles.stackSep}> › </span>}
                  <code className={i === cpu.stack.length - 1 ? styles.stackTop : undefined}>{functionLabel(fn)}</code>
                </span>
              ))
            )}
            {handler?.cpu === cpu.id && cpu.stack[cpu.stack.length - 1] !== handler.function && (
              <span className={styles.stackIrq}>
                {' '}
                ← IPI: <code>{functionLabel(handler.function)}</code> ran on top of this
              </span>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

interface FrameCellProps {
  pfn: number;
  node: number;
  /** `frameFlags` of the bulk arrays: state, locked, dirty. */
  flags: number;
  /** pid of the mapping, or NO_PID. */
  mapPid: number;
  mapVpn: number;
  rect: RectPx;
  touched: boolean;
  highlighted: boolean;
  label: boolean;
  fonts: MachineFontsPx;
  selected: boolean;
  /** The frames' one Tab stop (roving: the selected frame, else the first). */
  tabStop: boolean;
  onHover: (pfn: number | null) => void;
  onSelect: (pfn: number) => void;
  /** Arrow keys: move the focus to the neighbouring frame. */
  onMove: (pfn: number, key: string) => boolean;
}

const FrameCell = memo(function FrameCell({ pfn, node, flags, mapPid, mapVpn, rect, touched, highlighted, label, fonts, selected, tabStop, onHover, onSelect, onMove }: FrameCellProps) {
  const c = rectCenterPx(rect);
  const state = frameState(flags);
  const locked = (flags & FRAME_LOCKED) !== 0;
  const dirty = (flags & FRAME_DIRTY) !== 0;
  const lane = useLane();
  const pattern = state === 'migrating' ? `url(#${defId(lane, 'hatch')})` : state === 'isolated' ? `url(#${defId(lane, 'dots')})` : null;
  const text = `pfn ${pfn} (${formatHex(pfn)}), node ${node}: ${state}${mapPid !== NO_PID ? `, mapped by pid ${mapPid} vpn ${formatHex(mapVpn)}` : ''}${locked ? ', locked' : ''}${dirty ? ', dirty' : ''}`;
  return (
    <g
      className={styles.frame}
      data-pfn={pfn}
      role="button"
      tabIndex={tabStop ? 0 : -1}
      aria-label={text}
      aria-pressed={selected}
      onMouseEnter={() => onHover(pfn)}
      onMouseLeave={() => onHover(null)}
      onFocus={() => onHover(pfn)}
      onBlur={() => onHover(null)}
      onClick={() => onSelect(pfn)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onSelect(pfn);
        } else if (onMove(pfn, e.key)) {
          // The frames take the arrows (as the dense grids do): the run does not step.
          e.preventDefault();
          e.stopPropagation();
        }
      }}
    >
      <title>{text}</title>
      <rect x={rect.xPx} y={rect.yPx} width={rect.widthPx} height={rect.heightPx} rx={3} style={{ fill: FRAME_COLORS[state] }} className={styles.frameRect} />
      {pattern && <rect x={rect.xPx} y={rect.yPx} width={rect.widthPx} height={rect.heightPx} rx={3} fill={pattern} pointerEvents="none" />}
      {label && (
        <text x={c.xPx} y={c.yPx + (pfn >= 1000 ? fonts.pfnLong : fonts.pfn) * 0.35} textAnchor="middle" fontSize={pfn >= 1000 ? fonts.pfnLong : fonts.pfn} style={{ fill: FRAME_TEXT[state] }} className={styles.pfnLabel}>
          {pfn}
        </text>
      )}
      {label && dirty && <circle cx={rect.xPx + rect.widthPx - 5} cy={rect.yPx + 5} r={2.6} className={styles.dirtyDot} />}
      {label && locked && <rect x={rect.xPx + 2} y={rect.yPx + 2} width={6} height={6} className={styles.lockMark} />}
      {touched && <rect x={rect.xPx - 3} y={rect.yPx - 3} width={rect.widthPx + 6} height={rect.heightPx + 6} rx={4} className={styles.touchedFrame} />}
      {highlighted && <rect x={rect.xPx - 4} y={rect.yPx - 4} width={rect.widthPx + 8} height={rect.heightPx + 8} rx={5} className={styles.highlightFrame} />}
    </g>
  );
});

/** The id of one of the machine view's SVG definitions in lane `lane` (two lanes draw two machine views on one page). */
function defId(lane: string, name: string): string {
  return `mm-${lane}-${name}`;
}

function IpiArrow({ ipi, from, to, animate, index }: { ipi: IpiView; from: RectPx; to: RectPx; animate: boolean; index: number }) {
  const lane = useLane();
  const spanPx = Math.abs(rectCenterPx(from).xPx - rectCenterPx(to).xPx);
  const d = archOverPx(from, to, 34 + Math.min(40, spanPx * 0.08) + index * 8);
  if (ipi.phase === 'sent') {
    return (
      <g>
        <path d={d} className={styles.ipiHalo} />
        <path d={d} className={styles.ipiSent} markerEnd={`url(#${defId(lane, 'arrow')})`} />
        {animate && (
          <circle r={7} className={styles.ipiDot}>
            <animateMotion dur="1.1s" repeatCount="indefinite" path={d} />
          </circle>
        )}
      </g>
    );
  }
  return (
    <g>
      <path d={d} className={styles.ipiReceived} markerEnd={`url(#${defId(lane, 'arrow-faint')})`} />
      <rect x={to.xPx - 5} y={to.yPx - 5} width={to.widthPx + 10} height={to.heightPx + 10} rx={9} className={animate ? styles.flash : styles.flashStatic} />
    </g>
  );
}

/** The machine view panel. */
export function MachineView() {
  const titleId = useId();
  const lane = useLane();
  const summary = useRun((r) => r.summary);
  const frame = useRun((r) => r.frame);
  const hoverPfn = useAppStore((s) => s.hoverPfn);
  const selection = useAppStore((s) => s.selection);
  const setHoverPfn = useAppStore((s) => s.setHoverPfn);
  const select = useAppStore((s) => s.select);
  const reducedMotion = useReducedMotion();
  const selectedPfn = selection?.object.startsWith('pfn-') ? Number(selection.object.slice(4)) : null;
  const toggleSelect = useCallback(
    (pfn: number) => select(selectedPfn === pfn ? null : { panel: 'machine', object: `pfn-${pfn}` }),
    [select, selectedPfn],
  );
  // The frames take one Tab stop (roving): the frame last moved to with the arrows.
  const svgRef = useRef<SVGSVGElement | null>(null);
  const [focusPfn, setFocusPfn] = useState<number | null>(null);
  const moveFocus = useCallback((pfn: number, key: string): boolean => {
    const svg = svgRef.current;
    if (!svg) return false;
    // The drawn cells, in pfn order, where they are drawn (the first rect of each is the cell).
    const cells = [...svg.querySelectorAll<SVGGElement>('g[data-pfn]')].map((g) => {
      const r = g.querySelector('rect');
      return { id: Number(g.dataset.pfn), xPx: Number(r?.getAttribute('x')), yPx: Number(r?.getAttribute('y')) };
    });
    const next = cellInDirection(cells, pfn, key);
    if (next === null) return false;
    setFocusPfn(next);
    svg.querySelector<SVGGElement>(`g[data-pfn="${next}"]`)?.focus();
    return true;
  }, []);
  const bulkWindow = useRun((r) => r.bulkWindow);
  const laneActions = useLaneActions();
  const setBulkWindow = laneActions.setBulkWindow;
  const showPfn = laneActions.showPfn;
  // The frame gone to with the pager's "Go to pfn".
  const [goTo, setGoTo] = useState<number | null>(null);
  // A frame selected elsewhere (a PTE's pfn) that the frame window does not hold: ask for a window that does.
  useEffect(() => {
    if (selectedPfn !== null) void showPfn(selectedPfn);
  }, [selectedPfn, showPfn]);

  const topology = summary?.topology;
  // Lecture mode draws the machine at its natural size with room-sized type.
  const lecture = useAppStore((s) => s.mode === 'lecture');
  const metrics = lecture ? LECTURE_METRICS : DEFAULT_METRICS;
  const maxTlbLines = lecture ? LECTURE_TLB_LINES : MAX_TLB_LINES;
  // One threshold rule (isDense) for both grids; small machines stay SVG.
  const framesDense = isDense(frame?.bulk.framePfn.length ?? 0);
  const tlbDense = isDense((frame?.cpus.length ?? 0) * (topology?.tlbEntries ?? 0));
  const layout = useMemo(
    () =>
      topology
        ? machineLayoutPx(
            // Dense frames are drawn on a canvas under the SVG: the nodes keep no room for frame cells.
            topology.nodes.map((n) => ({ cpuCount: n.cpus.length, frameCount: framesDense ? 0 : n.memPages })),
            // Dense TLBs: each CPU box has one line (the entry count) instead of a list.
            tlbDense ? 1 : Math.min(topology.tlbEntries, maxTlbLines),
            metrics,
          )
        : null,
    [topology, framesDense, tlbDense, metrics, maxTlbLines],
  );
  if (!summary || !frame || !layout || !topology) return null;

  const cpuRects = new Map<number, RectPx>();
  const frameRects = new Map<number, RectPx>();
  const labelled = new Map<number, boolean>();
  topology.nodes.forEach((n, i) => {
    const nl = layout.nodes[i];
    if (!nl) return;
    n.cpus.forEach((cpu, k) => {
      const r = nl.cpus[k];
      if (r) cpuRects.set(cpu, r);
    });
    for (let k = 0; k < nl.frames.length; k++) {
      const r = nl.frames[k];
      if (r) frameRects.set(n.firstPfn + k, r);
    }
    labelled.set(n.id, frameLabelFits(nl.frameCellPx) && (!lecture || nl.frameCellPx >= LECTURE_METRICS.frameCellPx));
  });
  const event = frame.event;
  const eventCpu = event ? frame.cpus.find((c) => c.id === event.cpu) : undefined;
  const currentPid = eventCpu?.loadedMm ?? summary.processes[0]?.pid ?? null;
  const mask = new Set(currentPid === null ? [] : (frame.mmCpumask[String(currentPid)] ?? []));
  const touchedCpus = new Set(event?.touched.cpus ?? []);
  const touchedPfns = new Set(event?.touched.pfns ?? []);
  const ipis = frame.ipis.filter((i) => cpuRects.has(i.from) && cpuRects.has(i.to));
  const cpuIndex = new Map(frame.cpus.map((c, i) => [c.id, i]));
  const bulk = frame.bulk;
  const shownTlb = tlbLinesShown(topology.tlbEntries, maxTlbLines);
  const framesNote = windowNote(frame.frameWindow, 'frames');
  const linkedPfns = [hoverPfn, selectedPfn].filter((p): p is number => p !== null);
  // The frames' one Tab stop: the selected frame when it is drawn, else the one last moved to, else the first.
  const drawnPfns = framesDense ? [] : [...frameRects.keys()];
  const tabPfn = selectedPfn !== null && frameRects.has(selectedPfn) ? selectedPfn : focusPfn !== null && frameRects.has(focusPfn) ? focusPfn : (drawnPfns[0] ?? null);
  const cells: ReactElement[] = [];
  for (let i = 0; !framesDense && i < bulk.framePfn.length; i++) {
    const pfn = bulk.framePfn[i] as number;
    const r = frameRects.get(pfn);
    if (!r) continue;
    const node = bulk.frameNode[i] as number;
    cells.push(
      <FrameCell
        key={pfn}
        pfn={pfn}
        node={node}
        flags={bulk.frameFlags[i] as number}
        mapPid={bulk.frameMapPid[i] as number}
        mapVpn={bulk.frameMapVpn[i] as number}
        rect={r}
        touched={touchedPfns.has(pfn)}
        label={labelled.get(node) ?? true}
        fonts={lecture ? LECTURE_FONTS : labFontsPx(200)}
        highlighted={pfn === hoverPfn || pfn === selectedPfn}
        selected={pfn === selectedPfn}
        tabStop={pfn === tabPfn}
        onHover={setHoverPfn}
        onSelect={toggleSelect}
        onMove={moveFocus}
      />,
    );
  }
  const describe = `${topology.nodes.length} NUMA nodes. ${event ? `CPU ${event.cpu}: ${event.narration}` : 'Start of the run.'} ${ipis.map((i) => `IPI from CPU ${i.from} to CPU ${i.to} ${i.phase}.`).join(' ')}`;

  return (
    <section className={panel.panel} aria-labelledby={titleId}>
      <h2 id={titleId} className={`${panel.title} ${styles.machineTitle}`}>
        Machine{' '}
        <span className={panel.subtitle}>
          {currentPid !== null && <>mm_cpumask of pid {currentPid}: {[...mask].sort((a, b) => a - b).join(', ') || 'empty'}</>}
          {framesNote && <> · {framesNote} (the frame holds a window of memory)</>}
        </span>
      </h2>
      <svg
        className={styles.svg}
        // Room above the nodes for the IPI arcs (lecture mode's arcs over its wider boxes rise less).
        viewBox={`-4 ${lecture ? -30 : -36} ${layout.widthPx + 8} ${layout.heightPx + (lecture ? 34 : 40)}`}
        // Lecture mode: one user unit per CSS px, so the type is the size its fonts say.
        style={lecture ? { width: layout.widthPx + 8 } : undefined}
        ref={svgRef}
        role="group"
        aria-roledescription="machine drawing"
        aria-label={describe}
      >
        <defs>
          <marker id={defId(lane, 'arrow')} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4.5" markerHeight="4.5" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" style={{ fill: 'var(--ipi)', stroke: 'var(--oi-purple-dark)' }} strokeWidth="0.8" />
          </marker>
          <marker id={defId(lane, 'arrow-faint')} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" style={{ fill: 'var(--oi-purple-soft)' }} />
          </marker>
          <pattern id={defId(lane, 'hatch')} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <line x1="0" y1="0" x2="0" y2="6" style={{ stroke: 'var(--hatch)' }} strokeWidth="2" strokeOpacity="0.55" />
          </pattern>
          <pattern id={defId(lane, 'dots')} width="6" height="6" patternUnits="userSpaceOnUse">
            <circle cx="3" cy="3" r="1.1" style={{ fill: 'var(--dots)' }} fillOpacity="0.6" />
          </pattern>
        </defs>
        {topology.nodes.map((n, i) => {
          const nl = layout.nodes[i];
          if (!nl) return null;
          const cpuText = n.cpus.length > 0 ? `CPUs ${n.cpus.length > 4 ? cpuRanges(n.cpus) : n.cpus.join(', ')}` : 'no CPUs';
          return (
            <g key={n.id}>
              <rect x={nl.box.xPx} y={nl.box.yPx} width={nl.box.widthPx} height={nl.box.heightPx} rx={10} className={styles.node} />
              <text x={nl.box.xPx + 12} y={nl.box.yPx + 20} className={styles.nodeTitle}>
                Node {n.id} <tspan className={styles.nodeSub}>· {cpuText}</tspan>
              </text>
              {n.cpus.map((cpuId, k) => {
                const index = cpuIndex.get(cpuId);
                const cpu = index === undefined ? undefined : frame.cpus[index];
                const r = nl.cpus[k];
                if (!cpu || !r || index === undefined) return null;
                return (
                  <CpuBox
                    key={cpuId}
                    cpu={cpu}
                    tlb={tlbEntriesOf(bulk, index, shownTlb)}
                    tlbTotal={tlbCount(bulk, index)}
                    rect={r}
                    inMask={mask.has(cpuId)}
                    isEventCpu={event?.cpu === cpuId}
                    isTouched={touchedCpus.has(cpuId)}
                    tlbEntries={topology.tlbEntries}
                    showPid={summary.processes.length > 1}
                    tlbDense={tlbDense}
                    linkedPfns={linkedPfns}
                    metrics={metrics}
                    fonts={lecture ? LECTURE_FONTS : labFontsPx(r.widthPx)}
                    maxTlbLines={maxTlbLines}
                  />
                );
              })}
              <text x={nl.box.xPx + 12} y={nl.memLabelYPx} className={styles.memTitle}>
                Memory: pfn {n.firstPfn}–{n.firstPfn + n.memPages - 1}
                {framesDense ? ' (grid below)' : n.memPages > MAX_FRAMES_DRAWN ? ` (first ${MAX_FRAMES_DRAWN} shown)` : ''}
              </text>
            </g>
          );
        })}
        {cells}
        <g key={`ipis-${frame.step}`}>
          {ipis.map((ipi, i) => (
            <IpiArrow key={`${frame.step}-${i}`} ipi={ipi} from={cpuRects.get(ipi.from) as RectPx} to={cpuRects.get(ipi.to) as RectPx} animate={!reducedMotion} index={i} />
          ))}
        </g>
      </svg>
      {framesDense && (framesNote || bulkWindow.pfnStart !== 0) && (
        <WindowPager
          what="frames"
          shown={frame.frameWindow}
          asked={bulkWindow.pfnStart}
          size={ENGINE_WINDOW}
          onPage={(start) => void setBulkWindow({ ...bulkWindow, pfnStart: start })}
          goName="pfn"
          goPlaceholder="70000"
          onGo={(text) => {
            const pfn = parseIndex(text);
            const total = frameTotal(summary);
            if (pfn === null || pfn >= total) return `type a pfn from 0 to ${total - 1}`;
            setGoTo(pfn);
            void showPfn(pfn);
            return null;
          }}
          found={goTo !== null && findFrame(bulk, goTo) >= 0 ? frameText(bulk, findFrame(bulk, goTo)) : null}
        />
      )}
      {framesDense && (
        <FrameCanvas bulk={bulk} revealPfn={goTo} touchedPfns={event?.touched.pfns} hoverPfn={hoverPfn} selectedPfn={selectedPfn} onHoverPfn={setHoverPfn} onSelectPfn={toggleSelect} />
      )}
      {tlbDense && (
        <TlbCanvas
          bulk={bulk}
          slots={topology.tlbEntries}
          cpuCount={frame.cpus.length}
          eventCpu={event?.cpu ?? null}
          touchedCpus={event?.touched.cpus}
          touchedPtes={event?.touched.ptes}
          touchedPfns={event?.touched.pfns}
          hoverPfn={hoverPfn}
          selectedPfn={selectedPfn}
          onHoverPfn={setHoverPfn}
          onSelectPfn={toggleSelect}
        />
      )}
      {!lecture && (
      <ul className={styles.legend} aria-label="Legend">
        {/* Dense frames have their own legend under their grid. */}
        {(framesDense ? [] : (Object.keys(FRAME_COLORS) as FrameState[])).map((st) => (
          <li key={st}>
            <svg width="18" height="18" aria-hidden="true">
              <rect x="1" y="1" width="16" height="16" rx="3" style={{ fill: FRAME_COLORS[st], stroke: 'var(--frame-stroke)' }} />
              {st === 'migrating' && <rect x="1" y="1" width="16" height="16" rx="3" fill={`url(#${defId(lane, 'hatch')})`} />}
              {st === 'isolated' && <rect x="1" y="1" width="16" height="16" rx="3" fill={`url(#${defId(lane, 'dots')})`} />}
            </svg>
            {st}
          </li>
        ))}
        <li>
          <span className={styles.legendEvent} aria-hidden="true" /> CPU of this step
        </li>
        <li>
          <span className={styles.legendLazy} aria-hidden="true" /> lazy TLB
        </li>
        <li>
          <span className={styles.legendMask} aria-hidden="true">
            mask
          </span>{' '}
          in mm_cpumask (M on small CPUs; z = lazy)
        </li>
        <li>
          <span className={styles.legendIpi} aria-hidden="true">
            ⟶
          </span>{' '}
          IPI
        </li>
      </ul>
      )}
      {!lecture && <CpuStacks cpus={frame.cpus} event={event ?? null} />}
    </section>
  );
}
