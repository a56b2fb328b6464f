// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEngine } from '../../engine/engine';
import { createFixtureEngine } from '../../engine/fixtureEngine';
import type { MremapView } from '../../engine/generated/MremapView';
import { testMechanism } from '../../engine/testMechanisms';
import { createAppStore, type AppStore } from '../../store/appStore';
import { StoreProvider } from '../../store/context';
import { MremapPanel } from './MremapPanel';
import { setRunState } from '../../store/testUtils';

afterEach(cleanup);

const lock = (holder: string | null, waiters: string[] = []) => ({ holder, holderCpu: holder ? 0 : null, waiters, nrWaiters: waiters.length });
const cell = (vpn: number, present: number, stale: number[] = [], decision: string | null = null) => ({ vpn, pages: 1, present, dirty: present, pfn: present ? vpn & 0xff : null, stale, nrStale: stale.length, decision });

/** Mid-move of a 4-page anon region under the 2018 rule: two PTEs moved and deferred, CPU 1 still holds them. */
const VIEW: MremapView = {
  regime: 'dirty_file_or_swapcache',
  latencyLimit: true,
  hidden: 0,
  moves: [
    {
      pid: 1,
      vma: 0,
      file: false,
      active: true,
      caller: '1/0',
      cpu: 0,
      phase: 'move_ptes',
      oldStart: 0x7f000,
      newStart: 0x7f400,
      pages: 4,
      moved: 2,
      extent: { offset: 0, pages: 4, done: 2, force: false },
      needFlush: false,
      flushing: null,
      mmapLock: lock('1/0', ['1/1']),
      oldPtl: lock('1/0'),
      newPtl: lock('1/0'),
      pagesPerCell: 1,
      oldCells: [cell(0x7f000, 0, [1]), cell(0x7f001, 0, [1]), cell(0x7f002, 1), cell(0x7f003, 1)],
      newCells: [cell(0x7f400, 1, [], 'anon-not-swapcache'), cell(0x7f401, 1, [], 'anon-not-swapcache'), cell(0x7f402, 0), cell(0x7f403, 0)],
    },
  ],
  staleCpus: [{ cpu: 1, entries: 2, dirty: 2, ipisPending: 0 }],
};

async function storeWithView(view: MremapView): Promise<AppStore> {
  const store = createAppStore();
  const engine: SimEngine = { ...createFixtureEngine(), mechanisms: () => [testMechanism('mremap', { plots: [] })] };
  await store.getState().boot(engine, '');
  const s = store.getState().runs.a;
  if (!s.frame || !s.series) throw new Error('no frame');
  setRunState(store, { frame: { ...s.frame, views: { mremap: view } }, series: { ...s.series, counters: { ...s.series.counters, lost_writes: s.series.steps.map((_, i) => (i >= 3 ? 1 : 0)) } }, eventsComplete: false });
  return store;
}

describe('MremapPanel', () => {
  it('draws the move, the locks, the badges, the stale window, the anon explanation and a finding that seeks', async () => {
    const store = await storeWithView(VIEW);
    render(
      <StoreProvider store={store}>
        <MremapPanel mechanism={testMechanism('mremap')} view={{ id: 'mremap', title: 'mremap', plots: [] }} />
      </StoreProvider>,
    );
    expect(screen.getByTestId('regime-rule').textContent).toMatch(/^2018 proposal/);
    expect(screen.getByTestId('phase').textContent).toBe('1/0 on CPU 0: move_ptes (under the PTLs)');
    expect(screen.getByTestId('lock-mmap_lock').textContent).toMatch(/held by 1\/0 \(CPU 0\)waiting: 1\/1/);
    expect(screen.getAllByTestId('decision').map((b) => b.textContent)).toEqual(['D', 'D']);
    expect(screen.getAllByTestId('old-cell')[0]?.textContent).toMatch(/CPU 1/);
    expect(screen.getByTestId('stale-cpu').textContent).toMatch(/^CPU 1: 2 old translation\(s\), 2 writable\+dirty/);
    expect(screen.getByTestId('anon-explain').textContent).toMatch(/same physical page/);
    const findings = screen.getByRole('list', { name: 'Findings' });
    const step = store.getState().runs.a.series?.steps[3] ?? -1;
    const button = within(findings).getByRole('button', { name: `step ${step}` });
    await act(async () => {
      button.click();
      await Promise.resolve();
    });
    expect(store.getState().runs.a.targetStep).toBe(step);
  });

  it('says when nothing of mremap is there at this step', async () => {
    const store = await storeWithView(VIEW);
    const s = store.getState().runs.a;
    if (s.frame) setRunState(store, { frame: { ...s.frame, views: {} } });
    render(
      <StoreProvider store={store}>
        <MremapPanel mechanism={testMechanism('mremap')} view={{ id: 'mremap', title: 'mremap', plots: [] }} />
      </StoreProvider>,
    );
    expect(screen.getByText(/No mremap under way/)).toBeTruthy();
    expect(screen.queryByTestId('mremap-move')).toBeNull();
  });
});
