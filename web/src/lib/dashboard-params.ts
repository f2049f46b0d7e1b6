/** The dashboard's filters, sort and page, kept in the URL so back/forward and reloads keep them. */
import { DEFAULT_SORT, SORT_OPTIONS, SORTS_NEEDING_ZIP, type SortBy } from '../config/constants.js';
import { parsePriceInput } from './format-price.js';
import type { AuctionFilters, AuctionQuery } from './listing-types.js';

export const EMPTY_FILTERS: AuctionFilters = { category: null, priceMin: null, priceMax: null, location: '', searchQuery: '', nearZip: '', radiusMiles: null, maxDelivered: null, worthTheTrip: false };

/** A 5-digit ZIP code as typed ('' when it is not one: the API would refuse it). */
export function zipOrEmpty(value: string | null): string {
  const v = (value ?? '').trim();
  return /^\d{5}$/.test(v) ? v : '';
}

function positiveInt(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function queryFromSearchParams(params: URLSearchParams): AuctionQuery {
  const sort = params.get('sort_by');
  const near = zipOrEmpty(params.get('near'));
  const sortBy = SORT_OPTIONS.some((o) => o.value === sort) ? (sort as SortBy) : DEFAULT_SORT;
  return {
    category: positiveInt(params.get('category')),
    priceMin: parsePriceInput(params.get('min_price')),
    priceMax: parsePriceInput(params.get('max_price')),
    location: (params.get('location') ?? '').slice(0, 100),
    searchQuery: (params.get('search') ?? '').slice(0, 200),
    nearZip: near,
    radiusMiles: near ? positiveInt(params.get('radius_miles')) : null,
    // What needs a ZIP code is dropped without one (the API would answer 400).
    maxDelivered: near ? parsePriceInput(params.get('max_delivered')) : null,
    worthTheTrip: near !== '' && params.get('worth_the_trip') === 'true',
    sortBy: !near && SORTS_NEEDING_ZIP.includes(sortBy) ? DEFAULT_SORT : sortBy,
    page: positiveInt(params.get('page')) ?? 1,
  };
}

export function searchParamsFromQuery(q: AuctionQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (q.category !== null) params.set('category', String(q.category));
  if (q.priceMin !== null) params.set('min_price', String(q.priceMin));
  if (q.priceMax !== null) params.set('max_price', String(q.priceMax));
  if (q.location.trim()) params.set('location', q.location.trim());
  if (q.searchQuery.trim()) params.set('search', q.searchQuery.trim());
  if (q.nearZip) params.set('near', q.nearZip);
  if (q.nearZip && q.radiusMiles !== null) params.set('radius_miles', String(q.radiusMiles));
  if (q.nearZip && q.maxDelivered !== null) params.set('max_delivered', String(q.maxDelivered));
  if (q.nearZip && q.worthTheTrip) params.set('worth_the_trip', 'true');
  if (q.sortBy !== DEFAULT_SORT && (q.nearZip || !SORTS_NEEDING_ZIP.includes(q.sortBy))) params.set('sort_by', q.sortBy);
  if (q.page > 1) params.set('page', String(q.page));
  return params;
}
