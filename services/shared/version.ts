/** The app version reported by /api/health/ (spec §9: 1.0.0). */
export const APP_VERSION = '1.0.0';
