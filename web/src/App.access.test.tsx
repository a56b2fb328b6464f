// @vitest-environment jsdom
// The lab's access features on the fixture engine: the narration's live region, the key sheet,
// the skip link, "Go to step" and grouped digits.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './App';
import { createFixtureEngine } from './engine/fixtureEngine';
import { ANNOUNCE_DELAY_MS } from './panels/Narration';
import { createAppStore, type AppStore } from './store/appStore';
import { StoreProvider } from './store/context';

let store: AppStore;

async function settle(ms = 0): Promise<void> {
  await act(async () => {
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(ms);
    else await new Promise((resolve) => setTimeout(resolve, ms));
  });
}

async function renderApp(fragment = ''): Promise<void> {
  store = createAppStore();
  void store.getState().boot(createFixtureEngine(), fragment);
  render(
    <StoreProvider store={store}>
      <App />
    </StoreProvider>,
  );
  await settle();
}

const live = (): string => screen.getByRole('status', { name: 'Narration' }).textContent ?? '';
const readout = (): string => screen.getByRole('status', { name: 'Step readout' }).textContent ?? '';

beforeEach(() => {
  window.history.replaceState(null, '', '/');
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('access', () => {
  it('reads the narration once a step holds still, nothing while playing, and the step on pause', async () => {
    vi.useFakeTimers();
    await renderApp();
    await settle(ANNOUNCE_DELAY_MS);
    expect(live()).toMatch(/^Step 0 of 161\. Chapter 1 of \d+: /);
    // A quick run of steps is read once, where it stops.
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    await settle(50);
    fireEvent.keyDown(document.body, { key: 'ArrowRight' });
    await settle(50);
    expect(live()).toMatch(/^Step 0 of 161\./);
    await settle(ANNOUNCE_DELAY_MS);
    expect(live()).toMatch(/^Step 2 of 161\. CPU \d+, [^:]+: \S/);
    // Playing: silent.
    fireEvent.click(screen.getByRole('button', { name: 'Play' }));
    await settle(3000);
    expect(store.getState().runs.a.step).toBeGreaterThan(3);
    expect(live()).toMatch(/^Step 2 of 161\./);
    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    await settle(ANNOUNCE_DELAY_MS);
    expect(live()).toMatch(new RegExp(`^Step ${store.getState().runs.a.step} of 161\\.`));
  });

  it('opens the key sheet with "?" and the Keys button, and gives focus back when it closes', async () => {
    await renderApp();
    const keys = screen.getByRole('button', { name: /^Keys/ });
    keys.focus();
    fireEvent.keyDown(keys, { key: '?' });
    await settle();
    const sheet = screen.getByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(sheet.textContent).toMatch(/PageUp.*PageDown.*Previous \/ next chapter/);
    expect(document.activeElement?.textContent).toBe('Close');
    // A lab key inside the sheet does not move the run.
    fireEvent.keyDown(document.activeElement as Element, { key: 'ArrowRight' });
    await settle();
    expect(readout()).toBe('step 0 / 161');
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    await settle();
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull();
    expect(document.activeElement).toBe(keys);
    // "?" in a text field is typing.
    const field = screen.getByRole('textbox', { name: 'Go to step' });
    fireEvent.keyDown(field, { key: '?' });
    await settle();
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull();
  });

  it('has the skip link first; it moves focus to the step controls, not the address', async () => {
    await renderApp('v=1&sc=numa-hint-fault-101&step=3');
    await settle(300);
    const links = screen.getAllByRole('link');
    expect(links[0]?.textContent).toBe('Skip to step controls');
    const hash = window.location.hash;
    fireEvent.click(links[0] as HTMLElement);
    expect(document.activeElement).toBe(screen.getByRole('group', { name: 'Step controls' }));
    expect(window.location.hash).toBe(hash);
  });

  it('goes to a step typed with grouped digits and keeps a bad one with a message', async () => {
    await renderApp();
    const field = screen.getByRole('textbox', { name: 'Go to step' });
    fireEvent.change(field, { target: { value: '1,2' } });
    fireEvent.submit(field);
    await settle();
    expect(field).toHaveProperty('value', '1,2');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('"1,2": group digits in threes (1,234,567) or type them plain (1234567).')).toBeTruthy();
    fireEvent.change(field, { target: { value: '1 000' } });
    fireEvent.submit(field);
    await settle();
    expect(screen.getByText('Step 1,000 is past the last step (161).')).toBeTruthy();
    fireEvent.change(field, { target: { value: '12' } });
    fireEvent.submit(field);
    await settle();
    expect(readout()).toBe('step 12 / 161');
    expect(field).toHaveProperty('value', '');
    expect(field.getAttribute('aria-invalid')).toBe('false');
  });

  it("operates the machine view's frames from the keyboard: one Tab stop, arrows move, Enter selects, PageDown is the lab's", async () => {
    await renderApp();
    const frame = (pfn: number): HTMLElement => screen.getByRole('button', { name: new RegExp(`^pfn ${pfn} \\(`) });
    expect(frame(0).getAttribute('tabindex')).toBe('0');
    expect(frame(1).getAttribute('tabindex')).toBe('-1');
    frame(0).focus();
    fireEvent.keyDown(frame(0), { key: 'ArrowRight' });
    await settle();
    expect(document.activeElement).toBe(frame(1));
    expect(readout()).toBe('step 0 / 161');
    fireEvent.keyDown(frame(1), { key: 'Enter' });
    await settle();
    expect(store.getState().selection).toEqual({ panel: 'machine', object: 'pfn-1' });
    expect(frame(1).getAttribute('aria-pressed')).toBe('true');
    expect(frame(1).getAttribute('tabindex')).toBe('0');
    fireEvent.keyDown(frame(1), { key: 'PageDown' });
    await settle();
    expect(store.getState().runs.a.step).toBe(store.getState().runs.a.summary?.chapters[1]?.step);
  });
});
