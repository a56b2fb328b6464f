// Event kinds → the few categories the timeline colours (colour-blind safe).

/** Categories drawn on the scrubber. */
export type EventCategory = 'ipi' | 'fault' | 'flush' | 'migration' | 'other';

/** Category metadata in display order. */
export const CATEGORIES: { id: EventCategory; label: string; color: string }[] = [
  { id: 'fault', label: 'Faults', color: '#d55e00' },
  { id: 'ipi', label: 'IPIs', color: '#cc79a7' },
  { id: 'flush', label: 'TLB flushes', color: '#0072b2' },
  { id: 'migration', label: 'Migrations', color: '#009e73' },
  { id: 'other', label: 'Other', color: '#8a8a8a' },
];

/** Maps an engine event kind (e.g. "ipi_send", "hint_fault") to a category. */
export function eventCategory(kind: string): EventCategory {
  const k = kind.toLowerCase();
  if (k.includes('ipi')) return 'ipi';
  if (k.includes('fault') || k.includes('tlb_miss')) return 'fault';
  if (k.includes('flush') || k.includes('shootdown')) return 'flush';
  if (k.includes('migrat') || k.includes('isolate') || k.includes('copy') || k.includes('remap')) return 'migration';
  return 'other';
}

/** Colour of a category. */
export function categoryColor(category: EventCategory): string {
  return CATEGORIES.find((c) => c.id === category)?.color ?? '#8a8a8a';
}
