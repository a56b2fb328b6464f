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
 * Every category in display order (the legend's), each with an Okabe–Ito colour. The
 * palette's yellow is left out (it cannot be seen on the white page): "other" is a neutral
 * grey instead, never drawn on the scrubber.
 */
export const CATEGORIES: readonly CategoryInfo[] = [
  { id: 'fault', label: 'Faults', color: '#d55e00' },
  { id: 'ipi', label: 'IPIs', color: '#cc79a7' },
  { id: 'flush', label: 'TLB flushes', color: '#0072b2' },
  { id: 'migration', label: 'Migrations', color: '#009e73' },
  { id: 'sched', label: 'Scheduling', color: '#56b4e9' },
  { id: 'lock', label: 'Locks', color: '#e69f00' },
  { id: 'alloc', label: 'Allocations', color: '#000000' },
  { id: 'other', label: 'Other', color: '#8a8a8a' },
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
