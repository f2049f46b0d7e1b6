/**
 * Listing calls (spec §7). They fail with 'API request failed: {status} {statusText}' (§8);
 * the list goes without an auth header, the detail with the bearer token when there is one.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { DEFAULT_SORT, PAGE_SIZE, SORTS_NEEDING_ZIP } from '../../../config/constants.js';
import { ApiError, requestResponse, type RequestOptions } from '../../../lib/api-client.js';
import type { AuctionDetail, AuctionDetailResponse, AuctionListResponse, AuctionQuery, CategoriesResponse, CrawlStatus, NamedRef } from '../../../lib/listing-types.js';

async function auctionRequest<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const response = await requestResponse(path, opts);
  if (!response.ok) {
    throw new ApiError(`API request failed: ${response.status} ${response.statusText}`.trimEnd(), response.status);
  }
  return (await response.json()) as T;
}

export function auctionListParams(q: AuctionQuery): Record<string, string | number | null> {
  return {
    category: q.category,
    min_price: q.priceMin,
    max_price: q.priceMax,
    location: q.location.trim() || null,
    search: q.searchQuery.trim() || null,
    near: q.nearZip || null,
    radius_miles: q.nearZip ? q.radiusMiles : null,
    max_delivered: q.nearZip ? q.maxDelivered : null,
    worth_the_trip: q.nearZip && q.worthTheTrip ? 'true' : null,
    sort_by: !q.nearZip && SORTS_NEEDING_ZIP.includes(q.sortBy) ? DEFAULT_SORT : q.sortBy,
    page: q.page,
    page_size: PAGE_SIZE,
  };
}

export function getAuctions(q: AuctionQuery, signal?: AbortSignal): Promise<AuctionListResponse> {
  return auctionRequest('/api/auctions/list/', { query: auctionListParams(q), auth: false, signal });
}

export const auctionsQueryOptions = (q: AuctionQuery) =>
  queryOptions({
    queryKey: ['auctions', 'list', auctionListParams(q)],
    queryFn: ({ signal }) => getAuctions(q, signal),
  });

export function useAuctions(q: AuctionQuery) {
  return useQuery(auctionsQueryOptions(q));
}

/** The deal, or null when the API says it does not exist (404). */
export async function getAuction(id: string, signal?: AbortSignal, near?: string): Promise<AuctionDetail | null> {
  try {
    const body = await auctionRequest<AuctionDetailResponse>(`/api/auctions/detail/${encodeURIComponent(id)}/`, { signal, query: near ? { near } : undefined });
    return body.data ?? null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export const auctionQueryOptions = (id: string, near?: string) =>
  queryOptions({ queryKey: ['auctions', 'detail', id, near ?? ''], queryFn: ({ signal }) => getAuction(id, signal, near) });

export function useAuction(id: string, near?: string) {
  return useQuery(auctionQueryOptions(id, near));
}

export async function getCategories(signal?: AbortSignal): Promise<NamedRef[]> {
  const body = await auctionRequest<CategoriesResponse>('/api/auctions/categories/', { auth: false, signal });
  return body.data?.categories ?? [];
}

export function useCategories() {
  return useQuery({
    queryKey: ['auctions', 'categories'],
    queryFn: async ({ signal }) => {
      try {
        return await getCategories(signal);
      } catch (error) {
        // A category load failure is only logged (spec §8): the filter offers 'All Categories'.
        console.error('Failed to load categories', error);
        throw error;
      }
    },
    staleTime: 10 * 60 * 1000,
  });
}

/**
 * Whether sources are enabled and their first crawl is still running: asked only when an
 * unfiltered dashboard is empty, and again every 15 s while that crawl runs.
 */
export function useCrawlStatus(enabled: boolean) {
  return useQuery({
    queryKey: ['auctions', 'crawl-status'],
    queryFn: ({ signal }) => auctionRequest<CrawlStatus>('/api/crawl-status/', { auth: false, signal }),
    enabled,
    retry: false,
    refetchInterval: (q) => (q.state.data?.first_crawl_running ? 15_000 : false),
  });
}
