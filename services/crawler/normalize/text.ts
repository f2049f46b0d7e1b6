/** Moved down to services/shared/lots/ (the listing store's lot merge needs the whole normalisation); the crawler reads it from there. */
export * from '../../shared/lots/text.js';
