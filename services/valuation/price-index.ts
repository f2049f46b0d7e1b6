/**
 * Today's dollars: how the market's price level moved over time, so a sale from 2011 and one from
 * 2025 can be compared. The index is a piecewise-linear log price level through dated points; a
 * price sold at `t` is in the dollars of `asOf` after × exp(level(asOf) − level(t)). Before the
 * first point and after the last the level is flat: nothing is extrapolated.
 */
export type PriceIndex = {
  /** Dated log price levels, oldest first; the level of the latest point is 0 by convention. */
  points: { at: string; log: number }[];
  /** How it was estimated, for the docs and the model's metrics. */
  method?: string;
};

export function priceLevel(index: PriceIndex | undefined, at: Date): number {
  const points = index?.points ?? [];
  if (points.length === 0) return 0;
  const t = at.getTime();
  const times = points.map((p) => Date.parse(p.at));
  if (t <= times[0]!) return points[0]!.log;
  const last = points.length - 1;
  if (t >= times[last]!) return points[last]!.log;
  let i = 0;
  while (times[i + 1]! < t) i++;
  const share = (t - times[i]!) / (times[i + 1]! - times[i]!);
  return points[i]!.log + share * (points[i + 1]!.log - points[i]!.log);
}

/** A price sold at `soldAt` in the dollars of `asOf`. */
export function inDollarsOf(index: PriceIndex | undefined, price: number, soldAt: Date, asOf: Date): number {
  return price * Math.exp(priceLevel(index, asOf) - priceLevel(index, soldAt));
}
