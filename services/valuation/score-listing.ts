/**
 * Values one listing and scores the deal: features from the listing, fair value and range from
 * the model, comparables from sales history, confidence from both, then the deal score. Pure:
 * the scorer worker does the reading and writing.
 */
import { comparablesLogValue, comparablesSupport, comparablesWeight, selectComparables, type ComparableCandidate, type RankedComparable } from './comparables.js';
import { bidLimits, type BidLimits } from './bid-limits.js';
import { dealScore, type DealInput } from './deal-score.js';
import type { FairValueModel, Valuation } from './fair-value-model.js';
import type { ValuationInput } from './features.js';
import { westMachine } from './westauction-sales.js';
import type { ListingToScore } from '../shared/repositories/listing-scores-repository.js';

export type { ListingToScore } from '../shared/repositories/listing-scores-repository.js';

/**
 * A comparable as the deal page shows it: `price` as worth today (today's dollars, the machine's
 * age today; rounded), `original_price` as it sold; its machine's year and hours, so the page can
 * say why a lot is valued outside its comparables (agreement.ts).
 */
export type ScoredComparable = { title: string; price: number; original_price: number; sold_at: string; source: string; url: string | null; year?: number | null; hours?: number | null };

export type NoScoreReason = 'unsupported-type' | 'no-model-or-family' | 'no-comparables' | 'no-price' | 'low-confidence';

/** The buyer-facing sentence the deal page shows for each reason a listing has no score. */
export const REASON_TEXT: Record<NoScoreReason, string> = {
  'unsupported-type': 'Not enough sales of this type yet',
  'no-model-or-family': 'The listing does not say enough about the machine to value it yet',
  'no-comparables': 'Not enough sales of this model yet',
  'no-price': 'No price to compare yet',
  'low-confidence': 'Too few similar sales to be sure of its value yet',
};

export type ListingScore = {
  dealScore: number | null;
  fairValue: number | null;
  valueLow: number | null;
  valueHigh: number | null;
  valuationConfidence: number | null;
  comparables: ScoredComparable[] | null;
  /** The date (YYYY-MM-DD) the valuation is for: its market and its dollars; null when there is none. */
  asOf: string | null;
  /** Why there is no score, for the buyer (the deal page shows it); null when scored. */
  reasonText: string | null;
  /** Why there is no score, for logs. */
  reason: 'scored' | NoScoreReason;
  /**
   * The deal score inverted (bid-limits.ts) for an open lot with a usable valuation, whatever its
   * price (the estimate route values machines with none); the scorer stores them only with a score.
   */
  bidLimits: BidLimits | null;
};

const NONE: Omit<ListingScore, 'reason'> = {
  dealScore: null,
  fairValue: null,
  valueLow: null,
  valueHigh: null,
  valuationConfidence: null,
  comparables: null,
  asOf: null,
  reasonText: null,
  bidLimits: null,
};

function none(reason: NoScoreReason): ListingScore {
  return { ...NONE, reason, reasonText: REASON_TEXT[reason] };
}

/** What a listing's text says that the model reads as attributes: its source, the kind of machine, unused, odometer. */
function listingAttributes(listing: ListingToScore): Record<string, string | number | null> {
  const attributes: Record<string, string | number | null> = { ...listing.attributes };
  if (listing.sourceSlug && attributes.source === undefined) attributes.source = listing.sourceSlug;
  const machine = listing.title ? westMachine(listing.title) : null;
  if (machine && attributes.machine_kind === undefined) attributes.machine_kind = machine.kind;
  if (listing.title && /\bunused\b|\bnew\b/i.test(listing.title) && attributes.unused === undefined) attributes.unused = 'yes';
  if (listing.odometer !== null && listing.odometer !== undefined && attributes.odometer === undefined) attributes.odometer = listing.odometer;
  return attributes;
}

export function listingValuationInput(listing: ListingToScore, now: Date): ValuationInput {
  return {
    categoryId: listing.categoryId,
    make: listing.make,
    model: listing.model,
    modelFamily: listing.modelFamily,
    year: listing.year,
    hours: listing.hours,
    condition: listing.condition,
    state: listing.state,
    saleChannel: 'auction',
    soldAt: listing.auctionEndAt && listing.auctionEndAt > now ? listing.auctionEndAt : now,
    attributes: listingAttributes(listing),
    title: listing.title ?? null,
    description: listing.description ?? null,
  };
}

/** A wide range means an unsure value: full weight up to a 10–90% range of ×1.8, less beyond. */
export function rangeFactor(low: number, high: number): number {
  const width = Math.log(high / low);
  return Math.min(1, Math.max(0.2, 1.6 - width));
}

const round2 = (v: number) => Math.round(v * 100) / 100;
const roundMoney = (v: number) => Math.round(v);

type Prepared = { kind: 'none'; result: ListingScore } | { kind: 'value'; ranked: RankedComparable[]; input: ValuationInput; at: Date };

/**
 * The date the model values a listing at: its latest comparable's sale (capped at the valuation
 * date), or the valuation date without comparables. There the trees have seen machines like it at
 * the ages they then had; the valuation is then moved to the valuation date as its comparables are
 * (FairValueModel.valueAllAt). Valued at today's date directly, a 1998 machine whose comparables
 * sold in 2004–2012 would be priced by trees that never saw it older than 14.
 */
export function evidenceDate(ranked: { soldAt: Date }[], valuationDate: Date): Date {
  if (ranked.length === 0) return valuationDate;
  const latest = Math.max(...ranked.map((c) => c.soldAt.getTime()));
  return new Date(Math.min(latest, valuationDate.getTime()));
}

/** The checks and comparables before the model is asked: the part one-at-a-time and batch share. */
function prepare(listing: ListingToScore, model: FairValueModel, candidates: ComparableCandidate[], now: Date): Prepared {
  if (!model.valuesType(listing.categoryId)) return { kind: 'none', result: none('unsupported-type') };
  // A listing without a model is valued from its make, type and words; one without comparables too:
  // its deal score then claims less (deal-score.ts widens the distribution without their support),
  // rather than nothing — on later West lots abstaining left 98% of lots unscored.
  const ranked = listing.model || listing.modelFamily || listing.make ? selectComparables(listing, candidates, now, 5) : [];
  const input = model.withTypicalAttributes(listingValuationInput(listing, now));
  const asOf = model.valuationDate(input.soldAt);
  return { kind: 'value', ranked, input: { ...input, soldAt: asOf }, at: evidenceDate(ranked, asOf) };
}

/**
 * How much one comparable (of the same model, year and hours; less the less alike) counts against
 * the model's own estimate when the two are averaged. For a site whose own later sales the model
 * has been measured on (Fast Iron, West Auctions), a quarter, chosen on the training period's folds
 * (`npm run model:comparable-weight`, 2026-11-27): on the January 2012 Fast Iron fold RMSLE 0.3091
 * with the trees alone, 0.3017 / 0.3012 / 0.3013 / 0.3021 at ⅛ / ⅙ / ¼ / ⅓; on the West
 * Apr–Jun 2025 fold 1.2961 alone, 1.2882 / 1.2868 / 1.2853 / 1.2846; ¼ is the least worse than each
 * fold's best summed over both (0.03% + 0.05%). Both folds are flat from ⅙ to ⅓, so this is a
 * choice of a flat optimum, not a gain (docs/valuation.md, experiment history). For a site it has
 * not, ten times: its errors there are unknown and its trees learned the site from few lots, so the
 * comparables carry the value.
 */
export const COMPARABLE_WEIGHT = { measuredSite: 1 / 4, otherSite: 10 } as const;

/**
 * The share of the fair value its comparables carry: their likeness-weighted count against the
 * model's one estimate, each comparable counting `weight` (the inverse-variance average of the two).
 */
export function comparablesShare(ranked: { machineDistance: number }[], weight: number): number {
  const count = comparablesWeight(ranked) * weight;
  return count / (count + 1);
}

/**
 * The valuation resting on its comparables: its log value moved `share` of the way to what the
 * comparables say (`comparablesLog`), its range moved with it. The comparables shown are then the
 * evidence the fair value rests on, and it lies among them unless the lot is unlike them.
 */
export function restOnComparables(valuation: Valuation, comparablesLog: number | null, share: number): Valuation {
  if (comparablesLog === null || !(share > 0)) return valuation;
  const logPrice = valuation.logPrice + Math.min(1, share) * (comparablesLog - valuation.logPrice);
  const fairValue = Math.expm1(logPrice);
  const f = fairValue / valuation.fairValue;
  return { ...valuation, logPrice, fairValue, low: valuation.low * f, high: valuation.high * f };
}

/** The comparables' prices as worth at `asOf`, and what they say the listing is worth (log), null without any. */
function comparablesEvidence(listing: ListingToScore, model: FairValueModel, ranked: RankedComparable[], asOf: Date): { today: number[]; comparablesLog: number | null } {
  const today = ranked.map((c) => model.comparableToday({ price: c.price, soldAt: c.soldAt, year: c.year, categoryId: listing.categoryId }, asOf));
  const comparablesLog = comparablesLogValue(
    ranked.map((c, i) => ({ today: today[i]!, machineDistance: c.machineDistance, ageRatio: model.ageRatio(listing.categoryId, listing.year, c.year, asOf) })),
  );
  return { today, comparablesLog };
}

/** The score from the model's valuation (the trees', moved to the valuation date): the part after the model. */
function finish(listing: ListingToScore, model: FairValueModel, ranked: RankedComparable[], input: ValuationInput, treeValuation: Valuation, now: Date): ListingScore {
  const support = comparablesSupport(ranked);
  const asOf = input.soldAt;
  const { today, comparablesLog } = comparablesEvidence(listing, model, ranked, asOf);
  const share = comparablesShare(ranked, treeValuation.ownMarket ? COMPARABLE_WEIGHT.measuredSite : COMPARABLE_WEIGHT.otherSite);
  const valuation = restOnComparables(treeValuation, comparablesLog, share);
  const confidence = round2(support * rangeFactor(valuation.low, valuation.high));
  const base: Omit<ListingScore, 'reason' | 'dealScore' | 'reasonText' | 'bidLimits'> = {
    fairValue: roundMoney(valuation.fairValue),
    valueLow: roundMoney(valuation.low),
    valueHigh: roundMoney(valuation.high),
    valuationConfidence: confidence,
    comparables: ranked.map((c, i) => ({
      title: c.title,
      price: roundMoney(today[i]!),
      original_price: c.price,
      sold_at: c.soldAt.toISOString(),
      source: c.source,
      url: c.url,
      year: c.year,
      hours: c.hours,
    })),
    asOf: asOf.toISOString().slice(0, 10),
  };
  const dealInput: Omit<DealInput, 'price'> = {
    buyersPremiumPct: listing.buyersPremiumPct,
    fairValue: valuation.fairValue,
    low: valuation.low,
    high: valuation.high,
    knots: valuation.knots,
    // a source with its own measured distribution already counts how little support its lots have
    support: valuation.ownMarket ? undefined : support,
    confidence,
    status: listing.status,
    auctionEndAt: listing.auctionEndAt,
    isAuction: listing.auctionEndAt !== null || listing.bidCount > 0,
    now,
  };
  const deal = dealScore({ ...dealInput, price: listing.priceUsd });
  const limits = bidLimits(dealInput);
  if (!deal) {
    const reason: NoScoreReason = listing.priceUsd === null ? 'no-price' : 'low-confidence';
    return { ...base, dealScore: null, reason, reasonText: REASON_TEXT[reason], bidLimits: limits };
  }
  return { ...base, dealScore: deal.score, reason: 'scored', reasonText: null, bidLimits: limits };
}

export function scoreListing(listing: ListingToScore, model: FairValueModel, candidates: ComparableCandidate[], now: Date): ListingScore {
  const prepared = prepare(listing, model, candidates, now);
  if (prepared.kind === 'none') return prepared.result;
  return finish(listing, model, prepared.ranked, prepared.input, model.valueAllAt([prepared.input], [prepared.at])[0]!, now);
}

/**
 * Scores many listings with one block prediction of the model (its fast path): the same result,
 * listing for listing, as `scoreListing` one at a time.
 */
export function scoreListings(
  listings: ListingToScore[],
  model: FairValueModel,
  candidatesFor: (listing: ListingToScore) => ComparableCandidate[],
  now: Date,
): ListingScore[] {
  const prepared = listings.map((l) => prepare(l, model, candidatesFor(l), now));
  const toValue = prepared.flatMap((p) => (p.kind === 'value' ? [p] : []));
  const valuations = toValue.length ? model.valueAllAt(toValue.map((p) => p.input), toValue.map((p) => p.at)) : [];
  let next = 0;
  return prepared.map((p, i) => (p.kind === 'none' ? p.result : finish(listings[i]!, model, p.ranked, p.input, valuations[next++]!, now)));
}

/**
 * The two pieces a listing's fair value is averaged from, before the average: the trees' valuation
 * (moved to the valuation date) and what its comparables say, with their likeness-weighted count.
 * null where the scorer values nothing. For choosing `COMPARABLE_WEIGHT` on training-period folds
 * (scripts/comparable-weight.ts) without re-running the scorer per weight.
 */
export type ValuationEvidence = { tree: Valuation; comparablesLog: number | null; comparablesCount: number; ranked: RankedComparable[] };

export function valuationEvidence(
  listings: ListingToScore[],
  model: FairValueModel,
  candidatesFor: (listing: ListingToScore) => ComparableCandidate[],
  now: Date,
): (ValuationEvidence | null)[] {
  const prepared = listings.map((l) => prepare(l, model, candidatesFor(l), now));
  const toValue = prepared.flatMap((p) => (p.kind === 'value' ? [p] : []));
  const valuations = toValue.length ? model.valueAllAt(toValue.map((p) => p.input), toValue.map((p) => p.at)) : [];
  let next = 0;
  return prepared.map((p, i) => {
    if (p.kind === 'none') return null;
    const tree = valuations[next++]!;
    const { comparablesLog } = comparablesEvidence(listings[i]!, model, p.ranked, p.input.soldAt);
    return { tree, comparablesLog, comparablesCount: comparablesWeight(p.ranked), ranked: p.ranked };
  });
}
