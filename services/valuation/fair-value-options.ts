/** What a fair-value training can be told: every choice has its default in fair-value-train.ts. */
import type { GbdtParams } from './gbdt.js';
import type { TrainingSale } from './features.js';
import type { FairValueModel } from './fair-value-predict.js';

export type TrainOptions = {
  params?: Partial<GbdtParams>;
  holdoutFraction?: number;
  coverage?: number;
  /** Weight of a sale halves every this many years before the latest sale (market drift). */
  halfLifeYears?: number;
  /** Use this many trees for the final fit instead of the holdout's best × 1.1. */
  fixedTrees?: number;
  /** Features left out (treated as always missing); default LEFT_OUT_FEATURES, `[]` keeps all. */
  dropFeatures?: string[];
  /** Which sales the first fit holds out: the latest (default) or a seeded random share. */
  holdout?: 'latest' | 'random';
  /** Stop after the holdout fit (no refit on everything): the fast loop for experiments. */
  holdoutOnly?: boolean;
  /** Boosted models averaged (bagging; default 3); member k trains with seed + k·1000. */
  members?: number;
  /** Threads the members grow in (default DEFAULT_TRAINING_THREADS); the model is the same with any. */
  threads?: number;
  /** Fill in missing hours from the model's typical hours per year of age (default) or leave them missing. */
  imputeHours?: boolean;
  /**
   * A spread per lot for sources with a large calibration window (ranges.lotScale). Off by default:
   * on the training period's folds it moved false Good/Excellent calls at market price within a few
   * lots either way (fewer on two Fast Iron folds, more Excellent on two others), and February 2012
   * called more lots good at their own price with it (docs/valuation.md, "Deal flags", round 5).
   */
  lotScale?: boolean;
  /** Share (0–1) of the time holdout's median log error added to every prediction (default 0). */
  driftShare?: number;
  /** Pseudo-sales at the type's mean that each target encoding is smoothed with (default DEFAULT_TARGET_SMOOTHING). */
  targetSmoothing?: number;
  /** Bring every price to the latest sale's dollars with a price index estimated from the sales (default true). */
  priceIndex?: boolean;
  /** Months per period of the market level (price-index.ts; default INDEX_PERIOD_MONTHS). */
  indexPeriodMonths?: number;
  /** Per source (saleSource), a weight multiplying each of its sales' weight (default SOURCE_WEIGHTS). */
  sourceWeights?: Record<string, number>;
  /**
   * Huber delta for the sales of sources other than Fast Iron (default ONLINE_HUBER_DELTA; the params'
   * huberDelta stays Fast Iron's). Fast Iron's dealer-auction prices sit within ±35% of a machine's
   * value but for mislabelled rows; an online lot's hammer price is routinely 3× off its type's, and
   * a capped pull needs hundreds of trees to move such lots off Fast Iron's price level.
   */
  onlineHuberDelta?: number;
  /** Each tail an online source's range leaves out of its held-out errors (default ONLINE_RANGE_TAIL). */
  onlineRangeTail?: number;
  /** Share of an online lot's log value from its nearest sold lots (default NEIGHBOUR_BLEND; 0 = trees alone). */
  neighbourBlend?: number;
  /** Training sales whose hammer price is below this are left out of training (default MIN_MARKET_PRICE). */
  minTrainingPrice?: number;
  /** Told what training is doing, for a progress line (not serialisable: the thread passes its own). */
  onProgress?: (message: string) => void;
  /**
   * The fair values the scorer writes for the held-out sales (null where none), valued by the
   * holdout fit with comparables drawn only from the earlier sales (`fit`; both as sold, in their
   * own dollars): when given, the deal score's distributions are calibrated on the errors of these
   * values — the value a buyer is shown, which rests on comparables — instead of the trees' own
   * (services/scorer/final-value-calibration.ts). Not serialisable: the training thread passes its own.
   */
  finalValues?: (holdoutModel: FairValueModel, fit: TrainingSale[], holdout: TrainingSale[]) => (number | null)[];
  /** Handed the held-out sales and their log residuals (true − predicted), for calibration studies. */
  onHoldout?: (rows: TrainingSale[], residuals: number[], parts: { trees: number[]; neighbours: number[] }) => void;
};
