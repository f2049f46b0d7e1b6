import { CalendarClock, ExternalLink, Gavel, ImageOff, MapPin, Navigation, Truck } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Badge } from '../../../components/ui/badge.js';
import { Button } from '../../../components/ui/button.js';
import { Card } from '../../../components/ui/card.js';
import { goodUpTo } from '../../../lib/bid-limits.js';
import { formatCardPrice } from '../../../lib/format-price.js';
import { formatEndDate } from '../../../lib/time-left.js';
import type { AuctionCard } from '../../../lib/listing-types.js';
import { AuctionEndBadge } from '../../../components/auction-end-badge.js';
import { DealScoreBadge } from '../../../components/deal-score-badge.js';
import { WatchButton } from '../../../components/watch-button.js';
import { deliveredRangeText, distanceText } from '../../../lib/near.js';

export function DealCard({ auction, from, nearZip }: { auction: AuctionCard; from?: string; nearZip?: string }) {
  const [imageFailed, setImageFailed] = useState(false);
  const distance = distanceText(auction.distance_miles, auction.location_precision);
  const delivered = nearZip ? deliveredRangeText(auction.delivered_total_low, auction.delivered_total_high) : null;
  const endDate = formatEndDate(auction.auction_end_date);
  const showImage = auction.first_image && !imageFailed;
  return (
    <Card className="flex flex-col overflow-hidden" data-testid="deal-card">
      <div className="relative aspect-[4/3] bg-slate-100">
        {showImage ? (
          <img src={auction.first_image!} alt={auction.make_model} loading="lazy" className="h-full w-full object-cover" onError={() => setImageFailed(true)} />
        ) : (
          <div className="flex h-full flex-col items-center justify-center gap-1 text-slate-600">
            <ImageOff className="h-8 w-8" aria-hidden />
            <span className="text-sm">No image available</span>
            {auction.image_count > 0 && (
              <span className="text-xs">
                {auction.image_count} {auction.image_count === 1 ? 'image' : 'images'} pending
              </span>
            )}
          </div>
        )}
      </div>
      <div className="flex flex-1 flex-col gap-3 p-4">
        <div className="flex flex-col items-start gap-2">
          <DealScoreBadge dealScore={auction.deal_score} />
          <h3 className="line-clamp-2 text-base font-semibold break-words text-slate-900">{auction.make_model}</h3>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <p className="text-xl font-bold text-slate-900">{formatCardPrice(auction.price, auction.currency)}</p>
          <AuctionEndBadge endDate={auction.auction_end_date} />
        </div>
        <ul className="space-y-1 text-sm text-slate-700">
          <li className="flex items-center gap-1.5">
            <MapPin className="h-4 w-4 shrink-0" aria-hidden />
            <span className="sr-only">Location: </span>
            {auction.location || 'Location not available'}
          </li>
          {goodUpTo(auction.good_bid_limit) && (
            <li className="flex items-center gap-1.5 font-medium text-slate-900" data-testid="card-good-limit">
              <Gavel className="h-4 w-4 shrink-0" aria-hidden />
              {goodUpTo(auction.good_bid_limit)}
            </li>
          )}
          {distance && (
            <li className="flex items-center gap-1.5" data-testid="card-distance">
              <Navigation className="h-4 w-4 shrink-0" aria-hidden />
              <span className="sr-only">Distance: </span>
              {distance}
              {nearZip ? ` from ${nearZip}` : ''}
            </li>
          )}
          {delivered && (
            <li className="flex items-center gap-1.5" data-testid="card-delivered">
              <Truck className="h-4 w-4 shrink-0" aria-hidden />
              <span className="sr-only">Delivered: </span>
              {delivered}
            </li>
          )}
          {endDate && (
            <li className="flex items-center gap-1.5">
              <CalendarClock className="h-4 w-4 shrink-0" aria-hidden />
              <span className="sr-only">Ends: </span>
              {endDate}
            </li>
          )}
        </ul>
        <div className="flex flex-wrap gap-1.5">
          {auction.category?.name && <Badge tone="outline">{auction.category.name}</Badge>}
          {auction.auction_site?.name && <Badge tone="neutral">{auction.auction_site.name}</Badge>}
        </div>
        <div className="mt-auto flex gap-2 pt-2">
          <Button asChild className="flex-1">
            <Link to={`/deal/${encodeURIComponent(auction.slug || String(auction.id))}${nearZip ? `?near=${nearZip}` : ''}`} state={from ? { from } : undefined} aria-label={`View details: ${auction.make_model}`}>
              View Details
            </Link>
          </Button>
          <WatchButton listingId={auction.id} title={auction.make_model} />
          {auction.original_url && (
            <Button asChild variant="secondary" size="icon">
              <a href={auction.original_url} target="_blank" rel="noopener noreferrer" title="Share: open the original listing" aria-label={`Share: open the original listing for ${auction.make_model} in a new tab`}>
                <ExternalLink className="h-4 w-4" aria-hidden />
              </a>
            </Button>
          )}
        </div>
      </div>
    </Card>
  );
}
