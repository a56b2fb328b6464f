// The Machine dialog's `/proc/zoneinfo` box: the same machine's zones, which the run then uses
// (each node's sizes and watermarks divided by the memory scale, its pageset sizes per CPU as
// printed), with a table that says, value by value, what comes from the paste, what the model
// derives and what the scenario's knobs set. The text is the store's `pastes.zoneinfo`, the
// same as Measured…'s zoneinfo box.
import { formatCount } from '../base/format';
import { crowdedNodes, pagesetSource, pcpKnobsSet, zonesPages, type Source } from '../base/zones';
import type { NodeZone } from '../engine/types';
import { useAppStore } from '../store/context';
import styles from './MachineDialog.module.css';
import { PasteBox, type Parsed } from './PasteBox';

/** One pageset size with where it comes from. */
function Sized({ z, what, knobs }: { z: NodeZone; what: 'batch' | 'high_min' | 'high_max'; knobs: readonly { name: string; value: string }[] }) {
  const { value, source } = pagesetSource(z, what, knobs);
  const label: Record<Source, string> = { pasted: 'pasted', 'derived from the pasted zone': 'derived', model: 'model', knob: 'knob' };
  return (
    <td className={styles.num} title={source === 'knob' ? 'the scenario sets it in [knobs]' : source}>
      {value === null ? '—' : typeof value === 'number' ? formatCount(value) : value} <span className={styles.count}>({label[source]})</span>
    </td>
  );
}

/** What the run takes per node. */
function ZonesPreview({ zones, scale, knobs }: { zones: NodeZone[]; scale: number; knobs: { name: string; value: string }[] }) {
  const crowded = crowdedNodes(zones);
  return (
    <>
      <table className={styles.table} aria-label="Zones the run uses" data-testid="machine-zones-table">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Zones merged</th>
            <th scope="col">Managed</th>
            <th scope="col">Simulated pages</th>
            <th scope="col">min / low / high (simulated)</th>
            <th scope="col">PCP batch</th>
            <th scope="col">PCP high_min</th>
            <th scope="col">PCP high_max</th>
          </tr>
        </thead>
        <tbody>
          {zones.map((z) => (
            <tr key={z.node}>
              <th scope="row">{z.node}</th>
              <td>{z.zones.length > 0 ? z.zones.join(' + ') : 'no memory'}</td>
              <td className={styles.num}>{formatCount(z.managed)}</td>
              <td className={styles.num}>{formatCount(z.sim_managed)}</td>
              <td className={styles.num}>
                {z.sim_wmarks.map(formatCount).join(' / ')} <span className={styles.count}>(pasted)</span>
              </td>
              <Sized z={z} what="batch" knobs={knobs} />
              <Sized z={z} what="high_min" knobs={knobs} />
              <Sized z={z} what="high_max" knobs={knobs} />
            </tr>
          ))}
        </tbody>
      </table>
      <p className={styles.note} data-testid="machine-zones-note">
        The run uses these zones: {formatCount(zonesPages(zones))} simulated pages in all. The model has one zone per node, so a node’s zones are merged (their managed pages and
        watermarks added up). Sizes and watermarks are divided by the memory scale ({formatCount(scale)} real 4 KiB page{scale === 1 ? '' : 's'} per simulated page), so a node
        reaches a watermark at the same share of its memory as on the real machine. Pageset sizes (batch, high) are per CPU, not shares of memory: they are used as printed, at any
        scale, because the scenario’s workloads are not scaled either; they come from each node’s largest zone. “pasted”: printed by this kernel; “derived”: high_max this kernel
        does not print, computed as the model does (<code>zone_highsize</code>, managed / 8 over the node’s CPUs) from the real zone; “model”: not printed, the model derives it
        from the simulated zone{knobs.length > 0 ? <>; “knob”: the scenario sets {knobs.map((k) => `${k.name} = ${k.value}`).join(', ')} in [knobs], which wins over the paste</> : ''}.
      </p>
      {crowded.length > 0 && (
        <p className={styles.note} data-testid="machine-zones-crowded">
          At this scale the CPUs’ lists can hold a large share of a node’s simulated memory at high_min (
          {crowded.map((z) => `node ${z.node}: ${z.pcp_share} %`).join(', ')}), more than on the real machine: a smaller memory scale keeps that share as it is there.
        </p>
      )}
    </>
  );
}

/** The zoneinfo box and what the run takes from it; `parsed` is the engine's `zones` reading at the chosen scale. */
export function MachineZones({ parsed, scale, numactlOk }: { parsed: Parsed<NodeZone[]>; scale: number; numactlOk: boolean }) {
  const text = useAppStore((s) => s.pastes.zoneinfo);
  const setPaste = useAppStore((s) => s.setPaste);
  const scenarioText = useAppStore((s) => s.scenarioText);
  // Messages about the numactl or lscpu text are shown at those boxes.
  const mine = parsed.kind === 'error' && !/^(?:Error: )?(?:numactl|lscpu) text /.test(parsed.message);
  return (
    <PasteBox
      label={
        <>
          <code>/proc/zoneinfo</code> of the same machine <span className={styles.count}>(optional)</span>
        </>
      }
      text={text}
      onChange={(t) => setPaste('zoneinfo', t)}
      error={mine && parsed.kind === 'error' ? parsed.message : null}
      what="zoneinfo"
      placeholder={'$ cat /proc/zoneinfo\nNode 0, zone   Normal\n  pages free     3977\n        min      5\n...'}
      rows={7}
      testId="machine-zoneinfo-text"
      errorTestId="machine-zoneinfo-error"
    >
      {text.trim() === '' && <p className={styles.note}>Nothing pasted: the model derives each node’s watermarks and pageset sizes from its size.</p>}
      {text.trim() !== '' && !numactlOk && <p className={styles.note}>Read once the numactl text is.</p>}
      {parsed.kind === 'ok' && <ZonesPreview zones={parsed.value} scale={scale} knobs={pcpKnobsSet(scenarioText)} />}
    </PasteBox>
  );
}
