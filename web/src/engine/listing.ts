// Chooses the code listing to show for a kernel function under the active toggles.
import type { CodeListing, PatchInfo, ToggleValue } from './types';

/** The listing pair of one function and which side the current toggles select. */
export interface ListingChoice {
  patch: PatchInfo;
  before: CodeListing;
  after: CodeListing;
  side: 'before' | 'after';
  listing: CodeListing;
}

/** True when `value` selects a patch's `after` listing: bool on, or an enum value other than the first. */
export function isAfterValue(patch: PatchInfo, value: ToggleValue | undefined): boolean {
  const v = value ?? patch.default;
  if (patch.kind === 'bool') return v === true;
  return v !== patch.values[0];
}

/**
 * Finds the listing of `fn` for the active toggles: the `after` listing when the
 * patch's toggle selects it, else `before`. A patch in effect wins over one that is
 * not. Returns null when no patch has a listing for the function.
 */
export function findListing(patches: readonly PatchInfo[], toggles: Record<string, ToggleValue>, fn: string): ListingChoice | null {
  let fallback: ListingChoice | null = null;
  for (const patch of patches) {
    for (const pair of patch.listings) {
      if (pair.before.function !== fn && pair.after.function !== fn) continue;
      const side = isAfterValue(patch, toggles[patch.id]) ? 'after' : 'before';
      const choice: ListingChoice = { patch, before: pair.before, after: pair.after, side, listing: pair[side] };
      if (side === 'after') return choice;
      fallback ??= choice;
    }
  }
  return fallback;
}

/** What the code pane shows for a function: the run's listing, and the patch pair when a patch changes it. */
export interface ShownListing {
  listing: CodeListing;
  /** The before/after pair of a patch that changes the function, for the diff; null when none does. */
  choice: ListingChoice | null;
}

/**
 * The listing of `fn` for this run: the one the engine reports as active
 * (`summary.listings`, every modelled function), else the patch registry's side
 * the toggles select. Null only for a function neither knows.
 */
export function shownListing(
  active: readonly CodeListing[],
  patches: readonly PatchInfo[],
  toggles: Record<string, ToggleValue>,
  fn: string,
): ShownListing | null {
  const choice = findListing(patches, toggles, fn);
  const listing = active.find((l) => l.function === fn) ?? choice?.listing;
  return listing ? { listing, choice } : null;
}
