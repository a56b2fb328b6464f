// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEngine } from '../engine/engine';
import { createFixtureEngine } from '../engine/fixtureEngine';
import type { SweepPlan, SweepRequest } from '../engine/types';
import { createAppStore } from '../store/appStore';
import { StoreProvider } from '../store/context';
import { SweepButton } from './SweepDialog';
import { EMPTY_FORM } from './sweepModel';
import { createSweepStore } from './sweepStore';

async function settle(): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

/** The engine's answers for a sweep over `pages` = 2, 4 at one seed (a report shaped as run::sweep makes it). */
function sweeps(asked: SweepRequest[]): Pick<SimEngine, 'planSweep' | 'sweepReport' | 'openRunPool'> {
  const plan = (r: SweepRequest): SweepPlan => ({
    scenario: 'numa-hint-fault-101',
    scenarioSeed: 1,
    toggle: r.toggle,
    toggleValues: [false, true],
    vary: { name: 'pages', values: [2, 4] },
    seeds: [1],
    columns: ['nr_tlb_remote_flush'],
  });
  return {
    planSweep: async (_text, _params, request) => {
      asked.push(request);
      return request.values.includes('999') ? { problem: { field: 'values', message: '999 is outside the range of `pages`, 1 to 64' } } : { plan: plan(request) };
    },
    sweepReport: async (_text, _params, request, runs) => ({
      report: {
        scenario: 'numa-hint-fault-101',
        toggle: request.toggle,
        toggle_values: ['off', 'on'],
        vary: { name: 'pages', values: [2, 4] },
        seeds: [1],
        columns: ['nr_tlb_remote_flush'],
        results: [],
        summary: [2, 4].map((value) => ({ value, toggle_value: 'on', column: 'nr_tlb_remote_flush', seeds: [1], changes_pct: [-50], mean_pct: -50, min_pct: -50, max_pct: -50 })),
        absolute: [],
        runs_planned: 4,
        runs_done: runs.length,
      },
      table: 'numa-hint-fault-101: numa_delay_map off -> on, seed 1',
    }),
    openRunPool: () => ({ run: async (_t, toggles, params) => ({ values: { nr_tlb_remote_flush: 1 }, steps: 40 + (params.pages ?? 0) + (toggles.numa_delay_map ? 1 : 0), warnings: [] }), close: () => {} }),
  };
}

/** Renders the button on a booted lab, opens the dialog and (when `pick`) picks numa_delay_map over pages. */
async function renderSweep(pick = true) {
  const asked: SweepRequest[] = [];
  const app = createAppStore();
  await app.getState().boot(createFixtureEngine({ sweeps: sweeps(asked) }), '');
  const store = createSweepStore(EMPTY_FORM);
  render(
    <StoreProvider store={app}>
      <SweepButton store={store} />
    </StoreProvider>,
  );
  fireEvent.click(screen.getByRole('button', { name: 'Sweep…' }));
  await settle();
  const dialog = screen.getByRole('dialog', { name: 'Sweep: numa-hint-fault-101', hidden: true });
  if (pick) {
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Toggle' }), { target: { value: 'numa_delay_map' } });
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Parameter' }), { target: { value: 'pages' } });
  }
  return { asked, store, app, dialog };
}

afterEach(() => cleanup());

describe('Sweep dialog', () => {
  it("starts from the lab's scenario: a toggle its run goes through and its first parameter", async () => {
    const { dialog, app } = await renderSweep(false);
    const d = within(dialog);
    expect(d.getByRole('heading', { name: 'Sweep: numa-hint-fault-101' })).toBeTruthy();
    // The first patch of the registry that changes a function the run goes through (flush_tlb_mm_range).
    expect((d.getByRole('combobox', { name: 'Toggle' }) as HTMLSelectElement).value).toBe('tlb_flush_multi');
    expect((d.getByRole('combobox', { name: 'Parameter' }) as HTMLSelectElement).value).toBe(app.getState().runs.a.summary?.params[0]?.name);
    expect(d.getByText(/^whole numbers, [\d,]+ to [\d,]+ \(now [\d,]+\)$/)).toBeTruthy();
  });

  it('shows the engine\'s problem beside its field and keeps what was typed', async () => {
    const { dialog, asked } = await renderSweep();
    const d = within(dialog);
    fireEvent.change(d.getByRole('combobox', { name: 'Toggle' }), { target: { value: 'numa_delay_map' } });
    const values = d.getByRole('textbox', { name: 'Values' });
    fireEvent.change(values, { target: { value: '2, 999' } });
    fireEvent.click(d.getByRole('button', { name: 'Run sweep' }));
    await settle();
    expect(asked.at(-1)).toMatchObject({ toggle: 'numa_delay_map', vary: 'pages', values: '2, 999', seeds: null, maxRuns: 200 });
    expect(d.getByRole('alert').textContent).toBe('999 is outside the range of `pages`, 1 to 64');
    expect(values.getAttribute('aria-invalid')).toBe('true');
    expect(values.getAttribute('aria-describedby')).toContain(d.getByRole('alert').id);
    expect((values as HTMLInputElement).value).toBe('2, 999');
  });

  it('draws a chart per counter whose dots link to their runs; following one closes the dialog', async () => {
    const { dialog } = await renderSweep();
    const d = within(dialog);
    fireEvent.change(d.getByRole('combobox', { name: 'Toggle' }), { target: { value: 'numa_delay_map' } });
    fireEvent.change(d.getByRole('textbox', { name: 'Values' }), { target: { value: '2, 4' } });
    fireEvent.click(d.getByRole('button', { name: 'Run sweep' }));
    await settle();
    await settle();
    expect(d.getByText(/^4 runs in .* on \d workers?\.$/)).toBeTruthy();
    const charts = d.getByRole('list', { name: 'Charts' });
    expect(within(charts).getAllByRole('listitem')).toHaveLength(1);
    const links = within(charts).getAllByRole('link');
    expect(links.map((a) => a.getAttribute('aria-label'))).toEqual([
      'pages 2, seed 1: nr_tlb_remote_flush \u221250.0 % with numa_delay_map on against off. Open the on run',
      'pages 4, seed 1: nr_tlb_remote_flush \u221250.0 % with numa_delay_map on against off. Open the on run',
    ]);
    // The run's link: the toggle, the value, its last step (seed 1 is the scenario's own: no seed=).
    expect(links[1]?.getAttribute('href')).toMatch(/^#v=2&sc=numa-hint-fault-101&h=[0-9a-f]{8}&t\.numa_delay_map=true&p\.pages=4&step=45$/);
    expect(d.getByRole('button', { name: 'Copy as text' })).toBeTruthy();
    fireEvent.click(links[1] as HTMLElement, { button: 0 });
    await settle();
    expect(screen.queryByRole('list', { name: 'Charts', hidden: true })).toBeNull();
  });
});
