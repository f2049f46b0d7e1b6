import { Truck } from 'lucide-react';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { formatDetailPrice } from '../../../lib/format-price.js';
import type { AuctionDetail } from '../../../lib/listing-types.js';
import { distanceText } from '../../../lib/near.js';

const usd = (n: number) => formatDetailPrice(n, 'USD');

/**
 * The price delivered to the buyer's ZIP code: current bid (or asking price), the buyer's premium
 * when the source states it, the estimated haul (a range) and the total. An estimate, said so.
 */
export function DeliveredCard({ deal, nearZip }: { deal: AuctionDetail; nearZip: string }) {
  const d = deal.delivered;
  const distance = distanceText(deal.distance_miles, deal.location_precision);
  return (
    <Card data-testid="delivered">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Truck className="h-5 w-5" aria-hidden />
          Delivered to {nearZip}
        </CardTitle>
      </CardHeader>
      <CardContent>
        {!d ? (
          <p className="text-sm text-slate-700">This lot&apos;s source does not say where it is, so its distance and haul cannot be estimated.</p>
        ) : (
          <>
            <dl className="grid grid-cols-[1fr_auto] gap-x-4 gap-y-2 text-sm">
              <dt className="text-slate-700">Distance</dt>
              <dd className="text-right font-medium">{distance}</dd>
              <dt className="text-slate-700">{deal.price === d.price && d.price !== null ? 'Current bid / price' : 'Price'}</dt>
              <dd className="text-right font-medium">{d.price === null ? 'Price on request' : usd(d.price)}</dd>
              <dt className="text-slate-700">Buyer&apos;s premium</dt>
              <dd className="text-right font-medium">{d.premium === null ? 'Not stated' : usd(d.premium)}</dd>
              <dt className="text-slate-700">Haul (estimate)</dt>
              <dd className="text-right font-medium" data-testid="delivered-haul">
                {usd(d.haul_low)} – {usd(d.haul_high)}
              </dd>
              <dt className="border-t border-slate-200 pt-2 font-semibold text-slate-900">Total delivered</dt>
              <dd className="border-t border-slate-200 pt-2 text-right font-bold text-slate-900" data-testid="delivered-total">
                {d.total_low === null || d.total_high === null ? '—' : `${usd(d.total_low)} – ${usd(d.total_high)}`}
              </dd>
            </dl>
            <p className="mt-3 text-xs text-slate-600">{d.basis}</p>
          </>
        )}
      </CardContent>
    </Card>
  );
}
