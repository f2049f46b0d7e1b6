import { BookOpen, ExternalLink, Scale } from 'lucide-react';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { formatMoney } from '../../../lib/format-price.js';
import { timeLeft } from '../../../lib/time-left.js';
import type { Comparable, Valuation } from '../../../lib/listing-types.js';

const soldFmt = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' });
// A calendar date (YYYY-MM-DD) and a sale's month are shown as in UTC, so no time zone shifts them a day.
const asOfFmt = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });
const monthFmt = new Intl.DateTimeFormat('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });

/** The buyer page on how scores are made, served read-only by the API from docs/. */
export const DEAL_SCORE_HELP_URL = '/docs/deal-score.md';

/** 'Values as of Nov 25, 2026' from the valuation's date; null when it has none. */
export function valuesAsOf(asOf: string | null | undefined): string | null {
  if (typeof asOf !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(asOf)) return null;
  const d = new Date(`${asOf.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? null : `Values as of ${asOfFmt.format(d)}`;
}

const marketMonthFmt = new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/** 'Market level of May 2023, the latest sales we hold.' from the valuation's market month; null without one. */
export function marketLevelLine(marketAsOf: string | null | undefined): string | null {
  if (typeof marketAsOf !== 'string' || !/^\d{4}-\d{2}$/.test(marketAsOf)) return null;
  const d = new Date(`${marketAsOf}-01T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? null : `Market level of ${marketMonthFmt.format(d)}, the latest sales we hold.`;
}

/**
 * A comparable's price as the buyer reads it: '$41,000 in Feb 2012 → $58,300 today' when the sale
 * was adjusted to today's market, else the one price.
 */
export function comparablePrice(c: Pick<Comparable, 'price' | 'original_price' | 'adjusted_price' | 'sold_at'>): string {
  const adjusted = typeof c.adjusted_price === 'number' && Number.isFinite(c.adjusted_price) ? c.adjusted_price : c.price;
  const original = typeof c.original_price === 'number' && Number.isFinite(c.original_price) ? c.original_price : null;
  const sold = c.sold_at ? new Date(c.sold_at) : null;
  if (original === null || Math.round(original) === Math.round(adjusted) || !sold || Number.isNaN(sold.getTime())) return formatMoney(adjusted);
  return `${formatMoney(original)} in ${monthFmt.format(sold)} → ${formatMoney(adjusted)} today`;
}

/** Confidence arrives as 0–1 (or 0–100): shown as a whole percentage. */
export function confidencePercent(confidence: number | null | undefined): number | null {
  if (typeof confidence !== 'number' || !Number.isFinite(confidence)) return null;
  const pct = confidence <= 1 ? confidence * 100 : confidence;
  return Math.round(Math.min(100, Math.max(0, pct)));
}

/** How the price compares with the fair value, e.g. '18% below fair value'. */
export function priceVersusFairValue(price: number | null | undefined, fairValue: number): string | null {
  if (typeof price !== 'number' || !Number.isFinite(price) || fairValue <= 0) return null;
  const diff = Math.round(((fairValue - price) / fairValue) * 100);
  if (diff === 0) return 'At fair value';
  return diff > 0 ? `${diff}% below fair value` : `${-diff}% above fair value`;
}

/** Below this much time left a low bid already counts nearly in full in the score. */
const EARLY_BID_HOURS = 6;

/**
 * Why an underpriced open auction may score lower than its discount suggests: the score counts a
 * low bid for less while much time is left (bids rise before the close) and is updated as the end
 * nears. null when that does not apply (no end date, ended, near the end, or not under value).
 */
export function earlyBidNote(price: number | null | undefined, fairValue: number, endDate: string | null | undefined, now: Date = new Date()): string | null {
  if (typeof price !== 'number' || !Number.isFinite(price) || !(price < fairValue)) return null;
  const left = timeLeft(endDate, now);
  if (left.state !== 'open' || new Date(endDate!).getTime() - now.getTime() < EARLY_BID_HOURS * 3_600_000) return null;
  return `Ends in ${left.text}: bids usually rise before the close, so a low bid this early counts for less in the score. The score is updated as the end nears.`;
}

function soldDate(value: string | null): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : soldFmt.format(d);
}

export function ValuationCard({
  valuation,
  price,
  auctionEndDate,
  scoreReason,
}: {
  valuation: Valuation | null | undefined;
  price: number | null;
  auctionEndDate?: string | null;
  /** Why there is no score (from the API), shown instead of a generic sentence. */
  scoreReason?: string | null;
}) {
  const note = valuation ? earlyBidNote(price, valuation.fair_value, auctionEndDate) : null;
  const asOf = valuation ? valuesAsOf(valuation.as_of) : null;
  const marketLevel = valuation ? marketLevelLine(valuation.market_as_of) : null;
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Scale className="h-5 w-5 text-brand-600" aria-hidden />
          Why This Score
        </CardTitle>
      </CardHeader>
      <CardContent className="space-y-5">
        {!valuation ? (
          <p className="text-sm text-slate-700">
            {scoreReason
              ? `No deal score: ${scoreReason}.`
              : 'This listing has not been valued yet: there are not enough comparable sales to estimate its fair value.'}
          </p>
        ) : (
          <div className="space-y-5">
            {valuation.claim && (
              <p className="text-base font-semibold text-slate-900" data-testid="deal-claim">
                {valuation.claim}
              </p>
            )}
            <dl className="grid gap-4 sm:grid-cols-3">
              <div>
                <dt className="text-sm text-slate-700">Fair Value</dt>
                <dd className="text-xl font-bold">{formatMoney(valuation.fair_value)}</dd>
                {priceVersusFairValue(price, valuation.fair_value) && (
                  <dd className="text-sm font-medium text-green-800">{priceVersusFairValue(price, valuation.fair_value)}</dd>
                )}
              </div>
              {valuation.low !== null && valuation.high !== null && (
                <div>
                  <dt className="text-sm text-slate-700">Value Range</dt>
                  <dd className="text-base font-semibold">
                    {formatMoney(valuation.low)} – {formatMoney(valuation.high)}
                  </dd>
                </div>
              )}
              {confidencePercent(valuation.confidence) !== null && (
                <div>
                  <dt className="text-sm text-slate-700">Confidence</dt>
                  <dd className="text-base font-semibold">{confidencePercent(valuation.confidence)}%</dd>
                </div>
              )}
            </dl>
            {asOf && (
              <p className="text-sm text-slate-700" data-testid="values-as-of">
                {asOf}: comparable sales are shown at what they sold for and at what that machine is worth today (today&apos;s market, its age today).
              </p>
            )}
            {marketLevel && (
              <p className="text-sm text-slate-700" data-testid="market-level">
                {marketLevel}
              </p>
            )}
            {scoreReason && <p className="text-sm font-medium text-slate-800">No deal score: {scoreReason}.</p>}
            {note && <p className="text-sm text-slate-700">{note}</p>}
            <div>
              <h3 className="mb-2 text-sm font-semibold text-slate-900">Comparable Sales</h3>
              {valuation.note && (
                <p className="mb-2 text-sm text-slate-700" data-testid="valuation-note">
                  {valuation.note}
                </p>
              )}
              {valuation.comparables.length === 0 ? (
                <p className="text-sm text-slate-700">No comparable sales to show.</p>
              ) : (
                <ul className="divide-y divide-slate-200 rounded-md border border-slate-200">
                  {valuation.comparables.map((c, i) => (
                    <li key={`${c.title}-${i}`} className="flex flex-wrap items-center justify-between gap-2 p-3 text-sm">
                      <div className="min-w-0">
                        {c.url ? (
                          <a href={c.url} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 font-medium text-brand-600 hover:underline">
                            {c.title}
                            <ExternalLink className="h-3 w-3" aria-hidden />
                            <span className="sr-only">(opens in a new tab)</span>
                          </a>
                        ) : (
                          <span className="font-medium">{c.title}</span>
                        )}
                        <p className="text-slate-700">{[soldDate(c.sold_at) && `Sold ${soldDate(c.sold_at)}`, c.source].filter(Boolean).join(' · ')}</p>
                      </div>
                      <span className="font-semibold" data-testid="comparable-price">{comparablePrice(c)}</span>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        )}
        <a href={DEAL_SCORE_HELP_URL} target="_blank" rel="noopener" className="inline-flex items-center gap-1 text-sm font-medium text-brand-600 hover:underline">
          <BookOpen className="h-4 w-4" aria-hidden />
          How the deal score works
          <span className="sr-only">(opens in a new tab)</span>
        </a>
      </CardContent>
    </Card>
  );
}
