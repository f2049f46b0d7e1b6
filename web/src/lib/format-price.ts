/** Prices (spec §9): whole units, no decimals; US dollars unless the listing says otherwise. */

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(currency: string): Intl.NumberFormat {
  let f = formatters.get(currency);
  if (!f) {
    f = new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: 0, maximumFractionDigits: 0 });
    formatters.set(currency, f);
  }
  return f;
}

function isCurrencyCode(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value)) return false;
  try {
    formatter(value.toUpperCase());
    return true;
  } catch {
    return false;
  }
}

/** A whole amount in the given currency (default USD), e.g. '$12,500'. */
export function formatMoney(amount: number, currency?: string | null): string {
  const code = isCurrencyCode(currency) ? currency.toUpperCase() : 'USD';
  return formatter(code).format(Math.round(amount));
}

function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The card's price: whole US dollars, or 'Price on request'. */
export function formatCardPrice(price: number | null | undefined, currency?: string | null): string {
  return isAmount(price) ? formatMoney(price, currency) : 'Price on request';
}

/** The detail page's price, in the listing's currency (dollars by default), or 'Price not available'. */
export function formatDetailPrice(price: number | null | undefined, currency?: string | null): string {
  return isAmount(price) ? formatMoney(price, currency) : 'Price not available';
}

/**
 * Price range text (spec §2, Alerts): 'min - max', 'Above min', 'Below max' or 'Any price';
 * amounts in US dollars without decimals.
 */
export function priceRangeText(min: number | null | undefined, max: number | null | undefined): string {
  const hasMin = isAmount(min);
  const hasMax = isAmount(max);
  if (hasMin && hasMax) return `${formatMoney(min)} - ${formatMoney(max)}`;
  if (hasMin) return `Above ${formatMoney(min)}`;
  if (hasMax) return `Below ${formatMoney(max)}`;
  return 'Any price';
}

/** A price filter typed by the user, as the whole number the API expects; null when empty or not a number. */
export function parsePriceInput(value: string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim().replace(/[$,\s]/g, '');
  if (trimmed === '') return null;
  const n = Number(trimmed);
  if (!Number.isFinite(n) || n < 0) return null;
  return Math.trunc(n);
}
