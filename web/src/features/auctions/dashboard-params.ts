/** The dashboard's filters, sort and page, kept in the URL so back/forward and reloads keep them. */
import { DEFAULT_SORT, SORT_OPTIONS, type SortBy } from '../../config/constants.js';
import { parsePriceInput } from '../../lib/format-price.js';
import type { AuctionFilters, AuctionQuery } from './api/types.js';

export const EMPTY_FILTERS: AuctionFilters = { category: null, priceMin: null, priceMax: null, location: '', searchQuery: '', nearZip: '', radiusMiles: null };

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
  return {
    category: positiveInt(params.get('category')),
    priceMin: parsePriceInput(params.get('min_price')),
    priceMax: parsePriceInput(params.get('max_price')),
    location: (params.get('location') ?? '').slice(0, 100),
    searchQuery: (params.get('search') ?? '').slice(0, 200),
    nearZip: zipOrEmpty(params.get('near')),
    radiusMiles: zipOrEmpty(params.get('near')) ? positiveInt(params.get('radius_miles')) : null,
    sortBy: SORT_OPTIONS.some((o) => o.value === sort) ? (sort as SortBy) : DEFAULT_SORT,
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
  if (q.sortBy !== DEFAULT_SORT) params.set('sort_by', q.sortBy);
  if (q.page > 1) params.set('page', String(q.page));
  return params;
}
