/**
 * Which listing index an app's routes share: the list route creates and runs it, the health
 * route reports its state. Keyed by the app's context object, so several apps in one process
 * (tests) each see their own.
 */
import type { ListingIndexStatus, ListingIndexSync } from './listing-index-sync.js';

const indexes = new WeakMap<object, ListingIndexSync>();

export function registerListingIndex(owner: object, sync: ListingIndexSync): void {
  indexes.set(owner, sync);
}

/** The state of the app's listing index; null when the app serves no listings. */
export function listingIndexStatus(owner: object): ListingIndexStatus | null {
  return indexes.get(owner)?.status() ?? null;
}

/** The app's listing index itself (tests wait for a sync through it); null when the app serves no listings. */
export function listingIndexOf(owner: object): ListingIndexSync | null {
  return indexes.get(owner) ?? null;
}
