// "About": which build of the lab this is, where its links point, and whether it works offline.
import { useState } from 'react';
import { BUILD_ID, isLocalBase, linkBase, PUBLIC_URL } from '../base/build';
import { useAppStore } from '../store/context';
import { Dialog } from '../widgets/Dialog';
import styles from './AboutDialog.module.css';

/** Whether a service worker controls this page (the lab then opens with the network off), read when the dialog opens. */
function offlineState(): string {
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return 'no: this browser has no service workers';
  if (!import.meta.env.PROD) return 'no: a development server is not cached for offline use';
  return navigator.serviceWorker.controller ? 'yes: this build is cached, the lab opens and runs without a network' : 'not yet: the build is being cached (reload once to use it offline)';
}

/** The header's About button and its dialog. */
export function AboutButton() {
  const [open, setOpen] = useState(false);
  const [offline, setOffline] = useState('');
  const engineKind = useAppStore((s) => s.engine?.kind);
  const base = typeof window === 'undefined' ? PUBLIC_URL : linkBase(window.location);
  return (
    <>
      <button
        type="button"
        className={styles.button}
        aria-haspopup="dialog"
        onClick={() => {
          setOffline(offlineState());
          setOpen(true);
        }}
      >
        About mmviz
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title="About mmviz" className={styles.dialog}>
        <p>What the Linux kernel’s memory manager does on a NUMA machine, step by step, and what individual patches change.</p>
        <dl className={styles.facts}>
          <dt>Version</dt>
          <dd>
            <code>{BUILD_ID}</code> (the build’s commit and day)
          </dd>
          <dt>Links point to</dt>
          <dd>
            <code>{base}</code>
            {PUBLIC_URL === '' ? ' (this page’s own address: the build was given no public address, MMVIZ_PUBLIC_URL)' : ' (the public address this build was given)'}
            {isLocalBase(base) ? '. That is this machine: a link copied here opens only here.' : ''}
          </dd>
          <dt>Works offline</dt>
          <dd>{offline}</dd>
          <dt>Engine</dt>
          <dd>{engineKind === 'fake' ? 'recorded fixtures (development only)' : 'the Rust engine compiled to WebAssembly, in Web Workers'}</dd>
        </dl>
      </Dialog>
    </>
  );
}
