// "Why?": the cause chain of the current event. Each event knows the event that
// started its frame (its caller's event); the engine walks those links back to
// the root, e.g. an IPI received ← the flush that sent it ← ptep_clear_flush ←
// try_to_unmap_one ← … ← the hint fault ← the page-table walk that faulted.
// Every hop is a button that goes to the step showing that event.
import { useEffect, useId, useState } from 'react';
import { formatCount } from '../base/format';
import { errorMessage, type SimHandle } from '../engine/engine';
import type { SimEvent } from '../engine/types';
import { useAppStore, useLaneActions, useRun } from '../store/context';
import styles from './CauseChain.module.css';
import panel from './Panel.module.css';

/** How long the current event must stay before its chain is asked for (playback passes events faster). */
const SETTLE_MS = 80;

/** "function:line" of an event, or the function alone when the step has no line. */
export function hopLabel(e: Pick<SimEvent, 'function' | 'line'>): string {
  const fn = e.function || '(no function)';
  return e.line ? `${fn}:${e.line}` : fn;
}

/** The chain of the event at `eventStep`, fetched once the step has settled; null while unknown. */
function useCauseChain(sim: SimHandle | null, eventStep: number | null): { chain: SimEvent[] | null; error: string | null } {
  const [state, setState] = useState<{ sim: SimHandle | null; step: number | null; chain: SimEvent[] | null; error: string | null }>({
    sim: null,
    step: null,
    chain: null,
    error: null,
  });
  useEffect(() => {
    if (!sim || eventStep === null) return;
    let live = true;
    const timer = setTimeout(() => {
      sim.causeChain(eventStep).then(
        (chain) => {
          if (live) setState({ sim, step: eventStep, chain, error: null });
        },
        (err: unknown) => {
          if (live) setState({ sim, step: eventStep, chain: null, error: errorMessage(err) });
        },
      );
    }, SETTLE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [sim, eventStep]);
  // A chain of another step or simulation is never shown.
  return state.sim === sim && state.step === eventStep ? { chain: state.chain, error: state.error } : { chain: null, error: null };
}

/** The "Why?" panel. */
export function CauseChain() {
  const titleId = useId();
  const sim = useRun((r) => r.sim);
  const event = useRun((r) => r.frame?.event ?? null);
  const laneActions = useLaneActions();
  const seek = laneActions.seek;
  const pause = useAppStore((s) => s.pause);
  const { chain, error } = useCauseChain(sim, event?.step ?? null);

  return (
    <section className={panel.panel} aria-labelledby={titleId}>
      <h2 id={titleId} className={panel.title}>
        Why?
        <span className={panel.subtitle}>what caused this step, newest first</span>
      </h2>
      {!event && <p className={styles.none}>Start of the run: nothing has happened yet.</p>}
      {event && error && <p className={styles.none}>The cause chain could not be read: {error}</p>}
      {event && !error && !chain && <p className={styles.none}>Reading the cause chain…</p>}
      {event && chain && (
        <ol className={styles.chain} aria-label="Cause chain">
          {chain.map((hop, i) => {
            // The frame after an event is step + 1: that is the step that shows it.
            const target = hop.step + 1;
            const here = i === 0;
            return (
              <li key={hop.step} className={here ? styles.here : styles.hop}>
                <button
                  type="button"
                  className={styles.hopButton}
                  aria-current={here ? 'step' : undefined}
                  aria-label={`Go to step ${formatCount(target)}: ${hopLabel(hop)} (${hop.kind}) on CPU ${hop.cpu}`}
                  onClick={() => {
                    pause();
                    void seek(target, { history: true });
                  }}
                >
                  <code className={styles.fn}>{hopLabel(hop)}</code>
                  <span className={styles.kind}>{hop.kind.replace(/_/g, ' ')}</span>
                  <span className={styles.where}>
                    CPU {hop.cpu} · {hop.task} · step {formatCount(target)}
                  </span>
                </button>
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
