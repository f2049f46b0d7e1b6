import { AlertTriangle, ArrowLeft, ExternalLink, SearchX } from 'lucide-react';
import { Link, useLocation, useSearchParams } from 'react-router-dom';
import { Badge } from '../../../components/ui/badge.js';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Spinner } from '../../../components/ui/spinner.js';
import { useIsPremium } from '../../../lib/entitlements.js';
import { formatDetailPrice } from '../../../lib/format-price.js';
import { formatEndDate } from '../../../lib/time-left.js';
import { useAuction } from '../api/auctions-api.js';
import { refName, type AuctionDetail } from '../../../lib/listing-types.js';
import { AuctionEndBadge } from '../../../components/auction-end-badge.js';
import { DealScoreBadge } from '../../../components/deal-score-badge.js';
import { ImageCarousel, usableImages } from './image-carousel.js';
import { PriceHistoryCard } from './price-history-card.js';
import { WatchButton } from '../../../components/watch-button.js';
import { ValuationCard } from './valuation-card.js';
import { DeliveredCard } from './delivered-card.js';
import { BidLimitsCard } from '../../../components/bid-limits-card.js';
import { useAuth } from '../../../lib/auth.js';
import { zipOrEmpty } from '../../../lib/dashboard-params.js';
import { distanceText, rememberedNearZip } from '../../../lib/near.js';

/** The subtitle's three values: year, hours and condition, whichever are known. */
export function dealSubtitle(deal: Pick<AuctionDetail, 'year' | 'hours' | 'condition'>): string {
  const parts: string[] = [];
  if (typeof deal.year === 'number') parts.push(String(deal.year));
  if (typeof deal.hours === 'number') parts.push(`${deal.hours.toLocaleString('en-US')} hours`);
  if (deal.condition) parts.push(deal.condition);
  return parts.join(' • ');
}

/** Back to the dashboard page the user came from (filters and page kept), else the dashboard. */
function useBackTarget(): string {
  const state = useLocation().state as { from?: unknown } | null;
  const from = state?.from;
  return typeof from === 'string' && from.startsWith('/dashboard') ? from : '/dashboard';
}

function BackLink({ to }: { to: string }) {
  return (
    <Button asChild variant="ghost" className="-ml-3">
      <Link to={to}>
        <ArrowLeft className="h-4 w-4" aria-hidden />
        Back to Dashboard
      </Link>
    </Button>
  );
}

export function DealDetail({ id }: { id: string }) {
  // The buyer's ZIP code: the link's (from a dashboard searched near one), else the last one used here.
  const [searchParams] = useSearchParams();
  const profileZip = zipOrEmpty(useAuth().user?.zip ?? null);
  const nearZip = zipOrEmpty(searchParams.get('near')) || rememberedNearZip() || profileZip;
  const deal = useAuction(id, nearZip || undefined);
  const back = useBackTarget();
  const isPremium = useIsPremium();

  if (deal.isPending) return <Spinner label="Loading auction details..." showLabel className="py-24" />;

  if (deal.isError) {
    return (
      <Card className="mx-auto flex max-w-lg flex-col items-center gap-3 p-10 text-center" role="alert">
        <AlertTriangle className="h-10 w-10 text-red-600" aria-hidden />
        <h1 className="text-xl font-semibold">Error Loading Deal</h1>
        <p className="text-sm text-slate-700">{deal.error.message || 'Failed to load auction details'}</p>
        <BackLink to={back} />
      </Card>
    );
  }

  const data = deal.data;
  if (!data) {
    return (
      <Card className="mx-auto flex max-w-lg flex-col items-center gap-3 p-10 text-center">
        <SearchX className="h-10 w-10 text-slate-500" aria-hidden />
        <h1 className="text-xl font-semibold">Deal Not Found</h1>
        <p className="text-sm text-slate-700">The equipment deal you&apos;re looking for doesn&apos;t exist.</p>
        <BackLink to={back} />
      </Card>
    );
  }

  const images = usableImages(data.images);
  const subtitle = dealSubtitle(data);
  const category = refName(data.category);
  const site = refName(data.auction_site);
  const endDate = formatEndDate(data.auction_end_date);

  return (
    <article className="space-y-6">
      <title>{`${data.make_model} — Deal Radar`}</title>
      <BackLink to={back} />
      <div className="grid gap-6 lg:grid-cols-2">
        <ImageCarousel images={images} alt={data.make_model} />
        <div className="space-y-5">
          <div>
            <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{data.make_model}</h1>
            {subtitle && <p className="mt-1 text-slate-700">{subtitle}</p>}
          </div>
          <div className="flex flex-wrap items-center gap-2">
            {data.deal_score === null && data.score_reason ? (
              // no score: the reason stands where the score would be, not a made-up middle score
              <Badge tone="neutral" className="px-3 py-1 text-sm whitespace-normal" data-testid="score-reason">
                No score: {data.score_reason}
              </Badge>
            ) : (
              <DealScoreBadge dealScore={data.deal_score} className="px-3 py-1 text-sm" />
            )}
            <AuctionEndBadge endDate={data.auction_end_date} />
          </div>
          <p className="text-3xl font-bold text-slate-900" data-testid="deal-price">{formatDetailPrice(data.price, data.currency)}</p>
          <Card>
            <CardHeader>
              <CardTitle>Equipment Details</CardTitle>
            </CardHeader>
            <CardContent>
              <dl className="grid gap-3 text-sm sm:grid-cols-2">
                <div>
                  <dt className="text-slate-700">Location</dt>
                  <dd className="font-medium">{data.location || 'Location not available'}</dd>
                  {nearZip && distanceText(data.distance_miles, data.location_precision) && (
                    <dd className="text-slate-700" data-testid="deal-distance">
                      {distanceText(data.distance_miles, data.location_precision)} from {nearZip}
                    </dd>
                  )}
                </div>
                <div>
                  <dt className="text-slate-700">Auction Ends</dt>
                  <dd className="font-medium">{endDate ?? 'No end date'}</dd>
                </div>
                {category && (
                  <div>
                    <dt className="text-slate-700">Category</dt>
                    <dd>
                      <Badge tone="outline">{category}</Badge>
                    </dd>
                  </div>
                )}
                {site && (
                  <div>
                    <dt className="text-slate-700">Auction Site</dt>
                    <dd>
                      <Badge tone="neutral">{site}</Badge>
                    </dd>
                  </div>
                )}
              </dl>
            </CardContent>
          </Card>
          {data.original_url && (
            <Button asChild size="lg" className="w-full sm:w-auto">
              <a href={data.original_url} target="_blank" rel="noopener noreferrer">
                View Original Auction
                <ExternalLink className="h-4 w-4" aria-hidden />
                <span className="sr-only">(opens in a new tab)</span>
              </a>
            </Button>
          )}
          <WatchButton listingId={data.id} title={data.make_model} size="lg" className="w-full sm:w-auto" />
        </div>
      </div>
      {data.description && (
        <Card>
          <CardHeader>
            <CardTitle>Description</CardTitle>
          </CardHeader>
          <CardContent>
            <p className="text-sm leading-relaxed whitespace-pre-line text-slate-800">{data.description}</p>
          </CardContent>
        </Card>
      )}
      {data.bid_limits && <BidLimitsCard limits={data.bid_limits} bid={data.price} />}
      {nearZip && <DeliveredCard deal={data} nearZip={nearZip} />}
      <div className="grid gap-6 lg:grid-cols-2">
        <ValuationCard valuation={data.valuation} price={data.price} auctionEndDate={data.auction_end_date} scoreReason={data.deal_score === null ? data.score_reason : null} />
        <PriceHistoryCard history={data.price_history ?? []} currency={data.currency} isPremium={isPremium} />
      </div>
    </article>
  );
}
