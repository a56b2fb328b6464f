// The per-CPU page list (PCP) panel of the page allocator: per zone the buddy free area by
// order, memory split and the zone lock with its holder and queue; per (CPU, zone) the
// pageset's lists stacked by order and migratetype with count, high and batch as lines
// (high_min/high_max when auto-tuning is on), the function the CPU is in, this step's
// refill or drain, and a sparkline of high and count over the steps visited. Everything
// but the sparklines comes from the frame's `views.pcp` (mech/page_alloc_view.rs), built
// from the engine at that step; the sparklines are the frames this run has shown, by step.
// (The CPU cell of a row is a plain cell, not a row header: the page's row headers are the
// counters table's, which the e2e helper reads.)
import { useId, useState } from 'react';
import { formatCount } from '../../base/format';
import type { PcpCpuView } from '../../engine/generated/PcpCpuView';
import type { PcpView } from '../../engine/generated/PcpView';
import type { PcpZoneView } from '../../engine/generated/PcpZoneView';
import { useRun } from '../../store/context';
import { MechanismPanel } from '../MechanismPanel';
import panel from '../Panel.module.css';
import type { MechanismPanelProps } from '../registry';
import type { PcpHistory} from './pcp';
import { ACTIVITY_LABEL, activityOf, cpuPage, historyFor, MT_OPACITY, ORDER_COLORS, OTHER_ORDER_COLOR, pageOfCpu, ranges, scaleMax, segments, sparkPath, type Activity } from './pcp';
import styles from './PcpPanel.module.css';

const BAR_W = 400;
const BAR_H = 26;
const SPARK_W = 130;
const SPARK_H = 30;

/** The PCP panel (view "pcp"); the generic panel when the frame carries no PCP state. */
export function PcpPanel(props: MechanismPanelProps) {
  const frame = useRun((r) => r.frame);
  const sim = useRun((r) => r.sim);
  const [page, setPage] = useState(0);
  const [follow, setFollow] = useState(true);
  const id = useId();
  const v = frame?.views.pcp as PcpView | undefined;
  if (!frame || !v) return <MechanismPanel {...props} />;
  // The history belongs to one run: a new run (toggles, params, scenario) starts it again.
  const h = historyFor(sim);
  h.record(frame.step, v);

  const act = activityOf(frame.event);
  const acting = frame.event?.cpu ?? null;
  const followed = follow && acting !== null ? pageOfCpu(acting, v.cpusListed) : null;
  const pg = cpuPage(v.cpusListed, followed ?? page);
  const rows = v.pcps.filter((p) => p.cpu >= pg.first && p.cpu <= pg.last);
  const max = scaleMax(rows, v.autotune);
  const span = h.span();
  const sparkMax = Math.max(1, ...rows.flatMap((r) => h.samples(r.cpu, r.zone).map((s) => Math.max(s.high, s.count))));
  const move = (d: number) => {
    setFollow(false);
    setPage(Math.min(Math.max(0, pg.page + d), pg.pages - 1));
  };

  return (
    <section className={`${panel.panel} ${styles.pcp}`} aria-labelledby={`${id}-title`} data-mechanism={props.mechanism.id} data-view={props.view.id}>
      <h2 id={`${id}-title`} className={panel.title}>
        {props.view.title}
        <span className={panel.subtitle}>
          {v.nrCpus} CPU{v.nrCpus === 1 ? '' : 's'} × {v.zones.length} zone{v.zones.length === 1 ? '' : 's'}
          {v.autotune ? ' · high auto-tuned' : ' · high fixed'}
        </span>
      </h2>
      <div className={styles.zones}>
        {v.zones.map((z) => (
          <ZoneCard key={z.id} zone={z} totals={v.totals[z.id]} />
        ))}
      </div>
      <div className={styles.pager} role="group" aria-label="Pagesets shown">
        <strong>
          Pagesets: CPU{pg.first === pg.last ? '' : 's'} {pg.first === pg.last ? pg.first : `${pg.first}-${pg.last}`} of {v.nrCpus}
        </strong>
        {pg.pages > 1 && (
          <>
            <button type="button" className={panel.smallButton} onClick={() => move(-1)} disabled={pg.page === 0} aria-label="Previous CPUs">
              ◀
            </button>
            <span data-testid="pcp-page">
              page {pg.page + 1}/{pg.pages}
            </span>
            <button type="button" className={panel.smallButton} onClick={() => move(1)} disabled={pg.page === pg.pages - 1} aria-label="Next CPUs">
              ▶
            </button>
            <label className={styles.follow}>
              <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> follow the acting CPU
            </label>
          </>
        )}
        {v.cpusListed < v.nrCpus && (
          <span className={styles.note} data-testid="pcp-capped">
            CPUs {v.cpusListed}-{v.nrCpus - 1} are not drawn one by one: the totals above include them
          </span>
        )}
      </div>
      <table className={styles.rows} aria-label="Per-CPU pagesets">
        <thead>
          <tr>
            <th scope="col">CPU · zone</th>
            <th scope="col">
              Lists (pages, stacked by order and migratetype); lines: <span className={styles.keyHigh}>high</span>, <span className={styles.keyBatch}>batch</span>
              {v.autotune && (
                <>
                  , <span className={styles.keyRange}>high_min/high_max</span>
                </>
              )}
            </th>
            <th scope="col">count / high / batch</th>
            <th scope="col" title="high (red) and count (black) at each step whose frame this run has shown, placed by step: steps not visited are not sampled">
              high, count over steps seen
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <PagesetRow
              key={`${r.cpu}/${r.zone}`}
              row={r}
              v={v}
              max={max}
              acting={acting === r.cpu}
              activity={act && act.cpu === r.cpu ? act.activity : null}
              spark={span ? sparkPaths(h, r, span, sparkMax) : null}
            />
          ))}
        </tbody>
      </table>
      <p className={styles.caption}>
        Bars share one scale up to {formatCount(max)} pages
        {v.autotune && rows.some((r) => r.highMax > max) ? ` (high_max ${formatCount(Math.max(...rows.map((r) => r.highMax)))} is beyond it)` : ''}. Sparklines: the {formatCount(h.size)} step
        {h.size === 1 ? '' : 's'} visited in this run{span ? `, steps ${formatCount(span[0])}-${formatCount(span[1])}` : ''}, one scale up to {formatCount(sparkMax)}.
      </p>
      <Legend v={v} />
    </section>
  );
}

function sparkPaths(h: PcpHistory, r: PcpCpuView, span: [number, number], max: number): { high: string; count: string; n: number } {
  const s = h.samples(r.cpu, r.zone);
  return {
    high: sparkPath(s, (x) => x.high, span, max, SPARK_W, SPARK_H),
    count: sparkPath(s, (x) => x.count, span, max, SPARK_W, SPARK_H),
    n: s.length,
  };
}

function ZoneCard({ zone: z, totals }: { zone: PcpZoneView; totals: PcpView['totals'][number] | undefined }) {
  const maxBlocks = Math.max(1, ...z.freeBlocks);
  const used = (n: number) => `${((100 * n) / Math.max(1, z.managed)).toFixed(1)}%`;
  const lock = z.lock;
  return (
    <div className={styles.zone} data-testid={`pcp-zone-${z.id}`}>
      <h3 className={styles.zoneTitle}>
        Zone Normal · node {z.node} <span className={styles.soft}>{formatCount(z.managed)} pages</span>
      </h3>
      <div className={styles.memBar} aria-label={`In use ${formatCount(z.inUse)}, on PCPs ${formatCount(z.pcpPages)}, buddy free ${formatCount(z.buddyFree)}`}>
        <span className={styles.memUsed} style={{ width: used(z.inUse) }} />
        <span className={styles.memPcp} style={{ width: used(z.pcpPages) }} />
        <span className={styles.memFree} style={{ width: used(z.buddyFree) }} />
      </div>
      <dl className={styles.facts}>
        <dt>in use</dt>
        <dd>{formatCount(z.inUse)}</dd>
        <dt className={styles.pcpKey}>on PCPs</dt>
        <dd data-testid="pcp-zone-pcp-pages">{formatCount(z.pcpPages)}</dd>
        <dt className={styles.freeKey}>buddy free</dt>
        <dd>{formatCount(z.buddyFree)}</dd>
        <dt>watermarks min/low/high</dt>
        <dd>{z.wmark.map(formatCount).join('/')}</dd>
        <dt>batch · high_min–max</dt>
        <dd>
          {formatCount(z.batch)} · {formatCount(z.highMin)}–{formatCount(z.highMax)}
        </dd>
        {totals && (
          <>
            <dt>Σ high, all CPUs · largest</dt>
            <dd>
              {formatCount(totals.high)} · {formatCount(totals.highPeak)}
            </dd>
          </>
        )}
        {z.belowHigh && (
          <>
            <dt>ZONE_BELOW_HIGH</dt>
            <dd>set</dd>
          </>
        )}
      </dl>
      <div className={styles.freeArea} role="img" aria-label={`Free blocks by order: ${z.freeBlocks.map((n, o) => `order ${o}: ${n}`).join(', ')}`}>
        {z.freeBlocks.map((n, o) => (
          <div key={o} className={styles.freeCol} title={`order ${o}: ${formatCount(n)} free block${n === 1 ? '' : 's'} (${formatCount(n * 2 ** o)} pages)`}>
            <span className={styles.freeN}>{n > 999 ? `${Math.round(n / 1000)}k` : n}</span>
            <span className={styles.freeBar} style={{ height: `${n === 0 ? 0 : 4 + (24 * Math.log1p(n)) / Math.log1p(maxBlocks)}px` }} />
            <span className={styles.freeO}>{o}</span>
          </div>
        ))}
      </div>
      <div className={styles.freeCaption}>free blocks by order (log scale)</div>
      <div className={lock.holder === null ? styles.lock : `${styles.lock} ${styles.lockHeld}`} data-testid={`pcp-lock-${z.id}`}>
        <strong>zone-&gt;lock</strong>{' '}
        {lock.holder === null ? (
          'free'
        ) : (
          <>
            held by CPU {lock.holder}
            {lock.holderTask ? ` (${lock.holderTask})` : ''}
          </>
        )}
        {lock.waiters.length > 0 && (
          <span className={styles.waiters}>
            {' '}
            · {lock.waiters.length} waiting:{' '}
            {lock.waiters.slice(0, 6).map((w, i) => (
              <span key={i} className={styles.waiter}>
                CPU {w.cpu} ({w.task})
              </span>
            ))}
            {lock.waiters.length > 6 && <span className={styles.soft}> +{lock.waiters.length - 6} more (CPUs {ranges([...new Set(lock.waiters.slice(6).map((w) => w.cpu))].sort((a, b) => a - b))})</span>}
          </span>
        )}
      </div>
    </div>
  );
}

function PagesetRow({
  row: r,
  v,
  max,
  acting,
  activity,
  spark,
}: {
  row: PcpCpuView;
  v: PcpView;
  max: number;
  acting: boolean;
  activity: Activity | null;
  spark: { high: string; count: string; n: number } | null;
}) {
  const x = (pages: number) => (Math.min(pages, max) / max) * BAR_W;
  const segs = segments(r.lists, v.lists);
  const title = segs.map((s) => `order ${s.order} ${s.migratetype}: ${formatCount(s.pages)} pages`).join('\n') || 'empty';
  // The acting CPU's row (or the only one) spells its fields out; the others in a tooltip.
  const details = [
    v.autotune ? `range ${formatCount(r.highMin)}-${formatCount(r.highMax)}` : '',
    `free_factor ${r.freeFactor}`,
    `free_count ${formatCount(r.freeCount)}`,
    `alloc_factor ${r.allocFactor}`,
    r.flags.join(', '),
    r.expire > 0 ? `expire ${r.expire}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const cls = [styles.row, acting ? styles.acting : '', r.spinning ? styles.spinning : ''].filter(Boolean).join(' ');
  return (
    <tr className={cls} data-testid={`pcp-row-${r.cpu}-${r.zone}`} data-count={r.count} data-high={r.high}>
      <td className={styles.who}>
        CPU {r.cpu}
        {v.zones.length > 1 ? <span className={styles.soft}> · z{r.zone}</span> : null}
        {r.inFunction && <div className={styles.func}>{r.inFunction}</div>}
        {r.spinning && <div className={styles.spin}>spinning on zone lock</div>}
        {activity && (
          <div className={`${styles.badge} ${styles[`act_${activity}`] ?? ''}`} data-testid="pcp-activity">
            {ACTIVITY_LABEL[activity]}
          </div>
        )}
      </td>
      <td className={styles.barCell}>
        <svg className={styles.bar} viewBox={`0 0 ${BAR_W} ${BAR_H}`} preserveAspectRatio="none" role="img" aria-label={`count ${r.count}, high ${r.high}, batch ${r.batch}`}>
          <title>{title}</title>
          <rect x={0} y={4} width={BAR_W} height={BAR_H - 8} className={styles.track} />
          {segs.map((s) => (
            <rect key={s.pindex} x={x(s.from)} y={4} width={Math.max(0.8, x(s.from + s.pages) - x(s.from))} height={BAR_H - 8} style={{ fill: ORDER_COLORS[s.order] ?? OTHER_ORDER_COLOR }} fillOpacity={MT_OPACITY[s.migratetype] ?? 1} />
          ))}
          {v.autotune && r.highMin < max && <line x1={x(r.highMin)} x2={x(r.highMin)} y1={0} y2={BAR_H} className={styles.lineRange} />}
          {v.autotune && r.highMax <= max && <line x1={x(r.highMax)} x2={x(r.highMax)} y1={0} y2={BAR_H} className={styles.lineRange} />}
          <line x1={x(r.batch)} x2={x(r.batch)} y1={0} y2={BAR_H} className={styles.lineBatch} />
          <line x1={Math.min(x(r.high), BAR_W - 1.5)} x2={Math.min(x(r.high), BAR_W - 1.5)} y1={0} y2={BAR_H} className={styles.lineHigh} />
        </svg>
      </td>
      <td className={styles.nums} title={details}>
        <span className={styles.count}>{formatCount(r.count)}</span> / <span className={styles.high}>{formatCount(r.high)}</span> / {formatCount(r.batch)}
        {(acting || v.pcps.length === 1) && <div className={styles.small}>{details}</div>}
      </td>
      <td>
        {spark && (
          <svg className={styles.spark} width={SPARK_W} height={SPARK_H} viewBox={`0 0 ${SPARK_W} ${SPARK_H}`} role="img" aria-label={`high and count at ${spark.n} steps seen`}>
            {spark.n === 1 ? (
              <>
                <circle cx={Number(spark.high.split(',')[0])} cy={Number(spark.high.split(',')[1])} r={2} className={styles.sparkHighDot} />
                <circle cx={Number(spark.count.split(',')[0])} cy={Number(spark.count.split(',')[1])} r={2} className={styles.sparkCountDot} />
              </>
            ) : (
              <>
                <polyline points={spark.count} className={styles.sparkCount} />
                <polyline points={spark.high} className={styles.sparkHigh} />
              </>
            )}
          </svg>
        )}
      </td>
    </tr>
  );
}

function Legend({ v }: { v: PcpView }) {
  return (
    <ul className={styles.legend} aria-label="List colours">
      {v.lists.map((l, i) => (
        <li key={i}>
          <span className={styles.swatch} style={{ background: ORDER_COLORS[l.order] ?? OTHER_ORDER_COLOR, opacity: MT_OPACITY[l.migratetype] ?? 1 }} aria-hidden="true" />
          {l.order === 9 ? 'THP' : `o${l.order}`} {l.migratetype.slice(0, 5)}
        </li>
      ))}
    </ul>
  );
}
