import { Gavel } from 'lucide-react';
import { bandOf, priceBands, type BidLimits } from '../lib/bid-limits.js';
import { cn } from '../lib/cn.js';
import { formatMoney } from '../lib/format-price.js';
import { Card, CardContent, CardHeader, CardTitle } from './ui/card.js';

const TONE: Record<string, string> = {
  poor: 'bg-red-100 text-red-900',
  fair: 'bg-amber-100 text-amber-900',
  good: 'bg-green-100 text-green-900',
  excellent: 'bg-green-200 text-green-900',
};

/**
 * The deal score inverted (issue 38): a price bar — Poor | Fair | Good | Excellent, each band in
 * dollars, the current bid marked — and the line "Bid up to $6,200 for a Good deal (19 in 20
 * similar machines sold for more); $3,100 for Excellent". Shared by the deal page and What is it worth.
 */
export function BidLimitsCard({ limits, bid, title = 'How high to bid' }: { limits: BidLimits; bid?: number | null; title?: string }) {
  const bands = priceBands(limits);
  const current = bandOf(limits, bid);
  return (
    <Card data-testid="bid-limits">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Gavel className="h-5 w-5" aria-hidden />
          {title}
        </CardTitle>
      </CardHeader>
      <CardContent className="space-y-3">
        <p className="font-medium text-slate-900" data-testid="bid-limits-line">
          {limits.line}
        </p>
        {limits.note && (
          <p className="text-sm text-slate-700" data-testid="bid-limits-note">
            {limits.note}
          </p>
        )}
        <ol className="grid grid-cols-4 gap-1 text-center text-xs" aria-label="Price bar: the deal level at each bid" data-testid="price-bar">
          {bands.map((b) => (
            <li key={b.level} className={cn('rounded-md px-1 py-2', TONE[b.level], !b.reachable && 'opacity-60')} data-testid={`band-${b.level}`}>
              <span className="block font-semibold">{b.label}</span>
              <span className="block break-words">{b.range}</span>
              {current === b.level && (
                <span className="mt-1 block font-bold" data-testid="bar-current">
                  ▲ now {formatMoney(bid!, 'USD')}
                </span>
              )}
            </li>
          ))}
        </ol>
        <p className="text-xs text-slate-600">
          At its market: {formatMoney(limits.market, 'USD')}. {limits.basis}
        </p>
        {limits.delivered && limits.delivered.good && (
          <p className="text-xs text-slate-600" data-testid="bid-limits-delivered">
            Delivered at the Good limit: {formatMoney(limits.delivered.good.low, 'USD')}–{formatMoney(limits.delivered.good.high, 'USD')}
          </p>
        )}
      </CardContent>
    </Card>
  );
}
