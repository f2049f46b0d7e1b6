/**
 * An online lot's nearest sold lots by what the seller wrote: title and the start of the
 * description, compared as idf-weighted word sets (cosine), within the same type and the same
 * source (site). Their
 * similarity-weighted mean log price, pulled towards the type's median online price by one
 * pseudo-lot, is the "what lots like this one sold for" estimate the fair value blends with the
 * trees' for online lots (`NEIGHBOUR_BLEND` in fair-value-model.ts).
 *
 * Why: an online surplus lot says what it is in its words ("3-Stall Stainless Steel Restroom
 * Trailer", "Miller Trailblazer 302 Air Pak", "8ft x 32ft Mobile Office"), and the trees, trained
 * mostly on Fast Iron's dealer sales, read those words only through averages. On the two West
 * folds of the training period the blend beat the trees alone (docs/valuation.md).
 *
 * Same source only: a site's lots are compared with what sold on that site. West Auctions' surplus
 * minis and pipe trailers say nothing of a dealer auction's full-size excavator that shares its
 * words ("Komatsu", "excavator"); a lot from a site with no sold lots yet is valued by the trees.
 */
import type { TrainingSale, ValuationInput } from './features.js';
import { cosineIndex, nearestByCosine, type CosineIndex } from './cosine-nearest.js';

export type LotNeighbours = {
  words: string[];
  idf: number[];
  /** Per lot: its market (`source|type`), indexes into `words`, log price (today's dollars). */
  lots: { type: string; words: number[]; logPrice: number }[];
  /** Median log price of each market's lots (`source|type`): what few or far neighbours are pulled to. */
  prior: Record<string, number>;
  /**
   * Per source: the log shift of a lot whose listing says it is impaired (`impairedLot`), learned
   * from that source's sold lots (absent in tables fitted before 2026-11-27: no shift).
   */
  impairedShift?: Record<string, number>;
  /**
   * Per source: the log shift of a lot whose sale waits on the seller's confirmation (`reserveLot`),
   * learned from that source's sold lots (absent in tables fitted before issue 28 round 5: no shift).
   */
  reserveShift?: Record<string, number>;
};

/**
 * How many nearest lots are averaged, and how many pseudo-lots at the type's median pull them:
 * chosen on the two West folds of the training period over k 3/5/8 × pull 0.5/1/2 (mean fold
 * RMSLE of the blend 1.165 at 3 and 0.5; 1.193 at 5 and 1).
 */
const NEAREST = 3;
const PRIOR_WEIGHT = 0.5;
/** Description characters read: the first lines say what the lot is; the rest is removal terms. */
const DESCRIPTION_CHARS = 600;
const MAX_WORDS = 80;

/** A lot's market: its source and type (a lot is compared only with lots of the same market). */
const marketOf = (r: ValuationInput) => `${String(r.attributes.source)}|${r.categoryId}`;

/** Fast Iron's titles are made from its model columns; online lots' are the seller's words. */
export function isOnlineLot(r: ValuationInput): boolean {
  return typeof r.attributes.source === 'string' && r.attributes.source !== '' && r.attributes.source !== 'fastiron';
}

/** Hour-meter and odometer readings: the trees weigh those (monotone), the words must not. */
const READINGS = /\b(?:hour meter reads|hours? meter|engine hours|hours?|hrs|odometer(?: reads| reading)?|miles|mileage)\s*:?\s*[\d,.]+|[\d,.]+\s*(?:hours?|hrs|miles)\b/g;

/**
 * The distinct words of a lot's title and the start of its description (lower case, letters and
 * digits). Years and meter readings are left out: the trees carry them under monotone constraints,
 * so words cannot make a newer or less-used machine worth less.
 */
export function lotWords(r: Pick<ValuationInput, 'title' | 'description'>): string[] {
  const text = `${r.title ?? ''} ${(r.description ?? '').slice(0, DESCRIPTION_CHARS)}`.toLowerCase().replace(/[’']/g, '').replace(READINGS, ' ');
  const words = text.split(/[^a-z0-9]+/).filter((w) => w.length >= 1 && !/^(19|20)\d\d$/.test(w) && !/^(19|20)\d0s$/.test(w));
  return [...new Set(words)].slice(0, MAX_WORDS);
}

/**
 * A listing that says the machine does not work or is sold for parts, or that the buyer takes on
 * what is in it: "(for parts)", "gutted", "salvage", "(Not Running)", "Won't Power Up", "Unit does
 * not power up", "(No Drivetrain)", "Key: Not Available", "With Contents", "(Contents Not Included)".
 * Read on the two West folds of the training period (docs/valuation.md, issue 28): such lots (25 of
 * the 333 valued) sold a median 2.2 and 1.1 log under the value the scorer wrote.
 */
export const IMPAIRED_WORDS =
  /\bfor parts\b|\bparts only\b|\bgutted\b|\bsalvage\b|\b(?:not|non)[- ]?(?:running|operational|operable|working)\b|\binoperable\b|\b(?:does not|doesn[’']?t|won[’']?t|will not|did not|would not) (?:start|run|power|turn over|crank)|\bno (?:drive ?train|engine|transmission)\b|\bkeys?: not available\b|\bno keys?\b|\bwith contents\b|\bcontents (?:not )?included\b/i;

/** Whether the lot's title or the start of its description says it is impaired (`IMPAIRED_WORDS`). */
export function impairedLot(r: Pick<ValuationInput, 'title' | 'description'>): boolean {
  return IMPAIRED_WORDS.test(`${r.title ?? ''} ${(r.description ?? '').slice(0, DESCRIPTION_CHARS)}`);
}

/**
 * A listing whose sale is subject to the seller's confirmation: a reserve, so the lot sells only
 * above the seller's floor ("Seller's Confirmation: The sale of this item is subject to the
 * seller's confirmation."). Read on the West folds (issue 28, round 5): all 9 such lots of the
 * Apr–Jun 2025 fold (John Deere 7200R–8360R tractors, 2019 Bobcat excavators, a JCB backhoe) sold
 * 1.7–3.2 log over the value the scorer wrote; the Jan–Mar fold and the test period have none.
 */
export const RESERVE_WORDS = /\bsubject to (?:the )?(?:seller|owner)[’']?s?[’']? (?:confirmation|approval)\b|\bseller[’']?s?[’']? confirmation\b/i;

/** Whether the lot's title or the start of its description says its sale waits on the seller (`RESERVE_WORDS`). */
export function reserveLot(r: Pick<ValuationInput, 'title' | 'description'>): boolean {
  return RESERVE_WORDS.test(`${r.title ?? ''} ${(r.description ?? '').slice(0, DESCRIPTION_CHARS)}`);
}

/** Pseudo-lots at no shift that an impaired shift is shrunk by: a source with few such lots says little. */
const IMPAIRED_PSEUDO = 5;

/**
 * Per source: how far under its market (the median of its type on that source) an impaired lot
 * sells, against the source's other lots, shrunk by `IMPAIRED_PSEUDO` pseudo-lots and never above 0
 * (a listing's trouble never makes it worth more). Neither the trees (trained mostly on Fast Iron
 * rows, with a handful of such lots) nor the nearest lots (the words are a few among eighty) see it.
 */
export function fitImpairedShift(lots: { source: string; impaired: boolean; relative: number }[]): Record<string, number> {
  return fitWordShift(lots.map((l) => ({ source: l.source, flagged: l.impaired, relative: l.relative })), -1);
}

/**
 * Per source: how far over its market a lot sold subject to the seller's confirmation sells,
 * against the source's other lots, shrunk the same way and never under 0 (a reserve never makes a
 * lot worth less).
 */
export function fitReserveShift(lots: { source: string; reserve: boolean; relative: number }[]): Record<string, number> {
  return fitWordShift(lots.map((l) => ({ source: l.source, flagged: l.reserve, relative: l.relative })), 1);
}

/** Median of the flagged lots against the others, shrunk by `IMPAIRED_PSEUDO` pseudo-lots, kept on `sign`'s side of 0. */
function fitWordShift(lots: { source: string; flagged: boolean; relative: number }[], sign: 1 | -1): Record<string, number> {
  const out: Record<string, number> = {};
  for (const source of new Set(lots.map((l) => l.source))) {
    const own = lots.filter((l) => l.source === source);
    const flagged = own.filter((l) => l.flagged).map((l) => l.relative);
    const others = own.filter((l) => !l.flagged).map((l) => l.relative);
    if (flagged.length === 0 || others.length === 0) continue;
    const shift = (median(flagged) - median(others)) * (flagged.length / (flagged.length + IMPAIRED_PSEUDO));
    out[source] = sign < 0 ? Math.min(0, shift) : Math.max(0, shift);
  }
  return out;
}

/**
 * The log shift a listing's own words call for: its source's impaired shift when it says it is
 * impaired, plus its reserve shift when it is sold subject to the seller's confirmation (0 for any
 * other lot, or a table without shifts).
 */
export function listingLogShift(n: LotNeighbours | undefined, r: ValuationInput): number {
  if (!n || !isOnlineLot(r)) return 0;
  const source = String(r.attributes.source);
  const impaired = n.impairedShift && impairedLot(r) ? (n.impairedShift[source] ?? 0) : 0;
  const reserve = n.reserveShift && reserveLot(r) ? (n.reserveShift[source] ?? 0) : 0;
  return impaired + reserve;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The neighbour table of the online lots among `rows` (undefined when there are none). */
export function fitLotNeighbours(rows: TrainingSale[]): LotNeighbours | undefined {
  const online = rows.filter((r) => isOnlineLot(r) && r.categoryId !== null);
  if (online.length === 0) return undefined;
  const wordsOf = online.map((r) => lotWords(r));
  const df = new Map<string, number>();
  for (const ws of wordsOf) for (const w of ws) df.set(w, (df.get(w) ?? 0) + 1);
  const words = [...df.keys()].sort();
  const index = new Map(words.map((w, i) => [w, i]));
  const byType = new Map<string, number[]>();
  const lots = online.map((r, i) => {
    const type = marketOf(r);
    const logPrice = Math.log1p(r.price);
    (byType.get(type) ?? byType.set(type, []).get(type)!).push(logPrice);
    return { type, words: wordsOf[i]!.map((w) => index.get(w)!), logPrice };
  });
  const prior = Object.fromEntries([...byType].map(([type, v]) => [type, median(v)]));
  const impairedShift = fitImpairedShift(
    online.map((r, i) => ({ source: String(r.attributes.source), impaired: impairedLot(r), relative: lots[i]!.logPrice - prior[lots[i]!.type]! })),
  );
  const reserveShift = fitReserveShift(
    online.map((r, i) => ({ source: String(r.attributes.source), reserve: reserveLot(r), relative: lots[i]!.logPrice - prior[lots[i]!.type]! })),
  );
  return {
    words,
    idf: words.map((w) => Math.log((online.length + 1) / (df.get(w)! + 1)) + 1),
    lots,
    prior,
    impairedShift,
    reserveShift,
  };
}

type Index = { index: CosineIndex; wordIndex: Map<string, number> };
const indexes = new WeakMap<LotNeighbours, Index>();

function indexOf(n: LotNeighbours): Index {
  let found = indexes.get(n);
  if (!found) indexes.set(n, (found = { index: cosineIndex(n.lots, n.idf, 1), wordIndex: new Map(n.words.map((w, i) => [w, i])) }));
  return found;
}

/**
 * The neighbours' estimate of an online lot's log price, or NaN when it is not an online lot or no
 * lot of its type has sold on its source yet. Words the table has never seen count towards the lot's own length
 * (at the rarest word's weight), so a lot mostly unlike any sold one has weak similarities and leans
 * on the type's median.
 */
export function neighbourLogPrice(n: LotNeighbours | undefined, r: ValuationInput): number {
  if (!n || !isOnlineLot(r)) return NaN;
  const type = marketOf(r);
  const prior = n.prior[type];
  if (prior === undefined) return NaN;
  const { index, wordIndex } = indexOf(n);
  const unseenIdf = Math.log(n.lots.length + 1) + 1;
  const words: number[] = [];
  const weights: number[] = [];
  let sq = 0;
  for (const w of lotWords(r)) {
    const id = wordIndex.get(w);
    const idf = id === undefined ? unseenIdf : n.idf[id]!;
    sq += idf * idf;
    if (id === undefined) continue;
    words.push(id);
    weights.push(idf * idf);
  }
  if (sq === 0) return prior;
  // found rarest word first (cosine-nearest.ts): the same nearest lots as scoring every lot of the market
  const nearest = nearestByCosine(index, type, words, weights, Math.sqrt(sq), NEAREST, -Infinity);
  let num = PRIOR_WEIGHT * prior;
  let den = PRIOR_WEIGHT;
  for (const [lot, sim] of nearest) {
    num += sim * n.lots[lot]!.logPrice;
    den += sim;
  }
  return num / den;
}
