/**
 * Deal-flag evaluation: what the deal levels claim, checked on sales the model never saw. Every
 * test sale is offered at k × the price it sold for and scored exactly as the scorer scores a
 * listing (scoreListings: valuation, range, comparables-based confidence, deal score); per k, the
 * share that got a score and, of those, the shares called good or better, excellent and poor. At
 * k = 1 a lot is priced at its market by definition, so a flag there is a false claim; at k = 0.5
 * it is a real bargain a buyer wants to hear of.
 */
import { ComparablePool, normKey } from './comparable-pool.js';
import { closestCandidates } from './score-batch.js';
import type { SoldResultRow } from '../shared/repositories/sold-results-repository.js';
import type { ComparableCandidate } from '../valuation/comparables.js';
import { dealLevel } from '../valuation/deal-score.js';
import type { FairValueModel } from '../valuation/fair-value-model.js';
import type { TrainingSale } from '../valuation/features.js';
import { scoreListings, type ListingScore, type ListingToScore } from '../valuation/score-listing.js';

export const DEAL_FLAG_MULTIPLES = [0.25, 0.5, 0.7, 0.85, 1, 1.5, 2] as const;

export type DealFlagShares = { scored: number; good_or_better: number; excellent: number; poor: number };
/** Keyed by k as a string ("1", "0.5", …). */
export type DealFlags = Record<string, DealFlagShares>;

const DAY_MS = 24 * 3600 * 1000;

/** A sold result as the scorer's comparable pool holds it (the training sales as the sales history). */
export function saleAsSoldResult(sale: TrainingSale, id: number): SoldResultRow {
  const source = typeof sale.attributes.source === 'string' ? sale.attributes.source : null;
  return {
    id,
    origin: source ? `import:${source}` : 'import:fastiron',
    externalId: String(id),
    title: sale.title ?? '',
    make: sale.make,
    model: sale.model,
    modelFamily: sale.modelFamily,
    year: sale.year,
    hours: sale.hours,
    condition: sale.condition,
    categoryId: sale.categoryId ?? 0,
    state: sale.state,
    saleChannel: sale.saleChannel,
    soldAt: sale.soldAt,
    price: sale.price,
    url: null,
    attributes: Object.fromEntries(Object.entries(sale.attributes).map(([k, v]) => [k, v ?? null])),
    sourceName: null,
  };
}

/**
 * The test sale as a listing offered at `k` × its price: closed (so no time factor), or open with
 * `hoursLeft` to run. The price is what the buyer pays: no premium on top, since the sold price is
 * the market's own.
 */
export function offerListing(sale: TrainingSale, id: number, k: number, now: Date, hoursLeft?: number): ListingToScore {
  const open = hoursLeft !== undefined;
  const odometer = typeof sale.attributes.odometer === 'number' ? sale.attributes.odometer : null;
  return {
    id,
    categoryId: sale.categoryId ?? 0,
    make: sale.make,
    model: sale.model,
    modelFamily: sale.modelFamily,
    year: sale.year,
    hours: sale.hours,
    condition: sale.condition,
    state: sale.state,
    priceUsd: sale.price * k,
    buyersPremiumPct: null,
    status: open ? 'open' : 'closed',
    auctionEndAt: open ? new Date(now.getTime() + hoursLeft * 3_600_000) : sale.soldAt,
    bidCount: 1,
    attributes: Object.fromEntries(Object.entries(sale.attributes).map(([key, v]) => [key, v ?? null])),
    title: sale.title ?? null,
    description: sale.description ?? null,
    odometer,
    sourceSlug: typeof sale.attributes.source === 'string' ? sale.attributes.source : null,
  };
}

/**
 * The training sales (indices) any test sale can draw as a comparable: the same type and family,
 * model or — for a sale naming neither — make, as ComparablePool matches them. The pool holds only
 * these, so each test sale's candidates are the same as from every sale, without a million rows
 * copied as sold results to value a few thousand.
 */
function poolRows(train: TrainingSale[], test: TrainingSale[]): number[] {
  const wanted = new Set<string>();
  for (const s of test) {
    const type = s.categoryId ?? 0;
    const family = normKey(s.modelFamily);
    const model = normKey(s.model);
    if (family) wanted.add(`${type}|F|${family}`);
    if (model) wanted.add(`${type}|M|${model}`);
    if (!family && !model && normKey(s.make)) wanted.add(`${type}|K|${normKey(s.make)}`);
  }
  const out: number[] = [];
  train.forEach((s, i) => {
    const type = s.categoryId ?? 0;
    const family = normKey(s.modelFamily);
    const model = normKey(s.model);
    const make = normKey(s.make);
    if ((family && wanted.has(`${type}|F|${family}`)) || (model && wanted.has(`${type}|M|${model}`)) || (make && wanted.has(`${type}|K|${make}`))) out.push(i);
  });
  return out;
}

export type OfferScores = { k: number; scores: ListingScore[] }[];

/**
 * Scores every test sale at every k through scoreListings, each sale on the day it sold (its
 * comparables' ages and the scorer's "now" are that day's), with comparables from the training
 * sales picked as the batch scorer picks them (its in-memory pool, then the closest).
 */
export function scoreOffers(
  model: FairValueModel,
  train: TrainingSale[],
  test: TrainingSale[],
  opts: { multiples?: readonly number[]; hoursLeft?: number } = {},
): OfferScores {
  // each sale made a sold result only as the pool indexes it: the pool keeps its candidate, not the row
  const pool = new ComparablePool(
    (function* () {
      for (const i of poolRows(train, test)) yield saleAsSoldResult(train[i]!, i + 1);
    })(),
  );
  const byDay = new Map<number, number[]>();
  test.forEach((s, i) => {
    const day = Math.floor(s.soldAt.getTime() / DAY_MS);
    let list = byDay.get(day);
    if (!list) byDay.set(day, (list = []));
    list.push(i);
  });
  return (opts.multiples ?? DEAL_FLAG_MULTIPLES).map((k) => {
    const scores: ListingScore[] = new Array(test.length);
    for (const [day, indices] of byDay) {
      // the end of the sale's day: a closed lot is scored after it closed, an open one before
      const now = opts.hoursLeft === undefined ? new Date((day + 1) * DAY_MS) : new Date(day * DAY_MS);
      const listings = indices.map((i) => offerListing(test[i]!, i + 1, k, now, opts.hoursLeft));
      const candidatesFor = (l: ListingToScore): ComparableCandidate[] => closestCandidates(l, pool.candidatesFor(l), now);
      scoreListings(listings, model, candidatesFor, now).forEach((score, j) => (scores[indices[j]!] = score));
    }
    return { k, scores };
  });
}

/** A valuation as the scorer writes it: the fair value and its range (rounded dollars). */
export type WrittenValuation = { fairValue: number; low: number; high: number };

/**
 * The valuations the scorer writes for the test sales, each listed closed at its own price on the
 * day it sold (the valuation does not depend on the price): what accuracy is measured on, so the
 * figures are those of the values a buyer sees. null where the scorer values nothing (a type with
 * too few sales).
 */
export function scorerValuations(model: FairValueModel, train: TrainingSale[], test: TrainingSale[]): (WrittenValuation | null)[] {
  return scoreOffers(model, train, test, { multiples: [1] })[0]!.scores.map((s) =>
    s.fairValue === null || s.valueLow === null || s.valueHigh === null ? null : { fairValue: s.fairValue, low: s.valueLow, high: s.valueHigh },
  );
}

/** The shares per k: scored of all, the levels of those scored. */
export function dealFlagShares(offers: OfferScores): DealFlags {
  const out: DealFlags = {};
  for (const { k, scores } of offers) {
    const levels = scores.map((s) => dealLevel(s.dealScore)).filter((l) => l !== null);
    const n = Math.max(1, levels.length);
    out[String(k)] = {
      scored: levels.length / Math.max(1, scores.length),
      good_or_better: levels.filter((l) => l === 'good' || l === 'excellent').length / n,
      excellent: levels.filter((l) => l === 'excellent').length / n,
      poor: levels.filter((l) => l === 'poor').length / n,
    };
  }
  return out;
}

export function dealFlags(model: FairValueModel, train: TrainingSale[], test: TrainingSale[], opts: { multiples?: readonly number[]; hoursLeft?: number } = {}): DealFlags {
  return dealFlagShares(scoreOffers(model, train, test, opts));
}
