import { describe, expect, it } from 'vitest';
import recorded from './fixtures/numa-hint-fault-101.listings.json';
import { findListing, isAfterValue, shownListing } from './listing';
import type { CodeListing, PatchInfo, ToggleValue } from './types';

const listing = (fn: string, tag: string): CodeListing => ({ function: fn, follows: tag, lines: [{ id: 'l1', text: tag }] });

const boolPatch: PatchInfo = {
  id: 'numa_delay_map',
  kind: 'bool',
  title: 'NUMA balancing: reduce TLB flush via delaying mapping on hint page fault',
  author: 'A',
  date: '2021-04-01',
  commit: 'abc',
  version: 'v5.13',
  link: 'https://example.invalid',
  explanation: 'e',
  functions: ['do_numa_page'],
  values: [false, true],
  default: false,
  valueLabels: ['off', 'on'],
  listings: [{ before: listing('do_numa_page', 'old'), after: listing('do_numa_page', 'new') }],
  history: [],
};
const enumPatch: PatchInfo = {
  ...boolPatch,
  id: 'flush_mode',
  kind: 'enum',
  values: ['eager', 'batched', 'lazy'],
  default: 'eager',
  valueLabels: ['eager', 'batched', 'lazy'],
  listings: [{ before: listing('flush_tlb_mm', 'eager'), after: listing('flush_tlb_mm', 'batched') }],
};

describe('findListing', () => {
  it('chooses before/after by the bool toggle', () => {
    expect(findListing([boolPatch], {}, 'do_numa_page')?.listing.follows).toBe('old');
    expect(findListing([boolPatch], { numa_delay_map: false }, 'do_numa_page')?.side).toBe('before');
    expect(findListing([boolPatch], { numa_delay_map: true }, 'do_numa_page')?.listing.follows).toBe('new');
  });
  it('chooses after for any enum value but the first', () => {
    expect(isAfterValue(enumPatch, 'eager')).toBe(false);
    expect(isAfterValue(enumPatch, 'lazy')).toBe(true);
    expect(findListing([boolPatch, enumPatch], { flush_mode: 'batched' }, 'flush_tlb_mm')?.side).toBe('after');
  });
  it('returns null for a function without listing', () => {
    expect(findListing([boolPatch, enumPatch], {}, 'task_numa_work')).toBeNull();
  });
  it('prefers a patch that is in effect', () => {
    const other = { ...boolPatch, id: 'other' };
    const choice = findListing([other, boolPatch], { numa_delay_map: true }, 'do_numa_page');
    expect(choice?.patch.id).toBe('numa_delay_map');
  });
});

describe('shownListing', () => {
  it("prefers the run's active listing and keeps the patch pair for the diff", () => {
    const active = listing('do_numa_page', 'engine');
    const shown = shownListing([active], [boolPatch], {}, 'do_numa_page');
    expect(shown?.listing).toBe(active);
    expect(shown?.choice?.patch.id).toBe('numa_delay_map');
    expect(shownListing([listing('mmu_walk', 'walk')], [boolPatch], {}, 'mmu_walk')?.choice).toBeNull();
    expect(shownListing([], [boolPatch], {}, 'nowhere')).toBeNull();
  });

  // Recorded from the real engine by scripts/record-fixtures.mjs.
  const fixture = recorded as unknown as {
    patches: PatchInfo[];
    runs: { toggles: Record<string, ToggleValue>; listings: CodeListing[]; steps: [string, string][] }[];
  };
  for (const run of fixture.runs) {
    it(`finds the line of every event of numa-hint-fault-101 with numa_delay_map=${String(run.toggles.numa_delay_map)}`, () => {
      expect(run.steps.length).toBeGreaterThan(20);
      for (const [fn, line] of run.steps) {
        const shown = shownListing(run.listings, fixture.patches, run.toggles, fn);
        expect(shown, `${fn} has a listing`).not.toBeNull();
        expect(
          shown?.listing.lines.some((l) => l.id === line),
          `${fn}:${line} is a line of ${shown?.listing.follows ?? ''}`,
        ).toBe(true);
      }
    });
  }
  it('both values of numa_delay_map are recorded and step through the patched function', () => {
    expect(fixture.runs.map((r) => r.toggles.numa_delay_map)).toEqual([false, true]);
    for (const run of fixture.runs) expect(run.steps.some(([fn]) => fn === 'do_numa_page')).toBe(true);
  });
});
