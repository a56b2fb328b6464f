// Page-table view: one row per PTE of each VMA, with a pfn link that
// highlights (hover/focus) or selects (click) the frame in the machine view.
import { useState } from 'react';
import { formatHex } from '../base/format';
import type { NodeInfo, ProcessInfo, PteView, VmaInfo } from '../engine/types';
import { useAppStore } from '../store/context';
import styles from './PageTableView.module.css';
import panel from './Panel.module.css';

/** Node owning `pfn`, or null. */
export function nodeOfPfn(nodes: readonly NodeInfo[], pfn: number): number | null {
  return nodes.find((n) => pfn >= n.firstPfn && pfn < n.firstPfn + n.memPages)?.id ?? null;
}

/** Rows for one VMA: the frame's PTE for each vpn, or an empty ('none') PTE. */
export function vmaRows(pid: number, vma: VmaInfo, ptes: readonly PteView[]): PteView[] {
  const byVpn = new Map<number, PteView>();
  for (const p of ptes) if (p.pid === pid) byVpn.set(p.vpn, p);
  return Array.from({ length: vma.pages }, (_, i) => {
    const vpn = vma.startVpn + i;
    return byVpn.get(vpn) ?? { pid, vpn, kind: 'none', pfn: 0, write: false, dirty: false, accessed: false };
  });
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
  ptes: readonly PteView[];
  nodes: readonly NodeInfo[];
  touched: ReadonlySet<string>;
  hoverPfn: number | null;
  selectedPfn: number | null;
  setHoverPfn: (pfn: number | null) => void;
  toggleSelectPfn: (pfn: number) => void;
}

/** One VMA's PTEs; big VMAs show a window that follows the PTE the current step touched. */
function VmaTable({ proc, vma, ptes, nodes, touched, hoverPfn, selectedPfn, setHoverPfn, toggleSelectPfn }: VmaTableProps) {
  const rows = vmaRows(proc.pid, vma, ptes);
  const big = rows.length > PTE_WINDOW;
  const [start, setStart] = useState(0);
  const [followed, setFollowed] = useState<number | null>(null);
  const touchedIdx = rows.findIndex((p) => touched.has(`${p.pid}:${p.vpn}`));
  if (big && touchedIdx >= 0 && touchedIdx !== followed) {
    // Follow the touched PTE (adjusting state while rendering, as React recommends).
    setFollowed(touchedIdx);
    setStart(windowStartFor(touchedIdx, start, PTE_WINDOW, rows.length));
  }
  const first = big ? Math.min(start, Math.max(0, rows.length - PTE_WINDOW)) : 0;
  const visible = big ? rows.slice(first, first + PTE_WINDOW) : rows;
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
              rows {first + 1}–{first + visible.length} of {rows.length}
              <button
                type="button"
                className={styles.pageButton}
                disabled={first + PTE_WINDOW >= rows.length}
                onClick={() => setStart(Math.min(rows.length - PTE_WINDOW, first + PTE_WINDOW))}
              >
                Later PTEs
              </button>
            </span>
          )}
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
          {visible.map((pte) => {
            const isTouched = touched.has(`${pte.pid}:${pte.vpn}`);
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
  const summary = useAppStore((s) => s.summary);
  const frame = useAppStore((s) => s.frame);
  const selection = useAppStore((s) => s.selection);
  const hoverPfn = useAppStore((s) => s.hoverPfn);
  const setHoverPfn = useAppStore((s) => s.setHoverPfn);
  const select = useAppStore((s) => s.select);
  if (!summary || !frame) return null;
  const touched = new Set((frame.event?.touched.ptes ?? []).map(([pid, vpn]) => `${pid}:${vpn}`));
  const selectedPfn = selection?.object.startsWith('pfn-') ? Number(selection.object.slice(4)) : null;
  const toggleSelectPfn = (pfn: number): void => select(selectedPfn === pfn ? null : { panel: 'machine', object: `pfn-${pfn}` });

  return (
    <section className={panel.panel} aria-labelledby="pt-title">
      <h2 id="pt-title" className={panel.title}>
        Page tables <span className={panel.subtitle}>hover or focus a pfn to find its frame; click to keep it selected</span>
      </h2>
      <div className={styles.vmas}>
        {summary.processes.flatMap((proc) =>
          proc.vmas.map((vma) => (
            <VmaTable
              key={`${summary.id}-${proc.pid}-${vma.startVpn}`}
              proc={proc}
              vma={vma}
              ptes={frame.ptes}
              nodes={summary.topology.nodes}
              touched={touched}
              hoverPfn={hoverPfn}
              selectedPfn={selectedPfn}
              setHoverPfn={setHoverPfn}
              toggleSelectPfn={toggleSelectPfn}
            />
          )),
        )}
      </div>
    </section>
  );
}
