// The generic panel of a mechanism's view (registry.tsx uses it for every view without a
// panel of its own): the mechanism's title, its counters at the current step (the values
// and this step's changes the counters table shows) and its event kinds in the timeline's
// colours. Everything comes from the engine's metadata and the store.
import { useId, useMemo } from 'react';
import { formatCount, formatDelta } from '../base/format';
import { useAppStore, useRun } from '../store/context';
import { categoryColor, categoryLabel, eventCategory, kindCategories } from '../timeline/eventKinds';
import { counterTooltip } from './CountersTable';
import styles from './MechanismPanel.module.css';
import panel from './Panel.module.css';
import type { MechanismPanelProps } from './registry';

/** Event kinds listed before the rest is folded away. */
const SHORT_LIST = 8;

/** A mechanism's view drawn from its metadata alone. */
export function MechanismPanel({ mechanism, view }: MechanismPanelProps) {
  const id = useId();
  const summary = useRun((r) => r.summary);
  const frame = useRun((r) => r.frame);
  const events = useRun((r) => r.events);
  const mechanisms = useAppStore((s) => s.mechanisms);
  // The kinds this run's loaded events have first (in the mechanism's order), then the others.
  const kinds = useMemo(() => {
    const seen = new Set(events.map((e) => e.kind));
    return [...mechanism.events.filter((e) => seen.has(e.name)), ...mechanism.events.filter((e) => !seen.has(e.name))].map((e) => ({ ...e, seen: seen.has(e.name) }));
  }, [events, mechanism]);
  if (!summary || !frame) return null;
  const categories = kindCategories(mechanisms);
  const has = new Set(summary.counterNames.length > 0 ? summary.counterNames : Object.keys(frame.counters));
  const counters = mechanism.counters.filter((c) => has.has(c.name));
  const deltas = frame.event?.counterDeltas ?? {};

  const kindItem = (k: (typeof kinds)[number]) => {
    const category = eventCategory(k.name, categories);
    return (
      <li key={k.name} className={k.seen ? undefined : styles.unseen} title={[k.doc, `${categoryLabel(category)}${k.seen ? '' : '; not in the events loaded'}`].filter(Boolean).join(' — ')}>
        <span className={styles.swatch} style={{ background: categoryColor(category) }} aria-hidden="true" />
        <code>{k.name}</code>
      </li>
    );
  };

  return (
    <section className={panel.panel} aria-labelledby={`${id}-title`} data-mechanism={mechanism.id} data-view={view.id}>
      <h2 id={`${id}-title`} className={panel.title}>
        {mechanism.title}
        {view.title !== mechanism.title && <span className={panel.subtitle}>{view.title}</span>}
      </h2>
      {counters.length > 0 && (
        <dl className={styles.counters}>
          {counters.map((c) => {
            const delta = deltas[c.name] ?? 0;
            return (
              <div key={c.name} className={delta !== 0 ? styles.active : undefined}>
                <dt className={c.kernel ? styles.name : `${styles.name} ${styles.modelOnly}`} title={counterTooltip(c)}>
                  {c.name}
                </dt>
                <dd className={styles.value}>
                  {formatCount(frame.counters[c.name] ?? 0)}
                  {delta !== 0 && <span className={delta > 0 ? styles.up : styles.down}> {formatDelta(delta)}</span>}
                </dd>
              </div>
            );
          })}
        </dl>
      )}
      {kinds.length > 0 && (
        <>
          <ul className={styles.kinds} aria-label={`Event kinds of ${mechanism.title}`}>
            {kinds.slice(0, SHORT_LIST).map(kindItem)}
          </ul>
          {kinds.length > SHORT_LIST && (
            <details className={styles.more}>
              <summary>{kinds.length - SHORT_LIST} more event kinds</summary>
              <ul className={styles.kinds}>{kinds.slice(SHORT_LIST).map(kindItem)}</ul>
            </details>
          )}
        </>
      )}
    </section>
  );
}
