/** The freight rules moved down to services/shared/rules/freight-rates.ts (the alert and index SQL need them); valuation reads them from there. */
export * from '../shared/rules/freight-rates.js';
