/**
 * What is it worth (issue 38): a machine that is not listed anywhere (a private sale, a dealer's
 * quote, the buyer's own machine) as the listing the scorer would value — the same scoreListing
 * path, so a listed lot with the same facts gets the same fair value, range, comparables and bid
 * limits. It is valued as a fixed-price sale today, with no buyer's premium, on the market of the
 * sales that name no source (ESTIMATE_MARKET: what the model reads a sale without one as). Pure.
 */
import type { ComparableCandidate } from './comparables.js';
import { normaliseModel } from './features.js';
import type { ListingToScore } from './score-listing.js';

/** The market an estimate is valued on: the source the model reads a sale naming none as (fair-value-model.ts, saleSource). */
export const ESTIMATE_MARKET = 'fastiron';

export type MachineFacts = {
  categoryId: number;
  make: string | null;
  model: string | null;
  year: number | null;
  hours: number | null;
  /** From the ZIP code, when given. */
  state: string | null;
};

/** "2002 Caterpillar 416D": the words the model reads of a listing's title, from the facts alone. */
export function machineTitle(facts: Pick<MachineFacts, 'make' | 'model' | 'year'>): string {
  return [facts.year, facts.make, facts.model].filter((v) => v !== null && v !== '').join(' ');
}

export function machineListing(facts: MachineFacts): ListingToScore {
  return {
    id: 0,
    categoryId: facts.categoryId,
    make: facts.make,
    model: facts.model,
    modelFamily: null,
    year: facts.year,
    hours: facts.hours,
    condition: null,
    state: facts.state,
    priceUsd: null,
    buyersPremiumPct: null,
    status: 'open',
    auctionEndAt: null,
    bidCount: 0,
    title: machineTitle(facts),
    description: null,
    sourceSlug: ESTIMATE_MARKET,
  };
}

/** Whether sales of this model are held (a candidate of the same model, as comparables match it). */
export function knownModel(model: string | null, candidates: Pick<ComparableCandidate, 'model'>[]): boolean {
  const key = normaliseModel(model);
  return key !== null && candidates.some((c) => normaliseModel(c.model) === key);
}

/** Said beside an estimate when the model is not one we hold sales of (or none was given). */
export function unknownModelNote(facts: Pick<MachineFacts, 'make' | 'model'>, known: boolean): string | null {
  if (known) return null;
  const what = facts.model ? `We hold no sales of the ${[facts.make, facts.model].filter(Boolean).join(' ')}` : 'No model given';
  return `${what}: valued from its type${facts.make ? ', make' : ''}, year, hours and words, so the range is wider.`;
}
