// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEngine } from '../engine/engine';
import { createFixtureEngine } from '../engine/fixtureEngine';
import { testMechanism } from '../engine/testMechanisms';
import type { MechanismInfo } from '../engine/types';
import { createAppStore, type AppStore } from '../store/appStore';
import { StoreProvider } from '../store/context';
import { categoryColor } from '../timeline/eventKinds';
import { CountersTable } from './CountersTable';
import { MechanismPanel } from './MechanismPanel';
import { MechanismPanels } from './MechanismPanels';
import { panelFor, type MechanismPanelProps } from './registry';
import { setRunState } from '../store/testUtils';

afterEach(cleanup);

// Metadata for the recorded numa-hint-fault-101 run: "tlb" and "numa" have counters that move,
// "quiet" only counters that stay 0 and a toggle at its default, "bare" no counter the run has.
const MECHANISMS: MechanismInfo[] = [
  testMechanism('tlb', { counters: ['tlb_misses', ['accesses', false]], events: [['tlb_miss', 'fault'], ['page_walk', 'other']] }),
  testMechanism('quiet', { counters: ['cow_copies', 'pgreuse'], toggles: ['numa_skip_dirty_file'], plots: ['cow_copies'] }),
  testMechanism('numa', {
    counters: ['numa_hint_faults', 'numa_pages_migrated'],
    toggles: ['numa_delay_map'],
    events: [
      ['hint_fault', 'fault'],
      ['ipi_send', 'ipi'],
      ['ipi_recv', 'ipi'],
      ['flush_local', 'flush'],
      ['migrate_copy', 'migration'],
      ['ptl_lock', 'lock'],
      ['alloc_page', 'alloc'],
      ['scan_pte', 'other'],
      ['never_emitted', 'sched'],
      ['isolate', 'migration'],
    ],
    plots: ['numa_pages_migrated'],
  }),
  testMechanism('bare', { counters: ['not_in_this_run'], plots: ['not_in_this_run'] }),
];

/** A store showing the recorded numa-hint-fault-101 run, with `mechanisms` as the metadata. */
async function storeWith(mechanisms: MechanismInfo[] = MECHANISMS): Promise<AppStore> {
  const store = createAppStore();
  const engine: SimEngine = { ...createFixtureEngine(), mechanisms: () => mechanisms };
  await store.getState().boot(engine, '');
  return store;
}

const mechanism = (id: string): MechanismInfo => MECHANISMS.find((m) => m.id === id) as MechanismInfo;

describe('panel registry', () => {
  it('draws a view with its registered panel, and any other with the generic one', () => {
    function Special({ view }: MechanismPanelProps) {
      return <p>special {view.id}</p>;
    }
    const panels = { numa: Special };
    expect(panelFor('numa', panels)).toBe(Special);
    expect(panelFor('fork', panels)).toBe(MechanismPanel);
    expect(panelFor('toString', panels)).toBe(MechanismPanel);
    expect(panelFor('anything')).toBe(MechanismPanel);
  });
});

describe('MechanismPanels', () => {
  it('shows one panel per view of the mechanisms the run exercises, in metadata order', async () => {
    const store = await storeWith();
    render(
      <StoreProvider store={store}>
        <MechanismPanels />
      </StoreProvider>,
    );
    // "tlb" has no view; "quiet" and "bare" are not exercised. View "numa" has its registered
    // panel (NumaPanel: the view's title, then the do_numa_page flow in effect).
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([expect.stringMatching(/^numa viewv5\.13 flow/)]);
  });

  it('counts a toggle the run sets away from its default as exercising its mechanism', async () => {
    const store = await storeWith();
    // The fixture engine has no run with numa_skip_dirty_file off (its default is on): set it on the summary by hand.
    const summary = store.getState().runs.a.summary!;
    expect(summary.toggles.numa_skip_dirty_file).toBe(true);
    setRunState(store, { summary: { ...summary, toggles: { ...summary.toggles, numa_skip_dirty_file: false } } });
    render(
      <StoreProvider store={store}>
        <MechanismPanels />
      </StoreProvider>,
    );
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['quiet titlequiet view', expect.stringMatching(/^numa viewv5\.13 flow/)]);
  });

  it('draws the generic panel: the mechanism’s counters now and its event kinds in their colours', async () => {
    const store = await storeWith();
    await store.getState().seek(store.getState().runs.a.summary!.totalSteps);
    const numa = mechanism('numa');
    render(
      <StoreProvider store={store}>
        <MechanismPanel mechanism={numa} view={numa.views[0]!} />
      </StoreProvider>,
    );
    const frame = store.getState().runs.a.frame!;
    const counters = screen.getByRole('region', { name: 'numa title numa view' });
    const terms = within(counters).getAllByRole('term');
    expect(terms.map((t) => t.textContent)).toEqual(['numa_hint_faults', 'numa_pages_migrated']);
    expect(terms[0]?.getAttribute('title')).toBe('numa_hint_faults doc');
    expect(within(counters).getAllByRole('definition').map((d) => d.textContent?.trim())).toEqual([
      String(frame.counters.numa_hint_faults),
      String(frame.counters.numa_pages_migrated),
    ]);
    const kinds = within(screen.getByRole('list', { name: 'Event kinds of numa title' })).getAllByRole('listitem');
    // Eight listed, the kinds the run has first; the rest folded away.
    expect(kinds.map((k) => k.textContent)).toEqual(['hint_fault', 'ipi_send', 'ipi_recv', 'flush_local', 'migrate_copy', 'ptl_lock', 'alloc_page', 'scan_pte']);
    const swatch = (i: number) => (kinds[i]?.querySelector('span') as HTMLElement).style.background;
    // The category's theme token, so that the swatch follows a theme switch.
    expect(swatch(0)).toBe(categoryColor('fault'));
    expect(swatch(1)).toBe(categoryColor('ipi'));
    expect(swatch(7)).toBe(categoryColor('other'));
    expect(screen.getByText('2 more event kinds')).toBeTruthy();
  });
});

describe('CountersTable', () => {
  it('groups the counters by mechanism, with docs as tooltips and model-only counters marked', async () => {
    const store = await storeWith();
    render(
      <StoreProvider store={store}>
        <CountersTable />
      </StoreProvider>,
    );
    const headings = screen.getAllByRole('columnheader').map((h) => h.textContent);
    expect(headings).toEqual(['counter', 'value', 'this step', 'tlb title', 'quiet title', 'numa title', 'Other counters']);
    const groups = screen.getAllByRole('rowgroup').slice(1);
    const rows = (i: number) => within(groups[i] as HTMLElement).getAllByRole('rowheader').map((h) => h.textContent);
    expect(rows(0)).toEqual(['tlb_misses', 'accesses']);
    expect(rows(1)).toEqual(['cow_copies', 'pgreuse']);
    expect(rows(2)).toEqual(['numa_hint_faults', 'numa_pages_migrated']);
    // Every counter of the run appears once.
    const all = screen.getAllByRole('rowheader').map((h) => h.textContent);
    expect([...all].sort()).toEqual([...store.getState().runs.a.summary!.counterNames].sort());
    const accesses = screen.getByRole('rowheader', { name: 'accesses' });
    expect(accesses.getAttribute('title')).toBe('accesses doc Model only: the kernel has no such counter.');
    expect(accesses.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(accesses.getAttribute('aria-describedby')!)?.textContent).toMatch(/model only/);
    expect(screen.getByRole('rowheader', { name: 'tlb_misses' }).getAttribute('aria-describedby')).toBeNull();
  });

  it('has no group headings without metadata', async () => {
    const store = await storeWith([]);
    render(
      <StoreProvider store={store}>
        <CountersTable />
      </StoreProvider>,
    );
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['counter', 'value', 'this step']);
    expect(screen.getAllByRole('rowheader').map((h) => h.textContent)).toEqual(store.getState().runs.a.summary!.counterNames);
  });
});
