/** The listing index's interface: what the sync, the list query and the repository import. */
export { ListingIndex, RELEVANCE_CANDIDATES } from './listing-index.js';
export { parseTsvector } from '../../shared/rules/search-vector.js';
export type { IndexedListing, IndexFilter, IndexOptions, IndexSort, IndexStats, WordGroup } from './types.js';
export type { IndexColumns } from './snapshot.js';
