/** The spec's business constants (§9) used by the web app. */

/** Dashboard page size. */
export const PAGE_SIZE = 15;
/** Toasts stay this long (the spec names 5000 ms and 4000 ms in two places; we use one value). */
export const TOAST_DURATION_MS = 5000;
export const MIN_PASSWORD_LENGTH = 8;
export const RESET_REDIRECT_MS = 3000;
export const TRIAL_DAYS = 14;
export const APP_VERSION = '1.0.0';

/** The data cache (§9): garbage collection after 5 minutes, 3 retries, backoff 1 s doubling to 30 s. */
export const QUERY_GC_TIME_MS = 5 * 60 * 1000;
export const QUERY_RETRIES = 3;
export const QUERY_RETRY_BASE_MS = 1000;
export const QUERY_RETRY_MAX_MS = 30_000;

/** Browser storage keys (§9). */
export const STORAGE_KEYS = {
  accessToken: 'access_token',
  refreshToken: 'refresh_token',
  user: 'user',
} as const;

export const SORT_OPTIONS = [
  { value: 'deal_score_high', label: 'Deal Score (High to Low)' },
  { value: 'deal_score_low', label: 'Deal Score (Low to High)' },
  { value: 'price_low', label: 'Price (Low to High)' },
  { value: 'price_high', label: 'Price (High to Low)' },
  { value: 'distance', label: 'Distance (Nearest First)' },
  { value: 'delivered', label: 'Delivered (Cheapest)' },
] as const;

/** Orders that need the buyer's ZIP code (the API refuses them without one). */
export const SORTS_NEEDING_ZIP: readonly SortBy[] = ['distance', 'delivered'];

export type SortBy = (typeof SORT_OPTIONS)[number]['value'];
export const DEFAULT_SORT: SortBy = 'deal_score_high';

export const BILLING_PATH = '/account?tab=billing';
