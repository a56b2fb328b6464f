// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App';
import { createFixtureEngine, fixtureRun, type FixtureEngineOptions } from './engine/fixtureEngine';
import { ErrorBoundary } from './panels/ErrorBoundary';
import { createAppStore, type AppStore } from './store/appStore';
import { StoreProvider } from './store/context';

const TITLE = 'NUMA balancing: reduce TLB flush via delaying mapping on hint page fault';

let store: AppStore;

/** Lets every pending engine answer arrive (the fixture engine answers on microtasks, or after fake-timer delays). */
async function settle(ms = 0): Promise<void> {
  await act(async () => {
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(ms);
    else await new Promise((resolve) => setTimeout(resolve, ms));
  });
}

/** Renders the app on the fixture engine (runs recorded from the real one) and waits until the fragment's scenario is shown. */
async function renderApp(fragment = '', options: FixtureEngineOptions = {}) {
  store = createAppStore();
  void store.getState().boot(createFixtureEngine(options), fragment);
  const view = render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  );
  await settle();
  return view;
}

/** Texts of the banner's notices (role="status" messages with a Dismiss button). */
const notices = () =>
  screen
    .queryAllByRole('status')
    .filter((el) => within(el).queryByRole('button', { name: /^Dismiss/ }))
    .map((el) => el.textContent);

const readout = () => screen.getByRole('status', { name: 'Step readout' }).textContent;

beforeEach(() => {
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('App with the fixture engine', () => {
  it('renders the lab and steps with the transport buttons', async () => {
    await renderApp();
    expect(readout()).toBe('step 0 / 161');
    expect(screen.getByRole('combobox', { name: 'Scenario' })).toHaveProperty('value', 'numa-hint-fault-101');
    expect(screen.getByText('FAKE ENGINE')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    await settle();
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    await settle();
    expect(readout()).toBe('step 2 / 161');
    fireEvent.click(screen.getByRole('button', { name: 'Step back' }));
    await settle();
    expect(readout()).toBe('step 1 / 161');
    fireEvent.click(screen.getByRole('button', { name: 'Last step' }));
    await settle();
    expect(readout()).toBe('step 161 / 161');
    expect(screen.getByRole('button', { name: 'Step forward' })).toHaveProperty('disabled', true);
    fireEvent.click(screen.getByRole('button', { name: 'First step' }));
    await settle();
    expect(readout()).toBe('step 0 / 161');
    fireEvent.change(screen.getByRole('slider', { name: 'Step' }), { target: { value: '12' } });
    await settle();
    expect(readout()).toBe('step 12 / 161');
  });

  it('plays and pauses with one button that changes its name', async () => {
    vi.useFakeTimers();
    await renderApp();
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));
    await settle();
    expect(screen.getByRole('button', { name: 'Pause' })).toBeTruthy();
    await settle(1600);
    expect(store.getState().runs.a.step).toBeGreaterThanOrEqual(3);
    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    await settle();
    const at = store.getState().runs.a.step;
    await settle(2000);
    expect(store.getState().runs.a.step).toBe(at);
  });

  it('shows a panel per view of each mechanism the run exercises, and the core panels', async () => {
    await renderApp();
    const mechanisms = store.getState().mechanisms;
    const final = fixtureRun('hint-101').series.counters;
    const moving = (name: string) => (final[name]?.at(-1) ?? 0) !== 0;
    const expected = mechanisms.filter((m) => m.counters.some((c) => moving(c.name))).flatMap((m) => m.views.map((v) => `${m.id}/${v.id}`));
    const shown = [...document.querySelectorAll('section[data-mechanism]')].map((s) => `${s.getAttribute('data-mechanism')}/${s.getAttribute('data-view')}`);
    expect(shown).toEqual(expected);
    // This run migrates pages on hint faults and forks nothing.
    expect(shown.some((v) => v.startsWith('numa/'))).toBe(true);
    expect(shown.some((v) => v.startsWith('fork/'))).toBe(false);
    for (const title of ['Counters', 'Plots', 'Chapters']) expect(screen.getByRole('heading', { level: 2, name: new RegExp(`^${title}`) })).toBeTruthy();
  });

  it('handles keys, but not while typing in an input', async () => {
    await renderApp();
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    await settle();
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    await settle();
    expect(readout()).toBe('step 2 / 161');
    fireEvent.keyDown(document.body, { key: 'End' });
    await settle();
    expect(readout()).toBe('step 161 / 161');
    fireEvent.keyDown(document.body, { key: 'Home' });
    await settle();
    fireEvent.keyDown(document.body, { key: 'PageDown' });
    await settle();
    expect(store.getState().runs.a.step).toBe(store.getState().runs.a.summary?.chapters[1]?.step);
    const input = screen.getByRole('spinbutton', { name: 'pages' });
    fireEvent.keyDown(input, { key: 'ArrowRight' });
    await settle();
    fireEvent.keyDown(input, { key: 'Home' });
    await settle();
    expect(store.getState().runs.a.step).toBe(store.getState().runs.a.summary?.chapters[1]?.step);
  });

  it('rebuilds on toggle at the same point of the workload and shows what changed', async () => {
    await renderApp();
    fireEvent.click(screen.getByRole('button', { name: 'Last step' }));
    await settle();
    const sw = screen.getByRole('switch', { name: TITLE });
    fireEvent.click(sw);
    await settle();
    // numa-hint-fault-101 turns numa_delay_map on; off, its run is longer. The end of the
    // shorter run is the end of the longer one (the same point of the workload), not its step 161.
    expect(store.getState().runs.a.summary?.toggles.numa_delay_map).toBe(false);
    expect(readout()).toBe('step 181 / 181');
    expect(screen.getByText(/Rebuilt with/)).toBeTruthy();
    expect(screen.getAllByText(/\(was \d+\)/).length).toBeGreaterThan(0);
    const counter = (name: string, step: number) => fixtureRun(name).frames.get(step)?.header.counters.nr_tlb_remote_flush_received;
    const [off, on] = [counter('hint-101-delay-off', 181), counter('hint-101', 161)];
    expect(off).toBeGreaterThan(on ?? Infinity);
    const row = screen.getByRole('rowheader', { name: 'nr_tlb_remote_flush_received' }).closest('tr') as HTMLElement;
    expect(within(row).getAllByRole('cell')[0]?.textContent).toBe(`${off} (was ${on})`);
  });

  it('refuses an out-of-range param, keeping the typed text', async () => {
    vi.useFakeTimers();
    await renderApp();
    const input = screen.getByRole('spinbutton', { name: 'pages' });
    fireEvent.change(input, { target: { value: '99' } });
    await settle(1000);
    fireEvent.blur(input);
    await settle();
    expect(screen.getByText('Must be 1–32; not applied')).toBeTruthy();
    expect((input as HTMLInputElement).value).toBe('99');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const pages = () => store.getState().runs.a.summary?.params.find((p) => p.name === 'pages')?.value;
    expect(pages()).toBe(4);
    fireEvent.change(input, { target: { value: '2' } });
    await settle(1000);
    expect(pages()).toBe(2);
    expect(screen.queryByText(/not applied/)).toBeNull();
  });

  it('shows the code listing with the current line, a diff, and says when no kernel code runs', async () => {
    // Step 37 of numa-hint-fault-101 is do_numa_page's first line (N1), a function numa_delay_map changes.
    await renderApp('#v=1&sc=numa-hint-fault-101&step=38');
    expect(store.getState().runs.a.frame?.code).toEqual({ function: 'do_numa_page', line: 'N1' });
    const current = document.querySelector('[aria-current="true"]');
    expect(current?.textContent).toContain('take the PTE lock');
    fireEvent.click(screen.getByRole('button', { name: 'Compare before/after' }));
    await settle();
    expect(screen.getByRole('table', { name: /before and after the patch/ })).toBeTruthy();
    await act(() => store.getState().seek(0));
    expect(screen.getByText('The CPU of this step is in user space or idle.')).toBeTruthy();
  });

  it('shows banner messages as alerts that can be dismissed', async () => {
    await renderApp('#v=1&s=%%%garbage');
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toMatch(/^Error:This link could not be read:/);
    fireEvent.click(within(alert).getByRole('button', { name: /^Dismiss/ }));
    await settle();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(readout()).toBe('step 0 / 161');
  });

  it('labels each banner message by its severity', async () => {
    await renderApp('#v=1&sc=numa-hint-fault-101');
    act(() => {
      store.getState().report('broken', 'error');
      store.getState().report('careful', 'warning');
      store.getState().report('fyi', 'info');
    });
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Error:brokenDismiss', 'Warning:carefulDismiss']);
    expect(screen.getAllByRole('status').map((a) => a.textContent)).toContain('Note:fyiDismiss');
  });

  it('highlights a frame from the page table', async () => {
    await renderApp('#v=1&sc=numa-hint-fault-101&step=1');
    const pfn = screen.getByRole('button', { name: /^pfn 1 on node 0/ });
    fireEvent.click(pfn);
    await settle();
    expect(store.getState().selection).toEqual({ panel: 'machine', object: 'pfn-1' });
    expect(pfn.getAttribute('aria-pressed')).toBe('true');
  });

  it('opens the patch card by the About button', async () => {
    await renderApp();
    fireEvent.click(screen.getByRole('button', { name: `About the patch: ${TITLE}` }));
    await settle();
    const card = screen.getByRole('complementary', { name: `Patch: ${TITLE}` });
    expect(within(card).getByText(/^Huang Ying/)).toBeTruthy();
    fireEvent.keyDown(card, { key: 'Escape' });
    await settle();
    expect(screen.queryByRole('complementary')).toBeNull();
  });
});

describe('loading in the background', () => {
  it('shows elapsed time and an indeterminate bar, disables the transport with a reason, and cancels', async () => {
    vi.useFakeTimers();
    store = createAppStore();
    void store.getState().boot(createFixtureEngine({ createDelayMs: 5000 }), '');
    render(
      <StoreProvider store={store}>
        <App />
      </StoreProvider>,
    );
    await settle(1250);
    const bar = screen.getByRole('progressbar', { name: 'Running numa-hint-fault-101' });
    expect(bar.getAttribute('aria-valuenow')).toBeNull();
    expect(bar.getAttribute('aria-valuetext')).toBe('1.2 s elapsed');
    expect(screen.getByText('Running numa-hint-fault-101…')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Step forward' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('group', { name: 'Transport' }).getAttribute('aria-describedby')).toBe('transport-reason');
    expect(screen.getByText('The step controls work once a scenario is loaded.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await settle(6000);
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(notices()).toEqual(['Note:Cancelled loading numa-hint-fault-101.Dismiss']);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByText('No scenario is loaded. Pick one above.')).toBeTruthy();
  });

  it('fills the bar when the engine reports progress', async () => {
    vi.useFakeTimers();
    store = createAppStore();
    void store.getState().boot(createFixtureEngine({ createDelayMs: 1000, progressReports: 4 }), '');
    render(
      <StoreProvider store={store}>
        <App />
      </StoreProvider>,
    );
    await settle(500);
    // First run: the steps prepared count up, the bar cannot know its end.
    let bar = screen.getByRole('progressbar', { name: 'Running numa-hint-fault-101' });
    expect(bar.getAttribute('aria-valuenow')).toBeNull();
    expect(bar.getAttribute('aria-valuetext')).toBe('81 steps prepared, 0.5 s elapsed');
    await settle(600);
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(readout()).toBe('step 0 / 161');
    // The same run again: the bar fills towards the length it had the first time.
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    await settle();
    void store.getState().openBuiltin('numa-hint-fault-101');
    await settle(500);
    bar = screen.getByRole('progressbar', { name: 'Running numa-hint-fault-101' });
    expect(bar.getAttribute('aria-valuenow')).toBe('50');
    expect(bar.getAttribute('aria-valuetext')).toBe('50%: 81 of about 161 steps, 0.5 s elapsed');
    await settle(600);
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('keeps stepping the scenario on screen while another loads, and Cancel keeps it', async () => {
    vi.useFakeTimers();
    await renderApp('', { createDelayMs: 3000 });
    await settle(3000);
    expect(readout()).toBe('step 0 / 161');
    fireEvent.change(screen.getByRole('combobox', { name: 'Scenario' }), { target: { value: 'rmap-101' } });
    await settle(100);
    expect(screen.getByRole('progressbar', { name: 'Running rmap-101' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    await settle();
    expect(readout()).toBe('step 2 / 161');
    fireEvent.click(screen.getByRole('button', { name: /The scanner marks PROT_NONE/ }));
    await settle();
    expect(store.getState().runs.a.step).toBe(store.getState().runs.a.summary?.chapters[1]?.step);
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await settle(5000);
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.getByRole('combobox', { name: 'Scenario' })).toHaveProperty('value', 'numa-hint-fault-101');
    expect(notices()).toEqual(['Note:Cancelled loading rmap-101.Dismiss']);
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    await settle();
    expect(store.getState().runs.a.step).toBe((store.getState().runs.a.summary?.chapters[1]?.step ?? 0) + 1);
  });
});

describe('URL sync', () => {
  it('writes the state to the fragment (debounced) and applies a pasted fragment', async () => {
    vi.useFakeTimers();
    await renderApp();
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    await settle();
    fireEvent.click(screen.getByRole('switch', { name: TITLE }));
    await settle();
    expect(window.location.hash).toBe('');
    await settle(400);
    expect(window.location.hash).toMatch(/^#v=2&sc=numa-hint-fault-101&h=[0-9a-f]{8}&t\.numa_delay_map=false&step=1$/);
    act(() => {
      window.history.replaceState(null, '', '#v=1&sc=rmap-101&step=4');
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    await settle();
    expect(store.getState().runs.a.summary?.id).toBe('rmap-101');
    expect(readout()).toBe(`step 4 / ${fixtureRun('rmap-101').summary.totalSteps}`);
    expect(store.getState().runs.a.summary?.toggles.numa_delay_map).toBe(true);
  });
});

describe('URL sync after a bad link', () => {
  it('keeps the link in the address bar beside its message, until the person does something', async () => {
    vi.useFakeTimers();
    window.history.replaceState(null, '', '#v=2&s=%%%garbage');
    await renderApp('#v=2&s=%%%garbage');
    await settle(400);
    expect(screen.getAllByRole('alert').map((a) => a.textContent).join(' ')).toContain('This link could not be read');
    // The default scenario is usable, and the address bar still shows what was sent.
    expect(readout()).toMatch(/^step 0 \//);
    expect(window.location.hash).toBe('#v=2&s=%%%garbage');
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    await settle(400);
    expect(window.location.hash).toMatch(/^#v=2&sc=numa-hint-fault-101&.*step=1$/);
  });
});

describe('URL sync while loading', () => {
  it('keeps a pasted link in the address bar while it opens, and follows the screen after Cancel', async () => {
    vi.useFakeTimers();
    await renderApp('', { createDelayMs: 2000 });
    await settle(2000);
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    await settle(400);
    expect(window.location.hash).toMatch(/&sc=numa-hint-fault-101&.*step=1$/);
    act(() => {
      window.history.replaceState(null, '', '#v=1&sc=rmap-101&step=4');
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    await settle(100);
    expect(screen.getByRole('progressbar', { name: 'Running rmap-101' })).toBeTruthy();
    // Stepping the scenario on screen does not overwrite the link being opened.
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    await settle(400);
    expect(window.location.hash).toBe('#v=1&sc=rmap-101&step=4');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await settle(400);
    expect(readout()).toBe('step 2 / 161');
    expect(window.location.hash).toMatch(/&sc=numa-hint-fault-101&.*step=2$/);
  });
});

describe('ErrorBoundary', () => {
  it('shows the error and resets', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    let fail = true;
    function Bomb() {
      if (fail) throw new Error('kaboom');
      return <p>fine</p>;
    }
    const onReset = vi.fn(() => {
      fail = false;
    });
    render(
      <ErrorBoundary onReset={onReset}>
        <Bomb />
      </ErrorBoundary>,
    );
    expect(screen.getByRole('alert').textContent).toContain('kaboom');
    fireEvent.click(screen.getByRole('button', { name: 'Reset' }));
    expect(onReset).toHaveBeenCalled();
    expect(screen.getByText('fine')).toBeTruthy();
    spy.mockRestore();
  });
});
