import { AlertTriangle, PackageSearch, SlidersHorizontal } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { Button } from '../../../components/ui/button.js';
import { Card } from '../../../components/ui/card.js';
import { Label, inputClass } from '../../../components/ui/form.js';
import { Spinner } from '../../../components/ui/spinner.js';
import { SORT_OPTIONS, SORTS_NEEDING_ZIP, type SortBy } from '../../../config/constants.js';
import { auctionsQueryOptions, useAuctions, useCategories, useCrawlStatus } from '../api/auctions-api.js';
import type { AuctionFilters, AuctionQuery } from '../../../lib/listing-types.js';
import { EMPTY_FILTERS, queryFromSearchParams, searchParamsFromQuery } from '../../../lib/dashboard-params.js';
import { DealCard } from './deal-card.js';
import { rememberNearZip } from '../../../lib/near.js';
import { useAuth } from '../../../lib/auth.js';
import { FilterPanel } from './filter-panel.js';

/**
 * Under the spec's empty state, on an unfiltered dashboard of a new installation: why there is
 * nothing yet (no source enabled, or the first crawl still running). Says nothing otherwise.
 */
function FirstRunNote({ unfiltered }: { unfiltered: boolean }) {
  const status = useCrawlStatus(unfiltered);
  if (!unfiltered || !status.data || status.data.has_listings) return null;
  const { enabled_sources: sources, first_crawl_running: running } = status.data;
  // An older API (or a proxy's error page) answers without the list: say nothing rather than fail.
  if (!Array.isArray(sources)) return null;
  if (sources.length === 0) {
    return <p className="mt-2 text-sm text-slate-700" role="status">No auction site is being watched yet: an administrator enables sources (CRAWL_SOURCES).</p>;
  }
  if (!running) return null;
  return (
    <p className="mt-2 text-sm text-slate-700" role="status">
      The first crawl of {sources.join(', ')} is running: deals appear here within minutes.
    </p>
  );
}

function dealsFoundText(n: number): string {
  return n === 1 ? '1 deal found' : `${n.toLocaleString('en-US')} deals found`;
}

export function AuctionList() {
  const [searchParams, setSearchParams] = useSearchParams();
  const query = queryFromSearchParams(searchParams);
  // A buyer whose profile has a ZIP code sees distances from it at once: the first visit without
  // `near` in the URL takes it (once: Clear All or a ZIP code removed stays removed).
  const profileZip = useAuth().user?.zip ?? '';
  const nearDefaulted = useRef(false);
  useEffect(() => {
    if (nearDefaulted.current) return;
    nearDefaulted.current = true;
    if (/^\d{5}$/.test(profileZip) && !searchParams.has('near')) {
      const params = new URLSearchParams(searchParams);
      params.set('near', profileZip);
      rememberNearZip(profileZip);
      setSearchParams(params, { replace: true });
    }
  }, [profileZip, searchParams, setSearchParams]);
  const queryClient = useQueryClient();
  // On small screens the filter panel folds away behind a button so results come first.
  const [filtersOpen, setFiltersOpen] = useState(false);
  const auctions = useAuctions(query);
  const categories = useCategories();
  const filters: AuctionFilters = {
    category: query.category,
    priceMin: query.priceMin,
    priceMax: query.priceMax,
    location: query.location,
    searchQuery: query.searchQuery,
    nearZip: query.nearZip,
    radiusMiles: query.radiusMiles,
    maxDelivered: query.maxDelivered,
    worthTheTrip: query.worthTheTrip,
  };

  // A change made before the last one has rendered (Apply, then the sort at once) builds on the
  // last one, not on the URL this render read: otherwise the sort would bring back a removed radius.
  const pending = useRef<{ from: string; next: AuctionQuery } | null>(null);
  useEffect(() => {
    pending.current = null; // the URL has moved on (this change, Back, a link): it is the truth again
  }, [searchParams]);
  const latest = (): AuctionQuery => (pending.current?.from === searchParams.toString() ? pending.current.next : query);

  /** Changing filters or sort goes back to page 1 and reloads, even when nothing changed. */
  function go(next: AuctionQuery) {
    const before = latest();
    pending.current = { from: searchParams.toString(), next };
    // The deal page shows the price delivered to the ZIP code the buyer last searched near.
    if (next.nearZip !== before.nearZip) rememberNearZip(next.nearZip);
    const params = searchParamsFromQuery(next);
    if (params.toString() === searchParamsFromQuery(before).toString()) {
      void queryClient.invalidateQueries({ queryKey: auctionsQueryOptions(next).queryKey });
    } else {
      setSearchParams(params);
    }
    if (next.page !== before.page) window.scrollTo({ top: 0, behavior: 'smooth' });
  }

  const data = auctions.data?.data;
  const pagination = data?.pagination;
  const currentUrl = `/dashboard${searchParams.toString() ? `?${searchParams.toString()}` : ''}`;

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">Equipment Deals</h1>
          <p className="mt-1 text-slate-700" aria-live="polite">
            {pagination ? dealsFoundText(pagination.total_count) : '\u00a0'}
          </p>
        </div>
        <div className="space-y-1.5 sm:w-64">
          <Label htmlFor="sort-by">Sort by</Label>
          <select
            id="sort-by"
            className={inputClass}
            value={query.sortBy}
            onChange={(e) => go({ ...latest(), sortBy: e.target.value as SortBy, page: 1 })}
          >
            {SORT_OPTIONS.map((o) => (
              <option key={o.value} value={o.value} disabled={!query.nearZip && SORTS_NEEDING_ZIP.includes(o.value)}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
      </div>

      <div className="grid gap-6 lg:grid-cols-[17rem_1fr]">
        <aside aria-label="Filters">
          <Button
            variant="secondary"
            className="w-full lg:hidden"
            aria-expanded={filtersOpen}
            aria-controls="filter-panel"
            onClick={() => setFiltersOpen((o) => !o)}
          >
            <SlidersHorizontal className="h-4 w-4" aria-hidden />
            {filtersOpen ? 'Hide Filters' : 'Show Filters'}
          </Button>
          <div id="filter-panel" className={filtersOpen ? 'mt-4 lg:mt-0' : 'hidden lg:block'}>
          <FilterPanel
            filters={filters}
            categories={categories.data ?? []}
            onApply={(f) => go({ ...latest(), ...f, page: 1 })}
            onClear={() => go({ ...latest(), ...EMPTY_FILTERS, page: 1 })}
          />
          </div>
        </aside>

        <section aria-label="Results" aria-busy={auctions.isFetching}>
          {auctions.isPending ? (
            <Spinner label="Loading auctions..." showLabel className="py-24" />
          ) : auctions.isError ? (
            <Card className="flex flex-col items-center gap-3 p-10 text-center" role="alert">
              <AlertTriangle className="h-10 w-10 text-red-600" aria-hidden />
              <h2 className="text-lg font-semibold">Error loading auctions</h2>
              <p className="text-sm text-slate-700">{auctions.error.message || 'Failed to fetch auctions'}</p>
              <Button onClick={() => void auctions.refetch()}>Try Again</Button>
            </Card>
          ) : !data || data.items.length === 0 ? (
            <Card className="flex flex-col items-center gap-2 p-10 text-center">
              <PackageSearch className="h-10 w-10 text-slate-500" aria-hidden />
              <h2 className="text-lg font-semibold">No equipment found</h2>
              <p className="text-sm text-slate-700">Try adjusting your filters to see more results.</p>
              <FirstRunNote unfiltered={JSON.stringify(filters) === JSON.stringify(EMPTY_FILTERS)} />
            </Card>
          ) : (
            <>
              <ul className="grid grid-cols-1 gap-6 md:grid-cols-2 xl:grid-cols-3" aria-label="Deals">
                {data.items.map((item) => (
                  <li key={item.id} className="flex">
                    <div className="flex w-full flex-col [&>*]:flex-1">
                      <DealCard auction={item} from={currentUrl} nearZip={query.nearZip || undefined} />
                    </div>
                  </li>
                ))}
              </ul>
              {pagination && pagination.total_pages > 1 && (
                <nav className="mt-8 flex items-center justify-center gap-4" aria-label="Pagination">
                  <Button variant="secondary" disabled={!pagination.has_previous} onClick={() => go({ ...query, page: query.page - 1 })}>
                    Previous
                  </Button>
                  <span className="text-sm text-slate-700" aria-current="page">
                    Page {pagination.current_page} of {pagination.total_pages}
                  </span>
                  <Button variant="secondary" disabled={!pagination.has_next} onClick={() => go({ ...query, page: query.page + 1 })}>
                    Next
                  </Button>
                </nav>
              )}
            </>
          )}
        </section>
      </div>
    </div>
  );
}
