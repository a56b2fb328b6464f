// Embed mode (`?embed`, or `embed=1` in the fragment): the lab inside an iframe of a slide or
// a web page. Minimal chrome (the title, the narration, the machine, the code pane when there is
// room, the transport), sized by the frame the host gives it, a fixed range of steps (`from=`,
// `to=`: the transport cannot leave it) and a link that opens the same frame in the full lab
// in a new tab. It makes no history entries and never navigates the page around it.
import { selectShareState } from '../store/appStore';
import { useAppStore } from '../store/context';
import { stateToUrl, type ShareState } from '../share/url';
import { CodePane } from '../panels/CodePane';
import { MachineView } from '../panels/MachineView';
import { Narration } from '../panels/Narration';
import { Transport } from '../timeline/Transport';
import styles from './EmbedView.module.css';

/** The full lab's link to the same frame: this page without `?embed`, the state without embed and range. */
export function fullLabHref(share: ShareState, location: Pick<Location, 'origin' | 'pathname'>): string {
  const full: ShareState = { ...share, embed: false, range: null, lecture: null };
  return `${location.origin}${location.pathname}#${stateToUrl(full)}`;
}

/** "Open in the full lab": a new tab (the embedding page stays as it is). */
function OpenInLab() {
  // A string: the selector's result compares by value, so the link re-renders only when it changes.
  const href = useAppStore((s) => {
    const share = selectShareState(s);
    return share ? fullLabHref(share, window.location) : null;
  });
  if (!href) return null;
  return (
    <a className={styles.open} href={href} target="_blank" rel="noopener noreferrer">
      Open in the full lab <span aria-hidden="true">↗</span>
    </a>
  );
}

/** The embedded lab. */
export function EmbedView() {
  const title = useAppStore((s) => s.runs.a.summary?.title ?? '');
  const range = useAppStore((s) => s.range);
  return (
    <div className={styles.embed}>
      <div className={styles.bar}>
        <span className={styles.title}>{title}</span>
        {range && (
          <span className={styles.range}>
            steps {range.from}–{range.to}
          </span>
        )}
        <OpenInLab />
      </div>
      <section className={styles.stage} aria-label="Current step">
        <Narration />
        <Transport />
      </section>
      <main className={styles.body}>
        <div className={styles.machine}>
          <MachineView />
        </div>
        <div className={styles.code}>
          <CodePane />
        </div>
      </main>
    </div>
  );
}
