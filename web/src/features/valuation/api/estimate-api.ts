/** What is it worth (issue 38): `GET /api/valuation/estimate/` and the categories it asks for. */
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.js';
import type { BidLimits } from '../../../lib/bid-limits.js';

export type EstimateFacts = { category: string; make: string; model: string; year: string; hours: string; zip: string };

export type Estimate = {
  category: { id: number; name: string };
  title: string;
  state: string | null;
  known_model: boolean;
  note: string | null;
  score_reason: string | null;
  valuation: {
    as_of: string | null;
    fair_value: number;
    low: number | null;
    high: number | null;
    confidence: number | null;
    comparables: Array<{ title: string; price: number; original_price: number; sold_at: string; source: string; url: string | null }>;
  } | null;
  bid_limits: BidLimits | null;
  estimates_left_today: number | null;
};

export function estimateQuery(facts: EstimateFacts): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(facts)) if (value.trim()) params.set(key, value.trim());
  return `/api/valuation/estimate/?${params.toString()}`;
}

export function useEstimate() {
  return useMutation({ mutationFn: (facts: EstimateFacts) => apiRequest<{ data: Estimate }>(estimateQuery(facts)).then((r) => r.data) });
}

export function useEstimateCategories() {
  return useQuery({
    queryKey: ['auctions', 'categories'],
    queryFn: () => apiRequest<{ data: { categories: Array<{ id: number; name: string }> } }>('/api/auctions/categories/', { auth: false }).then((r) => r.data.categories),
    staleTime: 10 * 60 * 1000,
  });
}
