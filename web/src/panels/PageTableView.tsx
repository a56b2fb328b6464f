// Page-table view: one row per PTE of each VMA, with a pfn link that
// highlights (hover/focus) or selects (click) the frame in the machine view.
import { formatHex } from '../base/format';
import type { NodeInfo, PteView, VmaInfo } from '../engine/types';
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
  const nodes = summary.topology.nodes;

  return (
    <section className={panel.panel} aria-labelledby="pt-title">
      <h2 id="pt-title" className={panel.title}>
        Page tables <span className={panel.subtitle}>hover or focus a pfn to find its frame; click to keep it selected</span>
      </h2>
      <div className={styles.vmas}>
        {summary.processes.flatMap((proc) =>
          proc.vmas.map((vma) => (
            <div key={`${proc.pid}-${vma.startVpn}`} className={styles.vma}>
              <table className={styles.table}>
                <caption className={styles.caption}>
                  pid {proc.pid} <strong>{proc.name}</strong> · {vma.name || vma.kind} ({vma.kind}) · vpn {formatHex(vma.startVpn)}–{formatHex(vma.startVpn + vma.pages - 1)}
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
                  {vmaRows(proc.pid, vma, frame.ptes).map((pte) => {
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
                              onClick={() => select(selectedPfn === pte.pfn ? null : { panel: 'machine', object: `pfn-${pte.pfn}` })}
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
          )),
        )}
      </div>
    </section>
  );
}
