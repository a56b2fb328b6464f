// Event kinds → the categories the timeline and the panels colour (colour-blind safe). The
// category of every kind comes from the engine's mechanism metadata (each mechanism
// declares its event kinds and their categories); a kind no mechanism declares is "other".
import type { EventCategory, MechanismInfo } from '../engine/types';

export type { EventCategory };

/** What is drawn for a category. */
export interface CategoryInfo {
  id: EventCategory;
  label: string;
  color: string;
}

/**
 * Every category in display order (the legend's and the timeline's rows, top first), each with
 * its theme token (src/styles/tokens.css: Okabe–Ito, yellow left out, allocations in ink, "other"
 * neutral and never drawn on the scrubber). `color` is a CSS value, so SVG and HTML follow a
 * theme switch.
 */
export const CATEGORIES: readonly CategoryInfo[] = [
  { id: 'fault', label: 'Faults', color: 'var(--cat-fault)' },
  { id: 'ipi', label: 'IPIs', color: 'var(--cat-ipi)' },
  { id: 'flush', label: 'TLB flushes', color: 'var(--cat-flush)' },
  { id: 'migration', label: 'Migrations', color: 'var(--cat-migration)' },
  { id: 'sched', label: 'Scheduling', color: 'var(--cat-sched)' },
  { id: 'lock', label: 'Locks', color: 'var(--cat-lock)' },
  { id: 'alloc', label: 'Allocations', color: 'var(--cat-alloc)' },
  { id: 'other', label: 'Other', color: 'var(--cat-other)' },
];

/** Event kind → category, as the mechanisms declare them. */
export type KindCategories = ReadonlyMap<string, EventCategory>;

const built = new WeakMap<readonly MechanismInfo[], KindCategories>();

/** The kind → category map of `mechanisms` (built once per metadata array: the store reads it once per engine). */
export function kindCategories(mechanisms: readonly MechanismInfo[]): KindCategories {
  let map = built.get(mechanisms);
  if (!map) {
    const m = new Map<string, EventCategory>();
    for (const mechanism of mechanisms) for (const e of mechanism.events) if (!m.has(e.name)) m.set(e.name, e.category);
    map = m;
    built.set(mechanisms, map);
  }
  return map;
}

const KNOWN = new Set<string>(CATEGORIES.map((c) => c.id));

/** The category of an engine event kind (e.g. "ipi_send"); "other" for a kind (or a category) the UI does not know. */
export function eventCategory(kind: string, categories: KindCategories): EventCategory {
  const c = categories.get(kind);
  return c !== undefined && KNOWN.has(c) ? c : 'other';
}

/** Colour of a category. */
export function categoryColor(category: EventCategory): string {
  return (CATEGORIES.find((c) => c.id === category) ?? (CATEGORIES.at(-1) as CategoryInfo)).color;
}

/** Label of a category. */
export function categoryLabel(category: EventCategory): string {
  return CATEGORIES.find((c) => c.id === category)?.label ?? 'Other';
}
