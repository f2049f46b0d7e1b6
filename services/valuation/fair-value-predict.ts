/**
 * Prediction with a trained fair-value model: the fair value and its range for inputs, the
 * deal score's distribution per market, and moving a valuation to another date by the price index.
 */
import { normaliseModel, type ValuationInput } from './features.js';
import { GbdtModel } from './gbdt.js';
import { listingLogShift, neighbourLogPrice } from './lot-neighbours.js';
import { ageingFactor, ageRatio, comparableToday, inDollarsOf, priceLevel } from './price-index.js';
import { atLeastAsWide, knotsFromRange, lotScale, scaleFeatures, withLowerTailScaled } from './market-distribution.js';
import { averagePrediction, blendNeighbours, neighbourShare, encodeFull, MIN_TYPE_SALES, saleSource, supportBucket, supportKey, type RangeQuantiles, type SerializedFairValueModel, type Valuation } from './fair-value-format.js';

export class FairValueModel {
  private readonly members: GbdtModel[];

  constructor(readonly data: SerializedFairValueModel) {
    if (data.format !== 'fair-value-v1') throw new Error(`unknown fair-value model format ${String(data.format)}`);
    this.members = [data.gbdt, ...(data.extraGbdts ?? [])].map((g) => new GbdtModel(g));
  }

  /** Trees over all ensemble members. */
  get treeCount(): number {
    return this.members.reduce((n, m) => n + m.treeCount, 0);
  }

  static fromJSON(data: unknown): FairValueModel {
    return new FairValueModel(data as SerializedFairValueModel);
  }

  toJSON(): SerializedFairValueModel {
    return this.data;
  }

  /**
   * The date a valuation is made as of: the requested date, but no later than the latest sale the
   * model has seen. Beyond it the model cannot know the market, and an age measured to a later
   * date would compare the machine with older ones than its comparables.
   */
  valuationDate(requested: Date): Date {
    const latest = this.data.latestSaleAt ? new Date(this.data.latestSaleAt) : null;
    return latest && latest < requested ? latest : requested;
  }

  /**
   * The input with the attributes it lacks filled from its model's (else family's) typical sale.
   * Listings carry none of Fast Iron's option columns; left missing, the trees would treat a
   * listing like the odd sales that lacked them.
   */
  withTypicalAttributes(input: ValuationInput): ValuationInput {
    const table = this.data.typicalAttributes;
    if (!table) return input;
    const model = normaliseModel(input.model);
    const family = normaliseModel(input.modelFamily);
    const typical = (model && table[`${input.categoryId}|${model}`]) || (family && table[`${input.categoryId}|F:${family}`]) || undefined;
    if (!typical) return input;
    const attributes = { ...input.attributes };
    for (const [name, value] of Object.entries(typical)) {
      if (attributes[name] === undefined || attributes[name] === null || attributes[name] === '') attributes[name] = value;
    }
    return { ...input, attributes };
  }

  /**
   * The month (YYYY-MM) of the latest sales the market level rests on: after it the level is
   * carried flat ("market level of May 2023, the latest sales we hold"); null for models without it.
   */
  get marketAsOf(): string | null {
    return this.data.priceIndex?.marketAsOf ?? null;
  }

  /** A price sold at `soldAt` in the dollars of `asOf` (unchanged when the model has no price index). */
  inDollarsOf(price: number, soldAt: Date, asOf: Date): number {
    return inDollarsOf(this.data.priceIndex, price, soldAt, asOf);
  }

  /** A comparable sale as worth at `asOf`: today's dollars, and its machine aged to `asOf` (price-index.ts). */
  comparableToday(sale: { price: number; soldAt: Date; year: number | null; categoryId: number | null }, asOf: Date): number {
    return comparableToday(this.data.priceIndex, sale, asOf);
  }

  /** What a machine of `year` is worth against one of `otherYear` at `asOf`, by its type's depreciation (price-index.ts). */
  ageRatio(categoryId: number | null, year: number | null, otherYear: number | null, asOf: Date): number {
    return ageRatio(this.data.priceIndex, categoryId, year, otherYear, asOf);
  }

  /** Whether the model knows enough sales of this type to value it. */
  valuesType(categoryId: number | null): boolean {
    const key = String(categoryId);
    if (this.data.typeSales) return (this.data.typeSales[key] ?? 0) >= MIN_TYPE_SALES;
    return (this.data.vocabulary.category ?? []).includes(key);
  }

  /** Sales of this machine's model (same type) the model was trained on. */
  support(input: ValuationInput): number {
    return this.data.modelSupport[supportKey(input)] ?? 0;
  }

  valueAll(inputs: ValuationInput[]): Valuation[] {
    const m = encodeFull(inputs, this.data.vocabulary, this.data.targetEncoding, undefined, this.data.typicalHoursPerYear, this.data.titleWords);
    const log = averagePrediction(this.members, m);
    return inputs.map((input, i) => {
      const support = this.support(input);
      // a source's own range first: an online surplus auction's hammer prices scatter wider than a dealer auction's
      const own = this.data.ranges.bySource?.[saleSource(input)];
      const range = own ?? this.data.ranges.byBucket[supportBucket(support)] ?? this.data.ranges.overall;
      const scaleModel = own ? this.data.ranges.lotScale?.[saleSource(input)] : undefined;
      const scale = scaleModel ? lotScale(scaleModel, scaleFeatures(input, (support * (scaleModel.rows ?? this.data.trainedRows)) / this.data.trainedRows)) : 1;
      const l = blendNeighbours(log[i]! + (this.data.logOffset ?? 0), neighbourLogPrice(this.data.lotNeighbours, input), neighbourShare(input, this.data.neighbourBlend)) + listingLogShift(this.data.lotNeighbours, input);
      return {
        logPrice: l,
        fairValue: Math.expm1(l),
        low: Math.expm1(l + range.low),
        high: Math.expm1(l + range.high),
        support,
        knots: withLowerTailScaled(marketKnots(this.data.ranges, range, saleSource(input), input.categoryId, own !== undefined), scale),
        ownMarket: own !== undefined,
      };
    });
  }

  value(input: ValuationInput): Valuation {
    return this.valueAll([input])[0]!;
  }

  /**
   * Each input valued as a sale at `at[i]` — a date the model has evidence of such machines at —
   * then moved to its own date (`input.soldAt`) exactly as a comparable sale is
   * (`comparableToday`): its machine aged by the type's depreciation, in the dollars of that date.
   * The trees learned what a machine of a given year fetched at the ages it was sold at; they
   * cannot extrapolate to the age it has years later, the depreciation curve can.
   */
  valueAllAt(inputs: ValuationInput[], at: Date[]): Valuation[] {
    const valuations = this.valueAll(inputs.map((input, i) => ({ ...input, soldAt: at[i]! })));
    const latest = this.data.latestSaleAt ? new Date(this.data.latestSaleAt) : null;
    return valuations.map((v, i) => {
      const input = inputs[i]!;
      // predictions are in the latest sale's dollars (training prices were moved there)
      const dollars = latest ? Math.exp(priceLevel(this.data.priceIndex, input.soldAt) - priceLevel(this.data.priceIndex, latest)) : 1;
      const f = dollars * ageingFactor(this.data.priceIndex, { soldAt: at[i]!, year: input.year, categoryId: input.categoryId }, input.soldAt);
      if (f === 1) return v;
      const fairValue = v.fairValue * f;
      return { ...v, fairValue, low: v.low * f, high: v.high * f, logPrice: Math.log1p(fairValue) };
    });
  }
}

const scaled = (knots: number[], scale: number | undefined) => (scale === undefined ? knots : knots.map((k) => k * scale));

/**
 * The deal score's distribution for a valuation. On a source with its own held-out sales: its
 * type's own there, else the source's scaled by the type's spread. On a source without (too few
 * sales for a calibration window): the borrowed one, floored by that source's own lots' spread
 * around their type's median when it has sold lots (`sourceFloor`).
 */
function marketKnots(ranges: SerializedFairValueModel['ranges'], range: RangeQuantiles, source: string, categoryId: number | null, ownMarket: boolean): number[] {
  const key = `${source}|${categoryId}`;
  const base = range.knots ?? knotsFromRange(range.low, range.high);
  if (ownMarket) return ranges.typeKnots?.[key] ?? scaled(base, ranges.typeScale?.[key]);
  const floor = ranges.sourceFloor?.[key] ?? ranges.sourceFloor?.[source];
  return floor ? atLeastAsWide(base, floor) : base;
}
