/**
 * The fair-value model: boosted trees on log(1 + price), plus a 10–90% range taken from the
 * model's own errors on the latest sales it did not train on (a time holdout), per how much
 * history the machine's model has. Training twice (holdout fit for the number of trees and the
 * error quantiles, then a refit on everything) keeps the range honest about drift over time.
 *
 * Split by responsibility: the stored form and shared encoding (fair-value-format.ts), prediction
 * (fair-value-predict.ts), training (fair-value-train.ts). This module is their public surface.
 */
export { MIN_TYPE_SALES, NEIGHBOUR_BLEND, saleSource, type RangeQuantiles, type SerializedFairValueModel, type Valuation } from './fair-value-format.js';
export { FairValueModel } from './fair-value-predict.js';
export {
  DEFAULT_TARGET_SMOOTHING, LEFT_OUT_FEATURES, MIN_MARKET_PRICE, ONLINE_HUBER_DELTA, ONLINE_RANGE_TAIL, SOURCE_WEIGHTS, trainFairValueModel, VALUATION_GBDT_PARAMS,
  type TrainOptions,
} from './fair-value-train.js';
