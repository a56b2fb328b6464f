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
