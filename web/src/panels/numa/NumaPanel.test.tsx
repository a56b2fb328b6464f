// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureEngine } from '../../engine/fixtureEngine';
import type { NumaView } from '../../engine/generated/NumaView';
import { testMechanism } from '../../engine/testMechanisms';
import { createAppStore, type AppStore } from '../../store/appStore';
import { StoreProvider } from '../../store/context';
import { NumaPanel } from './NumaPanel';
import { setRunState } from '../../store/testUtils';

afterEach(cleanup);

const VIEW: NumaView = {
  nrProcesses: 1,
  processes: [
    {
      pid: 1,
      threads: 2,
      scanSeq: 3,
      nextScanNs: 0,
      scanOffsetVpn: 0x104,
      flushPending: 0,
      scanPeriodMs: [3, 5],
      scanBoundsMs: [3, 60],
      scanning: { task: '1/0', cpu: 0, startVpn: 0x100, pages: 8, explicit: false },
      vmas: [{ index: 0, startVpn: 0x100, pages: 8, file: false, binPages: 1, protnone: [1, 1, 0, 0, 0, 0, 0, 0], present: [0, 0, 1, 1, 1, 0, 0, 0], migrating: [0, 1, 0, 0, 0, 0, 0, 0] }],
      protnone: 2,
      present: 3,
      runningCpus: [0, 1, 2],
      lazyCpus: [3],
      maskWeight: 4,
    },
  ],
  nrFaultsInProgress: 1,
  faults: [
    {
      task: '1/1', pid: 1, inProgress: true, inFunction: 'unmap_and_move', step: 42, cpu: 1, vpn: 0x101, pfn: 7, pageNid: 0, cpuNid: 1,
      lastCpupid: 'CPU 1, pid 2', lastNid: 1, rule: 'private', filterMigrate: true, reason: 'second stage: a private fault', target: 1,
      outcome: 'pending', failReason: '', unmapIpis: 2, unmapCause: 'mapped',
    },
  ],
  shootdowns: [{ from: 1, task: '1/1', pid: 1, pending: [2], acksPending: 1, cause: 'mapped', caller: 'try_to_unmap_one' }],
  nrShootdowns: 1,
  delayMap: false,
  skipDirtyFile: true,
  balancing: true,
};

async function storeWith(view: NumaView | null): Promise<AppStore> {
  const store = createAppStore();
  await store.getState().boot(createFixtureEngine(), '');
  const frame = store.getState().runs.a.frame;
  if (!frame) throw new Error('no frame');
  const cpus = [0, 1, 2, 3].map((id) => ({ id, node: 0, task: null, loadedMm: 1, lazy: id === 3, inFunction: '', stack: [], state: '' }));
  setRunState(store, { frame: { ...frame, cpus, mmCpumask: { '1': [0, 1, 2, 3] }, ipis: [], views: view ? { numa: view } : {} } });
  return store;
}

function show(store: AppStore) {
  render(
    <StoreProvider store={store}>
      <NumaPanel mechanism={testMechanism('numa', { counters: ['numa_hint_faults'] })} view={{ id: 'numa', title: 'NUMA balancing', plots: [] }} />
    </StoreProvider>,
  );
}

describe('NUMA panel', () => {
  it('draws the scanner, the hint fault with its filter branch, and the fan-out over mm_cpumask', async () => {
    show(await storeWith(VIEW));
    expect(screen.getByTestId('scan-seq').textContent).toBe('scan_seq 3');
    expect(screen.getByTestId('protnone').textContent).toMatch(/2 PROT_NONE not yet faulted/);
    expect(screen.getByTestId('scanning').textContent).toMatch(/1\/0 on CPU 0 marks pages 0x100–0x107/);
    expect(screen.getByTestId('scan-chunk')).toBeTruthy();
    expect(screen.getByTestId('scan-offset')).toBeTruthy();
    const f = screen.getByTestId('hint-fault');
    expect(f.dataset.rule).toBe('private');
    expect(screen.getByTestId('fault-decision').textContent).toBe('Decision: migrate to node 1');
    expect(screen.getByTestId('fault-outcome').textContent).toMatch(/migrating to node 1 \(in unmap_and_move\).*2 IPIs \(mapped\)/);
    const roles = [...document.querySelectorAll('[data-testid="shootdown"] li')].map((li) => `${li.textContent}`);
    expect(roles).toEqual(['CPU 0done', 'CPU 1sender', 'CPU 2IPI', 'CPU 3lazy: none']);
    expect(screen.getByText(/v5\.12 flow: map, then migrate/)).toBeTruthy();
  });

  it('falls back to the generic panel when the frame has no NUMA state', async () => {
    show(await storeWith(null));
    expect(screen.queryByTestId('scan-seq')).toBeNull();
    expect(screen.getByText('numa_hint_faults')).toBeTruthy();
  });
});
