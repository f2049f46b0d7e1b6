/**
 * What is it worth (issue 38): values a machine from its facts through the scorer's own path —
 * the newest model, comparables from PostgreSQL as a new listing's are found (candidatesFromDatabase),
 * then scoreListing — so the estimate and a listed lot with the same facts agree.
 */
import type { AppContext } from '../shared/context.js';
import { knownModel, machineListing, type MachineFacts } from '../valuation/machine-estimate.js';
import { scoreListing, type ListingScore } from '../valuation/score-listing.js';
import type { ModelStore } from './model-store.js';
import { candidatesFromDatabase } from './score-batch.js';

export type MachineEstimate = { modelVersion: number; score: ListingScore; knownModel: boolean };

/** null before the first model is trained. */
export async function estimateMachine(ctx: AppContext, models: ModelStore, facts: MachineFacts, now: Date): Promise<MachineEstimate | null> {
  const newest = await models.newest();
  if (!newest) return null;
  const listing = machineListing(facts);
  const candidates = (await candidatesFromDatabase(ctx, [listing], now))(listing);
  return { modelVersion: newest.version, score: scoreListing(listing, newest.model, candidates, now), knownModel: knownModel(facts.model, candidates) };
}
