/** The alert message keys moved down to services/shared/rules/alert-message-keys.ts (the alerts repository parses them); alerts read them from there. */
export * from '../shared/rules/alert-message-keys.js';
