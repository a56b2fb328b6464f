import { describe, expect, it } from 'vitest';
import { findListing, isAfterValue } from './listing';
import type { CodeListing, PatchInfo } from './types';

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
