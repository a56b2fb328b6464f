import { describe, expect, it } from 'vitest';
import { testMechanism } from '../engine/testMechanisms';
import { CATEGORIES, categoryColor, categoryLabel, eventCategory, kindCategories } from './eventKinds';

const MECHANISMS = [
  testMechanism('a', { events: [['ipi_send', 'ipi'], ['hint_fault', 'fault'], ['call', 'other']] }),
  testMechanism('b', { events: [['migrate_copy', 'migration'], ['ptl_lock', 'lock'], ['pick_next', 'sched'], ['alloc_page', 'alloc'], ['flush_local', 'flush']] }),
];

describe('event categories', () => {
  it('takes every kind’s category from the mechanisms, not from its name', () => {
    const kinds = kindCategories(MECHANISMS);
    expect(eventCategory('ipi_send', kinds)).toBe('ipi');
    expect(eventCategory('hint_fault', kinds)).toBe('fault');
    expect(eventCategory('migrate_copy', kinds)).toBe('migration');
    expect(eventCategory('ptl_lock', kinds)).toBe('lock');
    expect(eventCategory('pick_next', kinds)).toBe('sched');
    expect(eventCategory('alloc_page', kinds)).toBe('alloc');
    expect(eventCategory('flush_local', kinds)).toBe('flush');
    expect(eventCategory('call', kinds)).toBe('other');
  });

  it('puts a kind no mechanism declares under "other", whatever its name says', () => {
    const kinds = kindCategories(MECHANISMS);
    expect(eventCategory('ipi_recv', kinds)).toBe('other');
    expect(eventCategory('tlb_miss', kinds)).toBe('other');
    expect(eventCategory('ipi_send', kindCategories([]))).toBe('other');
  });

  it('builds the map once per metadata array', () => {
    expect(kindCategories(MECHANISMS)).toBe(kindCategories(MECHANISMS));
    expect(kindCategories([...MECHANISMS])).not.toBe(kindCategories(MECHANISMS));
  });

  it('gives every category its own colour and label, in display order', () => {
    expect(CATEGORIES.map((c) => c.id)).toEqual(['fault', 'ipi', 'flush', 'migration', 'sched', 'lock', 'alloc', 'other']);
    expect(new Set(CATEGORIES.map((c) => c.color)).size).toBe(CATEGORIES.length);
    for (const c of CATEGORIES) expect(c.color).toBe(`var(--cat-${c.id})`);
    expect(categoryColor('ipi')).toBe('var(--cat-ipi)');
    expect(categoryLabel('flush')).toBe('TLB flushes');
  });
});
