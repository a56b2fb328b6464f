// @vitest-environment jsdom
// The address bar's history around a jump: Back returns to the frame a jump started from, even
// when the person moves on before the debounced write of the frame it landed on (found in the
// A/B e2e test under load: End and Copy link within 250 ms of the jump lost its entry).
import { cleanup, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFixtureEngine } from '../engine/fixtureEngine';
import { createAppStore } from '../store/appStore';
import { StoreProvider } from '../store/context';
import { currentLink, URL_DEBOUNCE_MS, useUrlSync } from './useUrlSync';

const choice = { kind: 'toggle', id: 'numa_delay_map', a: false, b: true } as const;

/** Each write to the history, as [kind, step, bstep]. */
function recordHistory(): Array<[string, string, string]> {
  const writes: Array<[string, string, string]> = [];
  const record = (kind: string) => (_state: unknown, _title: string, url?: string | URL | null) => {
    const q = new URLSearchParams(String(url ?? '').replace(/^#/, ''));
    writes.push([kind, q.get('step') ?? '', q.get('bstep') ?? '']);
  };
  const push = window.history.pushState.bind(window.history);
  const replace = window.history.replaceState.bind(window.history);
  vi.spyOn(window.history, 'pushState').mockImplementation((s, t, u) => {
    record('push')(s, t, u);
    push(s, t, u);
  });
  vi.spyOn(window.history, 'replaceState').mockImplementation((s, t, u) => {
    record('replace')(s, t, u);
    replace(s, t, u);
  });
  return writes;
}

const settle = () => new Promise((r) => setTimeout(r, URL_DEBOUNCE_MS + 100));

async function abLab() {
  const store = createAppStore();
  await store.getState().boot(createFixtureEngine(), '');
  await store.getState().setAb(choice);
  await vi.waitFor(() => expect(store.getState().ab?.divergence.state).toBe('found'));
  const wrapper = ({ children }: { children: ReactNode }) => <StoreProvider store={store}>{children}</StoreProvider>;
  renderHook(() => useUrlSync(), { wrapper });
  for (let i = 0; i < 6; i++) await store.getState().stepBy(1);
  await settle();
  return store;
}

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  window.history.replaceState(null, '', '#');
});

describe('history entries around a jump', () => {
  it('a jump leaves the frame it started from behind an entry, written once the landing settles', async () => {
    const store = await abLab();
    const writes = recordHistory();
    await store.getState().goDivergence();
    const landed = store.getState().runs.a.step;
    expect(landed).toBeGreaterThan(6);
    await settle();
    expect(writes).toEqual([['push', String(landed), String(store.getState().runs.b.step)]]);
  });

  it('moving on and copying the link before the debounce still makes the jump an entry', async () => {
    const store = await abLab();
    const writes = recordHistory();
    await store.getState().goDivergence();
    await store.getState().goLast();
    const end = [String(store.getState().runs.a.step), String(store.getState().runs.b.step)];
    // Copy link writes the URL at once: the first write after the jump, so it is the new entry.
    currentLink(store);
    await settle();
    expect(writes).toEqual([['push', ...end]]);
    // An ordinary step afterwards rewrites that entry in place.
    await store.getState().stepBy(-1);
    await settle();
    expect(writes.slice(1).map((w) => w[0])).toEqual(['replace']);
  });

  it('a second jump before the first one landed in the URL keeps both entries', async () => {
    const store = await abLab();
    const writes = recordHistory();
    await store.getState().goDivergence();
    const first = String(store.getState().runs.a.step);
    await store.getState().seekLane('a', 3, { history: true });
    await settle();
    expect(writes.map((w) => [w[0], w[1]])).toEqual([
      ['push', first],
      ['push', String(store.getState().runs.a.step)],
    ]);
  });
});
