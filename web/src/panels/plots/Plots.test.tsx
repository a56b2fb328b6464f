// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEngine } from '../../engine/engine';
import { createFixtureEngine, fixtureRun } from '../../engine/fixtureEngine';
import { testMechanism } from '../../engine/testMechanisms';
import type { MechanismInfo } from '../../engine/types';
import { createAppStore, type AppStore } from '../../store/appStore';
import { StoreProvider } from '../../store/context';
import { Plots } from './Plots';

afterEach(cleanup);

// jsdom has no PointerEvent: without it a pointer event carries no coordinates.
if (typeof window.PointerEvent === 'undefined') {
  class PointerEventPolyfill extends MouseEvent {
    readonly pointerId: number;
    constructor(type: string, init: PointerEventInit = {}) {
      super(type, init);
      this.pointerId = init.pointerId ?? 0;
    }
  }
  window.PointerEvent = PointerEventPolyfill as unknown as typeof PointerEvent;
}

/** Metadata whose views name the counters the delay-map patch is about (and one this run has not). */
const MECHANISMS: MechanismInfo[] = [
  testMechanism('quiet', { plots: ['cow_copies', 'no_such_counter'] }),
  testMechanism('numa', { plots: ['numa_pages_migrated', 'nr_tlb_remote_flush', 'irq_tlb_count', 'numa_hint_faults', 'numa_pte_updates'] }),
];

/** The Plots panel over a store showing the fixture engine's first scenario (recorded from the real engine), with `mechanisms` as the metadata. */
async function renderPlots(mechanisms: MechanismInfo[] = MECHANISMS): Promise<AppStore> {
  const store = createAppStore();
  const engine: SimEngine = { ...createFixtureEngine(), mechanisms: () => mechanisms };
  await store.getState().boot(engine, '');
  render(
    <StoreProvider store={store}>
      <Plots />
    </StoreProvider>,
  );
  return store;
}

const lines = () => [...document.querySelectorAll('path[data-counter]')].map((p) => p.getAttribute('data-counter'));

describe('Plots', () => {
  it('draws the counters the views name that move in this run, at most four, and others when picked', async () => {
    await renderPlots();
    // cow_copies stays 0 in this run and no_such_counter is not in it; numa_pte_updates would be the fifth.
    expect(lines()).toEqual(['numa_pages_migrated', 'nr_tlb_remote_flush', 'irq_tlb_count', 'numa_hint_faults']);
    for (const d of document.querySelectorAll('path[data-counter]')) expect(d.getAttribute('d')).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+$/);
    fireEvent.click(screen.getByRole('checkbox', { name: 'pgmigrate_success' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'numa_hint_faults' }));
    expect(lines()).toEqual(['numa_pages_migrated', 'nr_tlb_remote_flush', 'irq_tlb_count', 'pgmigrate_success']);
  });

  it('with the engine’s own metadata, plots the moving counters its views name, most specific mechanism first', async () => {
    await renderPlots(createFixtureEngine().mechanisms());
    // numa-hint-fault-101: NUMA balancing's four (it builds on page migration, whose
    // pgmigrate_success would come next; pgmigrate_fail stays 0).
    expect(lines()).toEqual(['numa_pages_migrated', 'nr_tlb_remote_flush', 'irq_tlb_count', 'numa_hint_faults']);
    expect(fixtureRun('hint-101').series.counters.pgmigrate_fail?.every((v) => v === 0)).toBe(true);
  });

  it('plots the first moving counters of the run when no view names one', async () => {
    const store = await renderPlots([]);
    const { series, summary } = store.getState().runs.a;
    const moving = summary!.counterNames.filter((name) => series!.counters[name]!.some((v) => v !== 0));
    expect(moving.length).toBeGreaterThan(4);
    expect(lines()).toEqual(moving.slice(0, 4));
  });

  it('seeks to the sampled step nearest a click', async () => {
    const store = await renderPlots();
    const { steps, timeNs } = store.getState().runs.a.series!;
    // The engine's samples: the first after step 1; the last steps of a run may share their time
    // (a tie goes to the earlier sample).
    const end = steps[timeNs.indexOf(timeNs.at(-1)!)];
    expect(end).toBeGreaterThan(store.getState().runs.a.summary!.totalSteps - 5);
    const svg = screen.getByRole('img', { name: /^numa_hint_faults over simulated time/ });
    // Laid out 480 px wide at x = 0, as its viewBox: the last pixel of the plot area is the end of the run.
    svg.getBoundingClientRect = () => ({ left: 0, top: 0, width: 480, height: 84, right: 480, bottom: 84, x: 0, y: 0, toJSON: () => ({}) });
    await act(async () => {
      fireEvent.pointerDown(svg, { clientX: 472, button: 0, buttons: 1, pointerId: 1 });
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(store.getState().runs.a.step).toBe(end);
    await act(async () => {
      fireEvent.pointerDown(svg, { clientX: 42, button: 0, buttons: 1, pointerId: 1 });
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(store.getState().runs.a.step).toBe(steps[0]);
  });

  it('switches to rates and collapses', async () => {
    await renderPlots();
    fireEvent.click(screen.getByRole('button', { name: 'Rate per µs' }));
    expect(screen.getByRole('button', { name: 'Rate per µs' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('img', { name: /^numa_hint_faults per µs/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /Plots/ }));
    expect(screen.queryByRole('img', { name: /numa_hint_faults/ })).toBeNull();
  });
});
