// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEngine } from '../engine/engine';
import type { PatchInfo, ScenarioSummary } from '../engine/types';
import { createAppStore } from '../store/appStore';
import { StoreProvider } from '../store/context';
import { urlToState } from '../share/url';
import { ExploreButton, ExploreReportView } from './ExploreDialog';
import { abLink, budgetChoices, cliCommand, openLink, openStep, otherValues, type ExploreBase, type ExploreReport } from './exploreModel';
import { createExploreStore } from './exploreStore';
import recorded from './fixtures/mremap-race-101.budget300.json';

const report = recorded as unknown as ExploreReport;
const base: ExploreBase = {
  scenario: { kind: 'builtin', id: 'mremap-race-101', hash: '1234abcd', seed: 4, schedule: '1:0' },
  scenarioText: 'text',
  label: 'mremap-race-101',
  toggles: { mremap_flush: 'present', numa_delay_map: true },
  params: {},
  toggle: 'mremap_flush',
};
const patches = [{ id: 'mremap_flush', values: ['deferred', 'dirty', 'dirty_file_or_swapcache', 'present'], valueLabels: ['deferred', 'dirty', 'dirty file or swapcache', 'present'] }] as unknown as PatchInfo[];
const deferred = report.values[0]!;
const lost = deferred.outcomes[0]!;

afterEach(cleanup);

describe('the Explore view\'s links', () => {
  it('Open: the scenario under the outcome\'s schedule and toggle value, at the frame after its finding (no seed)', () => {
    const read = urlToState(openLink(base, deferred, lost));
    expect(read.ok).toBe(true);
    const state = read.ok ? read.state : null;
    expect(state?.scenario).toEqual({ kind: 'builtin', id: 'mremap-race-101', hash: '1234abcd', schedule: lost.schedule });
    expect(state?.toggles).toEqual({ mremap_flush: 'deferred', numa_delay_map: true });
    expect(state?.step).toBe(Math.max(...lost.findings[0]!.steps) + 1);
    expect(openStep({ ...lost, findings: [] })).toBe(0);
  });

  it('A/B: the same schedule under the outcome\'s value (A) and another (B)', () => {
    expect(otherValues(patches, base, deferred)).toEqual(['dirty', 'dirty_file_or_swapcache', 'present']);
    const read = urlToState(abLink(base, deferred, lost, 'dirty')!);
    const state = read.ok ? read.state : null;
    expect(state?.ab).toEqual({ kind: 'toggle', id: 'mremap_flush', a: 'deferred', b: 'dirty' });
    expect(state?.scenario.schedule).toBe(lost.schedule);
    expect(state?.toggles).toEqual({ numa_delay_map: true });
  });

  it('offers 2,000, 20,000 and the scenario\'s own budget, and says the same search as a command line', () => {
    expect(budgetChoices(200_000).map((c) => c.value)).toEqual([2_000, 20_000, 200_000]);
    expect(budgetChoices(2_000).map((c) => c.value)).toEqual([2_000, 20_000]);
    expect(cliCommand(base, 2000)).toBe('mmviz explore mremap-race-101 --toggle mremap_flush --set numa_delay_map=true --budget 2000');
  });
});

describe('the Explore report', () => {
  it('shows per value whether it was exhaustive and why not, its counts, and each outcome with findings, counters, schedule, Open and A/B', () => {
    render(<ExploreReportView base={base} report={report} patches={patches} onOpen={() => {}} />);
    expect(screen.getByRole('status').textContent).toMatch(/^2 bad outcomes found within 300 states per value\. Not every search was exhaustive/);
    const sections = screen.getAllByRole('region');
    expect(sections.map((s) => s.getAttribute('aria-label'))).toEqual(['mremap_flush = deferred', 'mremap_flush = dirty', 'mremap_flush = dirty_file_or_swapcache', 'mremap_flush = present']);
    const first = sections[0]!;
    const cells = within(first).getAllByRole('cell').map((c) => c.textContent);
    expect(cells).toEqual([`no: stopped, ${deferred.cut}`, String(deferred.schedules), String(deferred.states), String(deferred.outcomes.length), '2']);
    const outcomes = within(first).getAllByRole('listitem').filter((li) => li.getAttribute('data-outcome'));
    expect(outcomes.map((o) => o.getAttribute('data-outcome'))).toEqual(['bad', 'bad']);
    const o = outcomes[0]!;
    expect(o.textContent).toContain(`lost_write at step ${lost.findings[0]!.steps[0]}: a page dropped from the page cache held data the file never got`);
    expect(o.textContent).toContain('stale_tlb_store at steps 70, 73');
    expect(o.textContent).toContain(`${lost.steps} steps, ${lost.schedule.split(',').length} picks`);
    expect(o.textContent).toContain(lost.schedule);
    for (const [name, v] of Object.entries(lost.counters)) expect(o.textContent).toContain(`${name} ${v}`);
    expect(within(o).getByRole('link', { name: 'Open' }).getAttribute('href')).toBe(openLink(base, deferred, lost));
    expect(within(o).getByRole('link', { name: 'A/B' }).getAttribute('href')).toBe(abLink(base, deferred, lost, 'dirty'));
    // No bad outcome under dirty: each ok.
    expect(within(sections[1]!).getAllByRole('listitem').filter((li) => li.getAttribute('data-outcome') === 'bad')).toEqual([]);
    expect(within(sections[1]!).getByText('none bad')).toBeTruthy();
  });

  it('says when every search was exhaustive', () => {
    const all = { ...report, values: report.values.map((v) => ({ ...v, exhaustive: true, cut: null })) };
    render(<ExploreReportView base={base} report={all} patches={patches} onOpen={() => {}} />);
    expect(screen.getByRole('status').textContent).toContain('Every search was exhaustive: these are all the outcomes.');
    expect(screen.getAllByRole('cell')[0]!.textContent).toBe('yes: every interleaving');
  });

  it('says what an exhaustive search covered under a delay bound: every schedule within it, not every interleaving', () => {
    const bounded = { ...report, delays: 3, values: report.values.map((v) => ({ ...v, exhaustive: true, cut: null })) };
    render(<ExploreReportView base={base} report={bounded} patches={patches} onOpen={() => {}} />);
    expect(screen.getByRole('status').textContent).toContain(
      'Every search was exhaustive within 3 deviations of the default order: these are all the outcomes such schedules reach',
    );
    expect(screen.getAllByRole('cell')[0]!.textContent).toBe('yes: every schedule within 3 deviations of the default order');
  });
});

describe('Open from the Explore view', () => {
  /** The lab on the search's scenario with the report shown in the open dialog; the fragments applied are logged. */
  function renderDialog(): { applied: string[] } {
    const app = createAppStore();
    const applied: string[] = [];
    const state = app.getState();
    app.setState({
      scenario: { kind: 'builtin', id: 'mremap-race-101', hash: '1234abcd' },
      scenarioText: base.scenarioText,
      patches,
      toggleOverrides: base.toggles,
      runs: { ...state.runs, a: { ...state.runs.a, summary: { explore: { toggle: 'mremap_flush', budget: 300, delays: null } } as unknown as ScenarioSummary } },
      applyFragment: async (fragment: string) => {
        applied.push(fragment);
      },
    });
    const explore = createExploreStore();
    explore.setState({ status: { kind: 'done', elapsedMs: 1, budget: 300 }, base, report });
    render(
      <StoreProvider store={app}>
        <ExploreButton store={explore} />
      </StoreProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: /^Explore…/ }));
    return { applied };
  }

  it('shows the outcome even when its link is already the address (no hashchange comes): the link\'s state is applied', () => {
    const { applied } = renderDialog();
    const link = openLink(base, deferred, lost);
    window.location.hash = link;
    const dialog = screen.getByRole('dialog', { name: 'Explore: mremap-race-101 under each value of mremap_flush' });
    const outcome = within(dialog).getByRole('region', { name: 'mremap_flush = deferred' }).querySelector('[data-outcome="bad"]') as HTMLElement;
    fireEvent.click(within(outcome).getByRole('link', { name: 'Open' }));
    expect(applied).toEqual([link.slice(1)]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('leaves a link to another state to the browser (its hashchange applies it once)', () => {
    const { applied } = renderDialog();
    window.location.hash = '#v=2&sc=mremap-race-101&step=3';
    const outcome = screen.getByRole('region', { name: 'mremap_flush = deferred' }).querySelector('[data-outcome="bad"]') as HTMLElement;
    fireEvent.click(within(outcome).getByRole('link', { name: 'Open' }));
    expect(applied).toEqual([]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('the explore store', () => {
  it('runs a search, reports elapsed time, and Cancel aborts the engine call (its worker)', async () => {
    let clock = 0;
    const store = createExploreStore(() => clock);
    let seen: AbortSignal | undefined;
    let finish: (r: ExploreReport) => void = () => {};
    const engine = {
      explore: (_t: string, _tg: unknown, _p: unknown, toggle: string | null, budget: number, signal?: AbortSignal) => {
        seen = signal;
        expect([toggle, budget]).toEqual(['mremap_flush', 2000]);
        return new Promise<ExploreReport>((resolve, reject) => {
          finish = resolve;
          signal?.addEventListener('abort', () => reject(signal.reason));
        });
      },
    } as unknown as SimEngine;
    const done = store.getState().start(engine, base, 2000);
    expect(store.getState().status.kind).toBe('running');
    clock = 1500;
    finish(report);
    await done;
    expect(store.getState().status).toEqual({ kind: 'done', elapsedMs: 1500, budget: 2000 });
    expect(store.getState().report).toBe(report);
    const again = store.getState().start(engine, base, 2000);
    clock = 2000;
    store.getState().cancel();
    await again;
    expect(seen?.aborted).toBe(true);
    expect(store.getState().status).toEqual({ kind: 'cancelled', elapsedMs: 500, budget: 2000 });
    // The report before stays.
    expect(store.getState().report).toBe(report);
  });

  it('says what the engine said when the search fails', async () => {
    const store = createExploreStore(() => 0);
    const engine = { explore: async () => Promise.reject(new Error('toggle: no toggle `x`')) } as unknown as SimEngine;
    await store.getState().start(engine, base, 10);
    expect(store.getState().status).toEqual({ kind: 'failed', message: 'toggle: no toggle `x`' });
  });
});
