/** Moved down to services/shared/lots/normalize-listing.ts (the listing store's lot merge needs it); the crawler reads it from there. */
export * from '../../shared/lots/normalize-listing.js';
