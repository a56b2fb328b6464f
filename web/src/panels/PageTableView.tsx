// Page-table view: one row per PTE of each VMA, with a pfn link that
// highlights (hover/focus) or selects (click) the frame in the machine view.
// It reads the frame's bulk arrays and builds objects only for the rows shown.
// Dense page tables (more than DENSE_THRESHOLD PTEs in the frame) are drawn as
// canvas grids instead (./dense PteCanvas), with the same hover/select linking.
import { useCallback, useEffect, useId, useState } from 'react';
import { formatHex } from '../base/format';
import { findPte, pteAt, windowNote, type FrameBulk } from '../engine/bulk';
import type { NodeInfo, ProcessInfo, PteView, VmaInfo } from '../engine/types';
import { ENGINE_WINDOW, pteIndex } from '../store/bulkWindow';
import { useAppStore, useLaneActions, useRun } from '../store/context';
import { isDense, parseIndex, PteCanvas, WindowPager } from './dense';
import { pteText } from './dense/denseMath';
import styles from './PageTableView.module.css';
import panel from './Panel.module.css';

/** Node owning `pfn`, or null. */
export function nodeOfPfn(nodes: readonly NodeInfo[], pfn: number): number | null {
  return nodes.find((n) => pfn >= n.firstPfn && pfn < n.firstPfn + n.memPages)?.id ?? null;
}

/** A row of a VMA's table: its PTE, or null when the frame's PTE window does not hold it. */
export interface PteRow {
  vpn: number;
  pte: PteView | null;
}

/** Rows `first` to `first + count - 1` of one VMA (clamped to it), read from the bulk arrays. */
export function vmaRows(pid: number, vma: VmaInfo, bulk: FrameBulk, first = 0, count = vma.pages): PteRow[] {
  const rows: PteRow[] = [];
  for (let i = Math.max(0, first); i < Math.min(vma.pages, first + count); i++) {
    const vpn = vma.startVpn + i;
    const at = findPte(bulk, pid, vpn);
    rows.push({ vpn, pte: at < 0 ? null : pteAt(bulk, at) });
  }
  return rows;
}

/** Index in the VMA of the first PTE of `pid` the step touched, or -1. */
export function touchedRow(pid: number, vma: VmaInfo, touched: readonly [number, number][]): number {
  for (const [p, vpn] of touched) if (p === pid && vpn >= vma.startVpn && vpn < vma.startVpn + vma.pages) return vpn - vma.startVpn;
  return -1;
}

/** Big VMAs show this many PTE rows at a time. */
export const PTE_WINDOW = 64;

/** First row of the window so that row `index` is visible: unchanged if it already is, else `index` near the top. */
export function windowStartFor(index: number, start: number, size: number, total: number): number {
  if (index >= start && index < start + size) return start;
  return Math.max(0, Math.min(Math.max(0, total - size), index - Math.floor(size / 8)));
}

const KIND_LABEL: Record<PteView['kind'], string> = {
  none: 'none',
  present: 'present',
  protnone: 'PROT_NONE',
  migration: 'migration',
};

function Bit({ on, letter, name }: { on: boolean; letter: string; name: string }) {
  return (
    <td className={on ? styles.bitOn : styles.bitOff} title={`${name}: ${on ? 'set' : 'clear'}`}>
      {on ? letter : '·'}
      <span className="visually-hidden">{on ? ` ${name} set` : ` ${name} clear`}</span>
    </td>
  );
}

interface VmaTableProps {
  proc: ProcessInfo;
  vma: VmaInfo;
  bulk: FrameBulk;
  touchedPtes: readonly [number, number][];
  nodes: readonly NodeInfo[];
  touched: ReadonlySet<string>;
  hoverPfn: number | null;
  selectedPfn: number | null;
  setHoverPfn: (pfn: number | null) => void;
  toggleSelectPfn: (pfn: number) => void;
  /** Asks for a frame window that holds the PTE (pid, vpn): rows outside the frame's window call it. */
  showPte: (pid: number, vpn: number) => void;
}

/** One VMA's PTEs; big VMAs show a window that follows the PTE the current step touched. */
function VmaTable({ proc, vma, bulk, touchedPtes, nodes, touched, hoverPfn, selectedPfn, setHoverPfn, toggleSelectPfn, showPte }: VmaTableProps) {
  const total = vma.pages;
  const big = total > PTE_WINDOW;
  const [start, setStart] = useState(0);
  const [followed, setFollowed] = useState<number | null>(null);
  const touchedIdx = touchedRow(proc.pid, vma, touchedPtes);
  if (big && touchedIdx >= 0 && touchedIdx !== followed) {
    // Follow the touched PTE (adjusting state while rendering, as React recommends).
    setFollowed(touchedIdx);
    setStart(windowStartFor(touchedIdx, start, PTE_WINDOW, total));
  }
  const first = big ? Math.min(start, Math.max(0, total - PTE_WINDOW)) : 0;
  const visible = vmaRows(proc.pid, vma, bulk, first, big ? PTE_WINDOW : total);
  const outside = visible.filter((r) => r.pte === null).length;
  // Rows shown that the frame's PTE window does not hold: ask for a window that does.
  const firstOutside = visible.find((r) => r.pte === null)?.vpn ?? null;
  useEffect(() => {
    if (firstOutside !== null) showPte(proc.pid, firstOutside);
  }, [firstOutside, proc.pid, showPte]);
  return (
    <div className={styles.vma}>
      <table className={styles.table}>
        <caption className={styles.caption}>
          pid {proc.pid} <strong>{proc.name}</strong> · {vma.name || vma.kind} ({vma.kind}) · vpn {formatHex(vma.startVpn)}–{formatHex(vma.startVpn + vma.pages - 1)}
          {big && (
            <span className={styles.pager}>
              <button type="button" className={styles.pageButton} disabled={first === 0} onClick={() => setStart(Math.max(0, first - PTE_WINDOW))}>
                Earlier PTEs
              </button>
              rows {first + 1}–{first + visible.length} of {total}
              <button
                type="button"
                className={styles.pageButton}
                disabled={first + PTE_WINDOW >= total}
                onClick={() => setStart(Math.min(total - PTE_WINDOW, first + PTE_WINDOW))}
              >
                Later PTEs
              </button>
            </span>
          )}
          {outside > 0 && <span className={styles.outside}> · {outside} of these rows are outside the frame's PTE window</span>}
        </caption>
        <thead>
          <tr>
            <th scope="col">vpn</th>
            <th scope="col">PTE</th>
            <th scope="col">pfn</th>
            <th scope="col" title="writable">
              W
            </th>
            <th scope="col" title="dirty">
              D
            </th>
            <th scope="col" title="accessed">
              A
            </th>
          </tr>
        </thead>
        <tbody>
          {visible.map(({ vpn, pte }) => {
            const isTouched = touched.has(`${proc.pid}:${vpn}`);
            if (!pte) {
              return (
                <tr key={vpn} className={isTouched ? styles.touched : ''}>
                  <th scope="row" className={styles.vpn}>
                    {formatHex(vpn)}
                  </th>
                  <td colSpan={5} className={styles.muted}>
                    not in this view (outside the PTE window)
                  </td>
                </tr>
              );
            }
            const hasPfn = pte.kind !== 'none';
            const node = hasPfn ? nodeOfPfn(nodes, pte.pfn) : null;
            const linked = hasPfn && (pte.pfn === hoverPfn || pte.pfn === selectedPfn);
            return (
              <tr key={pte.vpn} className={`${isTouched ? styles.touched : ''} ${linked ? styles.linked : ''}`}>
                <th scope="row" className={styles.vpn}>
                  {formatHex(pte.vpn)}
                </th>
                <td>
                  <span className={styles[`kind_${pte.kind}`]}>{KIND_LABEL[pte.kind]}</span>
                </td>
                <td>
                  {hasPfn ? (
                    <button
                      type="button"
                      className={styles.pfn}
                      aria-pressed={selectedPfn === pte.pfn}
                      aria-label={`pfn ${pte.pfn}${node === null ? '' : ` on node ${node}`}: highlight the frame`}
                      onMouseEnter={() => setHoverPfn(pte.pfn)}
                      onMouseLeave={() => setHoverPfn(null)}
                      onFocus={() => setHoverPfn(pte.pfn)}
                      onBlur={() => setHoverPfn(null)}
                      onClick={() => toggleSelectPfn(pte.pfn)}
                    >
                      → {formatHex(pte.pfn)}
                      {node !== null && <span className={styles.node}> n{node}</span>}
                    </button>
                  ) : (
                    <span className={styles.muted}>—</span>
                  )}
                </td>
                <Bit on={pte.write} letter="W" name="writable" />
                <Bit on={pte.dirty} letter="D" name="dirty" />
                <Bit on={pte.accessed} letter="A" name="accessed" />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The page tables of the scenario's processes. */
export function PageTableView() {
  const titleId = useId();
  const summary = useRun((r) => r.summary);
  const frame = useRun((r) => r.frame);
  const selection = useAppStore((s) => s.selection);
  const hoverPfn = useAppStore((s) => s.hoverPfn);
  const setHoverPfn = useAppStore((s) => s.setHoverPfn);
  const select = useAppStore((s) => s.select);
  const bulkWindow = useRun((r) => r.bulkWindow);
  const laneActions = useLaneActions();
  const setBulkWindow = laneActions.setBulkWindow;
  const storeShowPte = laneActions.showPte;
  const showPte = useCallback((pid: number, vpn: number): void => void storeShowPte(pid, vpn), [storeShowPte]);
  // The PTE gone to with the pager's "Go to vpn", and the process it is looked for in.
  const [goTo, setGoTo] = useState<{ pid: number; vpn: number } | null>(null);
  const [goPid, setGoPid] = useState<number | null>(null);
  const selectedPfn = selection?.object.startsWith('pfn-') ? Number(selection.object.slice(4)) : null;
  // Stable while the selection is: the dense grids redraw only their overlays on hover.
  const toggleSelectPfn = useCallback(
    (pfn: number): void => select(selectedPfn === pfn ? null : { panel: 'machine', object: `pfn-${pfn}` }),
    [select, selectedPfn],
  );
  if (!summary || !frame) return null;
  const touchedPtes = frame.event?.touched.ptes ?? [];
  const touched = new Set(touchedPtes.map(([pid, vpn]) => `${pid}:${vpn}`));
  const note = windowNote(frame.pteWindow, 'PTEs');
  const dense = isDense(frame.bulk.ptePid.length);
  const pid = goPid ?? summary.processes[0]?.pid ?? 1;
  const onGo = (text: string): string | null => {
    const vpn = parseIndex(text);
    if (vpn === null) return 'type a vpn, e.g. 0x7f000';
    if (pteIndex(summary, pid, vpn) < 0) return `no VMA of pid ${pid} holds vpn ${formatHex(vpn)}`;
    setGoTo({ pid, vpn });
    showPte(pid, vpn);
    return null;
  };
  const goneTo = goTo ? findPte(frame.bulk, goTo.pid, goTo.vpn) : -1;

  return (
    <section className={panel.panel} aria-labelledby={titleId}>
      <h2 id={titleId} className={panel.title}>
        Page tables{' '}
        <span className={panel.subtitle}>
          {dense ? 'hover a PTE (or focus the grid and use the arrow keys) to find its frame; click or Enter keeps it selected' : 'hover or focus a pfn to find its frame; click to keep it selected'}
        </span>
      </h2>
      {note && (
        <p className={styles.windowNote} role="status">
          {note} (the frame holds a window of the page tables{dense ? '' : '; rows outside it say so'})
        </p>
      )}
      {dense && (note || bulkWindow.pteOffset !== 0) && (
        <WindowPager
          what="PTEs"
          shown={frame.pteWindow}
          asked={bulkWindow.pteOffset}
          size={ENGINE_WINDOW}
          onPage={(start) => void setBulkWindow({ ...bulkWindow, pteOffset: start })}
          goName="vpn"
          goPlaceholder="0x7f000"
          onGo={onGo}
          found={goneTo >= 0 ? pteText(frame.bulk, goneTo) : null}
        >
          {summary.processes.length > 1 && (
            <select aria-label="pid" value={pid} onChange={(e) => setGoPid(Number(e.target.value))}>
              {summary.processes.map((p) => (
                <option key={p.pid} value={p.pid}>
                  pid {p.pid} {p.name}
                </option>
              ))}
            </select>
          )}
        </WindowPager>
      )}
      {dense ? (
        <PteCanvas
          reveal={goTo}
          bulk={frame.bulk}
          window={frame.pteWindow}
          processes={summary.processes}
          touched={frame.event?.touched.ptes}
          hoverPfn={hoverPfn}
          selectedPfn={selectedPfn}
          onHoverPfn={setHoverPfn}
          onSelectPfn={toggleSelectPfn}
        />
      ) : (
        <div className={styles.vmas}>
          {summary.processes.flatMap((proc) =>
            proc.vmas.map((vma) => (
              <VmaTable
                key={`${summary.id}-${proc.pid}-${vma.startVpn}`}
                proc={proc}
                vma={vma}
                bulk={frame.bulk}
                touchedPtes={touchedPtes}
                nodes={summary.topology.nodes}
                touched={touched}
                hoverPfn={hoverPfn}
                selectedPfn={selectedPfn}
                setHoverPfn={setHoverPfn}
                toggleSelectPfn={toggleSelectPfn}
                showPte={showPte}
              />
            )),
          )}
        </div>
      )}
    </section>
  );
}
