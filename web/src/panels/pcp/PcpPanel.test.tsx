// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureEngine } from '../../engine/fixtureEngine';
import type { PcpCpuView } from '../../engine/generated/PcpCpuView';
import type { PcpView } from '../../engine/generated/PcpView';
import { testMechanism } from '../../engine/testMechanisms';
import { createAppStore, type AppStore } from '../../store/appStore';
import { StoreProvider } from '../../store/context';
import { PcpPanel } from './PcpPanel';
import { setRunState } from '../../store/testUtils';

afterEach(cleanup);

const LISTS = [
  ...[0, 1, 2, 3].flatMap((order) => ['Unmovable', 'Movable', 'Reclaimable'].map((migratetype) => ({ order, migratetype }))),
  { order: 9, migratetype: 'Movable' },
];

function pcp(cpu: number, count: number, high: number): PcpCpuView {
  const lists = Array.from({ length: 13 }, () => 0);
  lists[1] = count;
  return { cpu, zone: 0, count, high, highMin: 32, highMax: 128, batch: 8, flags: [], freeFactor: 0, expire: cpu === 1 ? 2 : 0, freeCount: 0, allocFactor: 1, lists, inFunction: cpu === 1 ? 'rmqueue_bulk' : '', spinning: cpu === 0 };
}

const VIEW: PcpView = {
  lists: LISTS,
  zones: [
    {
      id: 0,
      node: 0,
      managed: 1024,
      wmark: [64, 80, 96],
      buddyFree: 990,
      pcpPages: 18,
      inUse: 16,
      freeBlocks: [0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 0],
      batch: 8,
      highMin: 32,
      highMax: 128,
      belowHigh: false,
      lock: { holder: 1, holderTask: '2/0', waiters: [{ cpu: 0, task: '1/0' }] },
    },
  ],
  pcps: [pcp(0, 2, 32), pcp(1, 16, 40)],
  nrCpus: 2,
  cpusListed: 2,
  totals: [{ zone: 0, count: 18, high: 72, highPeak: 40, lists: LISTS.map((_, i) => (i === 1 ? 18 : 0)) }],
  autotune: true,
};

/** A store showing the fixture run, its frame carrying `view` (or no PCP state) and an event of `kind` on CPU 1. */
async function storeWith(view: PcpView | null, kind = 'pcp_refill'): Promise<AppStore> {
  const store = createAppStore();
  await store.getState().boot(createFixtureEngine(), '');
  const frame = store.getState().runs.a.frame;
  if (!frame) throw new Error('no frame');
  const event = { step: 0, timeNs: 0, cpu: 1, kind, function: 'rmqueue_bulk', line: '', cause: null, task: '2/0', narration: '', touched: { ptes: [], pfns: [], cpus: [] }, counterDeltas: {} };
  setRunState(store, { frame: { ...frame, event, views: view ? { pcp: view } : {} } });
  return store;
}

function show(store: AppStore) {
  const mechanism = testMechanism('page_alloc', { counters: ['pgfree'] });
  render(
    <StoreProvider store={store}>
      <PcpPanel mechanism={mechanism} view={{ id: 'pcp', title: 'Per-CPU page lists and the zone lock', plots: [] }} />
    </StoreProvider>,
  );
}

describe('PCP panel', () => {
  it('draws the zone lock with its queue, each pageset, and the refill of this step on its CPU', async () => {
    show(await storeWith(VIEW));
    expect(screen.getByTestId('pcp-lock-0').textContent).toMatch(/held by CPU 1 \(2\/0\) · 1 waiting: CPU 0 \(1\/0\)/);
    const row1 = screen.getByTestId('pcp-row-1-0');
    expect(row1.dataset.count).toBe('16');
    expect(row1.dataset.high).toBe('40');
    expect(row1.textContent).toMatch(/rmqueue_bulk/);
    expect(screen.getByTestId('pcp-activity').textContent).toBe('refill (rmqueue_bulk)');
    // The acting CPU's row spells its fields out.
    expect(row1.textContent).toMatch(/range 32-128 · free_factor 0 · free_count 0 · alloc_factor 1 · expire 2/);
    expect(screen.getByTestId('pcp-row-0-0').textContent).toMatch(/spinning on zone lock/);
    expect(screen.getByTestId('pcp-zone-pcp-pages').textContent).toBe('18');
    // No row headers: the page's row headers are the counters table's.
    expect(screen.queryAllByRole('rowheader')).toHaveLength(0);
  });

  it('falls back to the generic panel when the frame has no PCP state', async () => {
    show(await storeWith(null));
    expect(screen.queryByTestId('pcp-row-0-0')).toBeNull();
    expect(screen.getByText('pgfree')).toBeTruthy();
  });

  it('keeps a sparkline sample per step seen', async () => {
    const store = await storeWith(VIEW, 'lock_wait');
    show(store);
    expect(document.querySelectorAll('[data-testid="pcp-row-1-0"] polyline')).toHaveLength(0);
    const frame = store.getState().runs.a.frame;
    if (!frame) throw new Error('no frame');
    act(() => setRunState(store, { frame: { ...frame, step: 5, views: { pcp: { ...VIEW, pcps: [pcp(0, 2, 32), pcp(1, 8, 48)] } } } }));
    expect(document.querySelectorAll('[data-testid="pcp-row-1-0"] polyline')).toHaveLength(2);
    // Not a page-allocator event: no badge.
    expect(screen.queryByTestId('pcp-activity')).toBeNull();
  });
});
