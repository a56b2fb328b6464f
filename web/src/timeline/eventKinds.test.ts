import { describe, expect, it } from 'vitest';
import { categoryColor, eventCategory } from './eventKinds';

describe('eventCategory', () => {
  it('sorts the engine kinds into categories', () => {
    expect(eventCategory('ipi_send')).toBe('ipi');
    expect(eventCategory('ipi_recv')).toBe('ipi');
    expect(eventCategory('hint_fault')).toBe('fault');
    expect(eventCategory('tlb_miss')).toBe('fault');
    expect(eventCategory('flush_local')).toBe('flush');
    expect(eventCategory('migrate_copy')).toBe('migration');
    expect(eventCategory('numa_scan')).toBe('other');
    expect(categoryColor('ipi')).toBe('#cc79a7');
  });
});
