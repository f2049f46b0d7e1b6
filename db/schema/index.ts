export * from './users.js';
export * from './catalog.js';
export * from './listings.js';
export * from './billing.js';
export * from './crawl.js';
export * from './accounts.js';
export * from './valuation.js';
export * from './alerts.js';
