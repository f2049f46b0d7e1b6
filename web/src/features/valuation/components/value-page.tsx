import { Scale } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { BidLimitsCard } from '../../../components/bid-limits-card.js';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Field, Label, inputClass } from '../../../components/ui/form.js';
import { formatMoney } from '../../../lib/format-price.js';
import { useEstimate, useEstimateCategories, type EstimateFacts } from '../api/estimate-api.js';

const EMPTY: EstimateFacts = { category: '', make: '', model: '', year: '', hours: '', zip: '' };
const usd = (n: number) => formatMoney(n, 'USD');

/**
 * What is it worth (issue 38): a machine that is not listed anywhere — a private sale, a dealer's
 * quote, the buyer's own — valued as a listing is, with the most to bid for each level.
 */
export function ValuePage() {
  const [facts, setFacts] = useState<EstimateFacts>(EMPTY);
  const categories = useEstimateCategories();
  const estimate = useEstimate();
  const set = (key: keyof EstimateFacts) => (e: { target: { value: string } }) => setFacts((f) => ({ ...f, [key]: e.target.value }));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    estimate.mutate(facts);
  };
  const result = estimate.data;
  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-8">
      <title>What is it worth — Deal Radar</title>
      <div>
        <h1 className="flex items-center gap-2 text-2xl font-bold text-slate-900">
          <Scale className="h-6 w-6" aria-hidden />
          What is it worth?
        </h1>
        <p className="text-sm text-slate-700">Value a machine that is not listed anywhere — a private sale, a dealer&apos;s quote, your own — from the sales we hold.</p>
      </div>
      <Card>
        <CardContent className="pt-6">
          <form className="grid gap-4 sm:grid-cols-3" onSubmit={onSubmit} aria-label="The machine to value">
            <div className="space-y-1.5">
              <Label htmlFor="value-category">Equipment type</Label>
              <select id="value-category" className={inputClass} value={facts.category} onChange={set('category')} required>
                <option value="">Choose a type</option>
                {(categories.data ?? []).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </div>
            <Field label="Make" value={facts.make} onChange={set('make')} placeholder="Caterpillar" optional />
            <Field label="Model" value={facts.model} onChange={set('model')} placeholder="416D" optional />
            <Field label="Year" value={facts.year} onChange={set('year')} inputMode="numeric" placeholder="2002" optional />
            <Field label="Hours" value={facts.hours} onChange={set('hours')} inputMode="numeric" placeholder="4000" optional />
            <Field label="ZIP code" value={facts.zip} onChange={set('zip')} inputMode="numeric" placeholder="75201" optional />
            <div className="sm:col-span-3">
              <Button type="submit" disabled={estimate.isPending}>
                {estimate.isPending ? 'Valuing…' : 'Value it'}
              </Button>
            </div>
          </form>
          {estimate.isError && (
            <p role="alert" className="mt-4 text-sm text-red-700">
              {estimate.error instanceof Error ? estimate.error.message : 'Could not value this machine.'}
            </p>
          )}
        </CardContent>
      </Card>
      {result && (
        <section className="grid gap-6 lg:grid-cols-2" aria-label="The estimate" data-testid="estimate">
          <Card>
            <CardHeader>
              <CardTitle>{result.title || result.category.name}</CardTitle>
            </CardHeader>
            <CardContent className="space-y-2 text-sm">
              {result.valuation ? (
                <>
                  <p className="text-3xl font-bold text-slate-900" data-testid="estimate-fair-value">
                    {usd(result.valuation.fair_value)}
                  </p>
                  {result.valuation.low !== null && result.valuation.high !== null && (
                    <p className="text-slate-700">
                      Most such machines sell for {usd(result.valuation.low)}–{usd(result.valuation.high)}
                      {result.valuation.as_of ? ` (market of ${result.valuation.as_of})` : ''}.
                    </p>
                  )}
                </>
              ) : (
                <p className="text-slate-800">{result.score_reason ?? 'We cannot value this machine yet.'}</p>
              )}
              {result.note && (
                <p className="text-slate-800" data-testid="estimate-note">
                  {result.note}
                </p>
              )}
              {result.valuation && result.valuation.comparables.length > 0 && (
                <>
                  <h2 className="pt-2 font-semibold text-slate-900">Sales it rests on</h2>
                  <ul className="space-y-1 text-slate-700">
                    {result.valuation.comparables.slice(0, 5).map((c, i) => (
                      <li key={i}>
                        {c.title}: {usd(c.price)} today ({usd(c.original_price)} on {c.sold_at.slice(0, 10)})
                      </li>
                    ))}
                  </ul>
                </>
              )}
              {result.estimates_left_today !== null && <p className="pt-2 text-xs text-slate-600">Free plan: {result.estimates_left_today} estimates left today. Pro: unlimited.</p>}
            </CardContent>
          </Card>
          {result.bid_limits && <BidLimitsCard limits={result.bid_limits} title="How high to go" />}
        </section>
      )}
    </div>
  );
}
