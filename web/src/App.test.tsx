// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App';
import { createFakeEngine } from './engine/fakeEngine';
import { ErrorBoundary } from './panels/ErrorBoundary';
import { createAppStore, type AppStore } from './store/appStore';
import { StoreProvider } from './store/context';

const TITLE = 'NUMA balancing: reduce TLB flush via delaying mapping on hint page fault';

let store: AppStore;

function renderApp(fragment = '') {
  store = createAppStore();
  store.getState().boot(createFakeEngine(), fragment);
  return render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  );
}

const readout = () => screen.getByRole('status', { name: 'Step readout' }).textContent;

beforeEach(() => {
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('App with the fake engine', () => {
  it('renders the lab and steps with the transport buttons', () => {
    renderApp();
    expect(readout()).toBe('step 0 / 27');
    expect(screen.getByRole('combobox', { name: 'Scenario' })).toHaveProperty('value', 'fake-101');
    expect(screen.getByText('FAKE ENGINE')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    expect(readout()).toBe('step 2 / 27');
    fireEvent.click(screen.getByRole('button', { name: 'Step back' }));
    expect(readout()).toBe('step 1 / 27');
    fireEvent.click(screen.getByRole('button', { name: 'Last step' }));
    expect(readout()).toBe('step 27 / 27');
    expect(screen.getByRole('button', { name: 'Step forward' })).toHaveProperty('disabled', true);
    fireEvent.click(screen.getByRole('button', { name: 'First step' }));
    expect(readout()).toBe('step 0 / 27');
    fireEvent.change(screen.getByRole('slider', { name: 'Step' }), { target: { value: '12' } });
    expect(readout()).toBe('step 12 / 27');
  });

  it('plays and pauses with one button that changes its name', () => {
    vi.useFakeTimers();
    renderApp();
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));
    expect(screen.getByRole('button', { name: 'Pause' })).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(1600);
    });
    expect(store.getState().step).toBeGreaterThanOrEqual(3);
    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    const at = store.getState().step;
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(store.getState().step).toBe(at);
  });

  it('handles keys, but not while typing in an input', () => {
    renderApp();
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    expect(readout()).toBe('step 2 / 27');
    fireEvent.keyDown(document.body, { key: 'End' });
    expect(readout()).toBe('step 27 / 27');
    fireEvent.keyDown(document.body, { key: 'Home' });
    fireEvent.keyDown(document.body, { key: 'PageDown' });
    expect(store.getState().step).toBe(store.getState().summary?.chapters[1]?.step);
    const input = screen.getByRole('spinbutton', { name: 'pages' });
    fireEvent.keyDown(input, { key: 'ArrowRight' });
    fireEvent.keyDown(input, { key: 'Home' });
    expect(store.getState().step).toBe(store.getState().summary?.chapters[1]?.step);
  });

  it('rebuilds on toggle at the same step and shows what changed', () => {
    renderApp();
    fireEvent.click(screen.getByRole('button', { name: 'Last step' }));
    const sw = screen.getByRole('switch', { name: TITLE });
    fireEvent.click(sw);
    expect(store.getState().summary?.toggles.numa_delay_map).toBe(true);
    expect(readout()).toBe('step 18 / 18');
    expect(screen.getByText(/Rebuilt with/)).toBeTruthy();
    expect(screen.getAllByText(/\(was \d+\)/).length).toBeGreaterThan(0);
    const row = screen.getByRole('rowheader', { name: 'nr_tlb_remote_flush_received' }).closest('tr') as HTMLElement;
    expect(within(row).getAllByRole('cell')[0]?.textContent).toMatch(/^1 \(was 4\)$/);
  });

  it('refuses an out-of-range param, keeping the typed text', () => {
    vi.useFakeTimers();
    renderApp();
    const input = screen.getByRole('spinbutton', { name: 'pages' });
    fireEvent.change(input, { target: { value: '99' } });
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    fireEvent.blur(input);
    expect(screen.getByText('Must be 1–6; not applied')).toBeTruthy();
    expect((input as HTMLInputElement).value).toBe('99');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(store.getState().summary?.params[0]?.value).toBe(3);
    fireEvent.change(input, { target: { value: '5' } });
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(store.getState().summary?.params[0]?.value).toBe(5);
    expect(screen.queryByText(/not applied/)).toBeNull();
  });

  it('shows the code listing with the current line, "no listing" otherwise, and a diff', () => {
    renderApp('#v=1&sc=fake-101&step=5');
    const current = document.querySelector('[aria-current="true"]');
    expect(current?.textContent).toContain('vm_normal_page');
    fireEvent.click(screen.getByRole('button', { name: 'Compare before/after' }));
    expect(screen.getByRole('table', { name: /before and after the patch/ })).toBeTruthy();
    act(() => store.getState().seek(7));
    expect(screen.getByText(/no listing/)).toBeTruthy();
  });

  it('shows banner messages as alerts that can be dismissed', () => {
    renderApp('#v=1&s=%%%garbage');
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('This link could not be read:');
    fireEvent.click(within(alert).getByRole('button', { name: /^Dismiss/ }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(readout()).toBe('step 0 / 27');
  });

  it('highlights a frame from the page table', () => {
    renderApp('#v=1&sc=fake-101&step=1');
    const pfn = screen.getByRole('button', { name: /^pfn 1 on node 0/ });
    fireEvent.click(pfn);
    expect(store.getState().selection).toEqual({ panel: 'machine', object: 'pfn-1' });
    expect(pfn.getAttribute('aria-pressed')).toBe('true');
  });

  it('opens the patch card by the About button', () => {
    renderApp();
    fireEvent.click(screen.getByRole('button', { name: `About the patch: ${TITLE}` }));
    const card = screen.getByRole('complementary', { name: `Patch: ${TITLE}` });
    expect(within(card).getByText('Huang Ying')).toBeTruthy();
    fireEvent.keyDown(card, { key: 'Escape' });
    expect(screen.queryByRole('complementary')).toBeNull();
  });
});

describe('URL sync', () => {
  it('writes the state to the fragment (debounced) and applies a pasted fragment', () => {
    vi.useFakeTimers();
    renderApp();
    fireEvent.click(screen.getByRole('button', { name: 'Step forward' }));
    fireEvent.click(screen.getByRole('switch', { name: TITLE }));
    expect(window.location.hash).toBe('');
    act(() => {
      vi.advanceTimersByTime(400);
    });
    expect(window.location.hash).toMatch(/^#v=1&sc=fake-101&h=[0-9a-f]{8}&t\.numa_delay_map=true&step=1$/);
    act(() => {
      window.history.replaceState(null, '', '#v=1&sc=fake-one&step=4');
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    expect(store.getState().summary?.id).toBe('fake-one');
    expect(readout()).toBe('step 4 / 11');
    expect(store.getState().summary?.toggles.numa_delay_map).toBe(false);
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
