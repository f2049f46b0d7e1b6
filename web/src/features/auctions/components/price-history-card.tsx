import { Lock, TrendingUp } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { BILLING_PATH } from '../../../config/constants.js';
import type { PricePoint } from '../../../lib/listing-types.js';
import { PriceHistoryChart } from './price-history-chart.js';

/** Price history charts are a premium feature: free users see the chart blurred with an upgrade link. */
export function PriceHistoryCard({ history, currency, isPremium }: { history: PricePoint[]; currency?: string | null; isPremium: boolean }) {
  const priced = history.filter((p) => typeof p.price === 'number');
  const locked = !isPremium && priced.length > 0;
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <TrendingUp className="h-5 w-5 text-brand-600" aria-hidden />
          Price History
        </CardTitle>
      </CardHeader>
      <CardContent>
        {locked ? (
          <div className="relative" data-testid="price-history-locked">
            <div className="pointer-events-none blur-[3px] select-none" aria-hidden inert>
              <PriceHistoryChart history={history} currency={currency} />
            </div>
            <div className="absolute inset-0 flex flex-col items-center justify-center gap-3 rounded-md bg-white/60 p-4 text-center">
              <Lock className="h-6 w-6 text-slate-800" aria-hidden />
              <p className="font-semibold text-slate-900">Price history charts are a Premium feature</p>
              <p className="text-sm text-slate-700">
                See how this listing&apos;s price has moved ({priced.length} price {priced.length === 1 ? 'observation' : 'observations'}).
              </p>
              <Button asChild size="sm">
                <Link to={BILLING_PATH}>Upgrade to Premium</Link>
              </Button>
            </div>
          </div>
        ) : (
          <PriceHistoryChart history={history} currency={currency} />
        )}
      </CardContent>
    </Card>
  );
}
