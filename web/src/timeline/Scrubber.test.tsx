// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEngine } from '../engine/engine';
import { createFixtureEngine } from '../engine/fixtureEngine';
import { testMechanism } from '../engine/testMechanisms';
import type { MechanismInfo } from '../engine/types';
import { createAppStore } from '../store/appStore';
import { StoreProvider } from '../store/context';
import { categoryColor } from './eventKinds';
import { Scrubber } from './Scrubber';

afterEach(cleanup);

/** The scrubber over the recorded numa-hint-fault-101 run, with `mechanisms` as the metadata. */
async function renderScrubber(mechanisms: MechanismInfo[]) {
  const store = createAppStore();
  const engine: SimEngine = { ...createFixtureEngine(), mechanisms: () => mechanisms };
  await store.getState().boot(engine, '');
  render(
    <StoreProvider store={store}>
      <Scrubber />
    </StoreProvider>,
  );
  return store;
}

const legend = () =>
  within(screen.getByRole('list', { name: /^Marks on the timeline/ }))
    .getAllByRole('listitem')
    .map((li) => li.textContent);
const marks = () => [...document.querySelectorAll('line[stroke]')].map((l) => l.getAttribute('stroke'));

describe('Scrubber', () => {
  it('marks each event in its mechanism’s category, with the legend in display order', async () => {
    // Declared in another order than the legend's, and split over two mechanisms.
    const store = await renderScrubber([
      testMechanism('one', { events: [['migrate_copy', 'migration'], ['ptl_lock', 'lock'], ['call', 'other']] }),
      testMechanism('two', { events: [['ipi_send', 'ipi'], ['hint_fault', 'fault'], ['alloc_page', 'alloc']] }),
    ]);
    expect(legend()).toEqual(['Faults', 'IPIs', 'Migrations', 'Locks', 'Allocations', 'Chapters']);
    const events = store.getState().runs.a.events;
    const count = (kind: string) => events.filter((e) => e.kind === kind).length;
    const drawn = marks();
    expect(drawn.filter((c) => c === categoryColor('ipi')).length).toBe(count('ipi_send'));
    expect(drawn.filter((c) => c === categoryColor('lock')).length).toBe(count('ptl_lock'));
    // Each key shows its row (top first) as well as its colour.
    const keys = within(screen.getByRole('list', { name: /^Marks on the timeline/ })).getAllByRole('listitem').slice(0, 5);
    keys.forEach((li, i) => {
      const rects = [...li.querySelectorAll('rect')];
      expect(rects).toHaveLength(5);
      const filled = rects.filter((r) => r.getAttribute('height') === '3');
      expect(filled.map((r) => r.getAttribute('y'))).toEqual([String(i * 3)]);
      expect(filled[0]?.style.fill).toBe(categoryColor((['fault', 'ipi', 'migration', 'lock', 'alloc'] as const)[i] ?? 'other'));
    });
    // "other" kinds (declared so, or declared by no mechanism, like ipi_recv here) are not marked.
    expect(drawn.length).toBe(['migrate_copy', 'ptl_lock', 'ipi_send', 'hint_fault', 'alloc_page'].map(count).reduce((a, b) => a + b));
  });

  it('marks nothing but chapters without metadata', async () => {
    await renderScrubber([]);
    expect(legend()).toEqual(['Chapters']);
    expect(marks()).toEqual([]);
  });
});
