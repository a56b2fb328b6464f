// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureEngine, FIXTURE_SCENARIOS, type FixtureEngineOptions } from '../engine/fixtureEngine';
import { testMechanism } from '../engine/testMechanisms';
import type { NumaHardware, SimEvent } from '../engine/types';
import { createAppStore, type AppStore } from '../store/appStore';
import { StoreProvider } from '../store/context';
import { NUMACTL_TEXT_KEY } from '../store/uiSlice';
import { Header } from './Header';
import { splitRelevant } from './ToggleBar';

// The recordings hold numa-hint-fault-101 with its own toggles and with numa_delay_map off: the
// kernels and presets below only move numa_delay_map, so every rebuild they ask for was recorded.
const KERNELS = { kernelVersions: ['v5.13'], kernels: [{ version: 'v5.12', toggles: { numa_delay_map: false } }, { version: 'v5.13', toggles: { numa_delay_map: true } }] };

async function settle(ms = 0): Promise<void> {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, ms));
  });
}

async function renderHeader(options: FixtureEngineOptions) {
  const store: AppStore = createAppStore();
  const engine = createFixtureEngine(options);
  await store.getState().boot(engine, '');
  render(
    <StoreProvider store={store}>
      <Header />
    </StoreProvider>,
  );
  await settle();
  return { store, engine };
}

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});

describe('kernel and preset pickers', () => {
  it('applies a kernel in one rebuild and shows the matching version, else custom', async () => {
    const { store, engine } = await renderHeader(KERNELS);
    const kernel = screen.getByRole('combobox', { name: 'Kernel' }) as HTMLSelectElement;
    expect([...kernel.options].map((o) => o.textContent)).toEqual(['custom', 'v5.12 and older', 'v5.13 and later']);
    expect(kernel.value).toBe('v5.13');
    const creates = engine.log.creates;
    fireEvent.change(kernel, { target: { value: 'v5.12' } });
    await settle();
    expect(engine.log.creates).toBe(creates + 1);
    expect(store.getState().runs.a.summary?.toggles.numa_delay_map).toBe(false);
    expect(store.getState().toggleOverrides).toEqual({ numa_delay_map: false });
    expect(kernel.value).toBe('v5.12');
    // The preset picker is there exactly when some mechanism declares presets.
    const declared = store.getState().mechanisms.some((m) => m.presets.length > 0);
    expect(screen.queryByRole('combobox', { name: 'Preset' }) !== null).toBe(declared);
  });

  it('shows "custom" when the toggles match no kernel', async () => {
    await renderHeader({ kernelVersions: ['v5.13'], kernels: [{ version: 'v5.13', toggles: { numa_delay_map: false } }] });
    expect((screen.getByRole('combobox', { name: 'Kernel' }) as HTMLSelectElement).value).toBe('__custom');
  });

  it('offers the mechanisms’ named presets and applies one in one rebuild', async () => {
    const presets = [
      { name: 'base', doc: 'before the patch', kernel: 'v5.12', toggles: [['numa_delay_map', false]] as [string, boolean][] },
      { name: 'patch1', doc: 'with the patch', kernel: null, toggles: [['numa_delay_map', true]] as [string, boolean][] },
    ];
    const { store, engine } = await renderHeader({ mechanisms: [testMechanism('core'), testMechanism('pcp', { presets })] });
    const preset = screen.getByRole('combobox', { name: 'Preset' }) as HTMLSelectElement;
    expect([...preset.options].map((o) => o.textContent)).toEqual(['custom', 'base', 'patch1']);
    expect(preset.value).toBe('pcp/patch1');
    const creates = engine.log.creates;
    fireEvent.change(preset, { target: { value: 'pcp/base' } });
    await settle();
    expect(engine.log.creates).toBe(creates + 1);
    expect(store.getState().runs.a.summary?.toggles.numa_delay_map).toBe(false);
    expect(preset.value).toBe('pcp/base');
  });
});

describe('machine from numactl --hardware', () => {
  const HW: NumaHardware = {
    nodes: [
      { id: 0, cpus: [0, 1, 2, 3], size_mb: 1000, free_mb: 900 },
      { id: 1, cpus: [4, 5, 6, 7], size_mb: 1000, free_mb: null },
    ],
    distances: [
      [10, 20],
      [20, 10],
    ],
  };
  const parseNumactl = (text: string): NumaHardware => {
    if (text.includes('oops')) throw new Error('line 2: cannot read `oops` as numactl --hardware output');
    return HW;
  };

  it('previews what the engine reads, marks the line of an error and keeps the text across close and reopen', async () => {
    const { store } = await renderHeader({ parseNumactl });
    fireEvent.click(screen.getByRole('button', { name: 'Machine…' }));
    const dialog = screen.getByRole('dialog', { name: 'Machine from numactl --hardware', hidden: true });
    const box = within(dialog).getByRole('textbox', { name: 'numactl --hardware output', hidden: true });
    fireEvent.change(box, { target: { value: 'node 0 cpus: 0-3\nnode 0 size: 1000 MB' } });
    await settle(200);
    expect(within(dialog).getByTestId('numactl-summary').textContent).toBe('2 nodes, 8 CPUs, 2,000 MB (2.0 GiB)');
    expect(within(dialog).getAllByText('0-3').length).toBe(1);
    // 2,000 MB = 512,000 real pages: 8 of them per simulated page gives 64,000.
    expect((within(dialog).getByRole('spinbutton', { name: 'Memory scale', hidden: true }) as HTMLInputElement).value).toBe('8');
    expect(within(dialog).getByTestId('numactl-scale').textContent).toMatch(/64,000 simulated pages/);

    fireEvent.change(box, { target: { value: 'node 0 cpus: 0\noops' } });
    await settle(200);
    const error = within(dialog).getByTestId('numactl-error');
    expect(error.textContent).toMatch(/^Line 2: cannot read `oops`/);
    expect(box.getAttribute('aria-invalid')).toBe('true');
    expect(store.getState().numactlText).toBe('node 0 cpus: 0\noops');
    expect(sessionStorage.getItem(NUMACTL_TEXT_KEY)).toBe('node 0 cpus: 0\noops');

    fireEvent.click(within(dialog).getByRole('button', { name: 'Close', hidden: true }));
    await settle();
    fireEvent.click(screen.getByRole('button', { name: 'Machine…' }));
    const again = screen.getByRole('dialog', { name: 'Machine from numactl --hardware', hidden: true });
    expect((within(again).getByRole('textbox', { name: 'numactl --hardware output', hidden: true }) as HTMLTextAreaElement).value).toBe('node 0 cpus: 0\noops');
  });

  it('shows the engine’s message when the scenario cannot run on the machine, and keeps the text', async () => {
    const { store } = await renderHeader({ parseNumactl });
    store.getState().setNumactlText('node 0 cpus: 0-7\nnode 0 size: 1000 MB');
    fireEvent.click(screen.getByRole('button', { name: 'Machine…' }));
    await settle(200);
    const dialog = screen.getByRole('dialog', { name: 'Machine from numactl --hardware', hidden: true });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Use this machine', hidden: true }));
    await settle();
    // The fixture engine has no recorded describe of this text: its message is shown as the engine's would be.
    expect(within(dialog).getByTestId('machine-use-error').textContent).toMatch(/^The scenario cannot run on this machine: /);
    expect(store.getState().numactlText).toBe('node 0 cpus: 0-7\nnode 0 size: 1000 MB');
    expect(store.getState().scenario).toEqual({ kind: 'builtin', id: FIXTURE_SCENARIOS[0]?.id, hash: null });
  });
});

describe('which patches a run goes through', () => {
  const patches = createFixtureEngine().patches();
  const delay = patches.find((p) => p.id === 'numa_delay_map')!;
  const changed = delay.functions[0]!;
  const event = (fn: string) => ({ function: fn }) as SimEvent;

  it('goes by every function of the whole run once the summary has them, else by the events at hand', () => {
    const byRun = splitRelevant(patches, [changed], []);
    expect(byRun.relevant.map((p) => p.id)).toContain('numa_delay_map');
    expect(byRun.relevant.length + byRun.other.length).toBe(patches.length);
    // The run's list wins over a window of events that happens to hold the function.
    expect(splitRelevant(patches, ['user code'], [event(changed)]).relevant).toEqual([]);
    // Before the run is prepared, the events decide.
    expect(splitRelevant(patches, [], [event(changed)]).relevant.map((p) => p.id)).toContain('numa_delay_map');
  });

  it('puts none up front when no patch changes code the run goes through', () => {
    const { relevant, other } = splitRelevant(patches, ['user code'], []);
    expect(relevant).toEqual([]);
    expect(other).toHaveLength(patches.length);
  });
});
