/**
 * The deal score's claims calibrated on the errors of the value a buyer is shown. The fair value
 * the scorer writes is the trees' value resting on its comparables (score-listing.ts,
 * restOnComparables), so its errors are not the trees' own: where close comparables carry it, it
 * lands nearer (or, for an odd lot, further from) what sold. Training hands this the holdout fit and
 * the sales split at the holdout (TrainOptions.finalValues); each held-out sale is listed closed at
 * its own price on the day it sold and valued through scoreListings with a comparable pool of the
 * earlier sales only — exactly as a later sale is valued by the final model in `npm run model:eval`.
 */
import type { TrainOptions } from '../valuation/fair-value-model.js';
import { scorerValuations } from './deal-flags.js';

export const scorerFinalValues: NonNullable<TrainOptions['finalValues']> = (holdoutModel, fit, holdout) =>
  scorerValuations(holdoutModel, fit, holdout).map((v) => v?.fairValue ?? null);

/** The options every production training uses (the scorer's thread, model:eval, model:experiment). */
export function withFinalValueCalibration(options: TrainOptions = {}): TrainOptions {
  return { finalValues: scorerFinalValues, ...options };
}
