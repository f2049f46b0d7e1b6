/**
 * What it costs to haul a machine home: its weight class from its equipment type and the size
 * words and model number of its title (a mini excavator rides behind a pickup, a 20-ton one needs
 * a lowboy, a D8 dozer needs permits), and per class a range of per-mile rates and a minimum
 * charge from published heavy-haul rates (sources and date: docs/delivered-price.md). Road miles
 * are the straight-line distance × ROAD_FACTOR. An estimate, shown as a range, never a quote.
 * Pure: no I/O.
 */

export const WEIGHT_CLASSES = ['compact', 'mid', 'heavy', 'oversize'] as const;
export type WeightClass = (typeof WEIGHT_CLASSES)[number];

export type FreightRate = {
  /** What the class is, in words a buyer reads. */
  label: string;
  trailer: string;
  perMile: [low: number, high: number];
  /** The least a carrier charges for one move (a local one). */
  minimum: [low: number, high: number];
};

/**
 * Per class: rates per loaded mile and minimum charges (USD), from the published figures in
 * docs/delivered-price.md (2025): under 10,000 lb local moves $300–600; 10–30,000 lb $500–1,000;
 * over 30,000 lb $800–2,500; lowboy hauls of 60,000-lb machines $4–6 a mile; oversize loads add
 * permits per state and escorts by the hour (our upper rates take them in).
 */
export const FREIGHT_RATES: Record<WeightClass, FreightRate> = {
  compact: { label: 'compact (under 10,000 lb)', trailer: 'hotshot or gooseneck trailer', perMile: [2, 3.5], minimum: [300, 600] },
  mid: { label: 'mid-size (10,000–30,000 lb)', trailer: 'flatbed or step deck', perMile: [3, 5], minimum: [500, 1000] },
  heavy: { label: 'heavy (30,000–80,000 lb)', trailer: 'lowboy', perMile: [4, 6], minimum: [800, 2500] },
  oversize: { label: 'oversize (over 80,000 lb, permits)', trailer: 'multi-axle lowboy with permits', perMile: [6, 10], minimum: [2500, 5000] },
};

/** Roads are longer than the straight line between two US places: about a fifth on average. */
export const ROAD_FACTOR = 1.2;

const COMPACT_WORDS = /\b(mini|micro|compact|small|walk[\s-]?behind|plate|rammer|towable|portable)\b/i;
const LARGE_WORDS = /\b(full[\s-]?size|large|high[\s-]?reach)\b/i;

/** The first model number of a title (CAT 320E → 320, PC200-8 → 200, ZX35U → 35, D6T → 6). */
function modelNumber(text: string, prefix = ''): number | null {
  const m = new RegExp(`\\b${prefix}[A-Z]{0,3}[-\\s]?(\\d{1,4})`, 'i').exec(text);
  return m ? Number(m[1]) : null;
}

/** An excavator's operating weight in metric tons from its model number (Caterpillar's 3xx: xx tons; others: the number / 10). */
export function excavatorTons(title: string): number | null {
  const cat = /\b(?:cat|caterpillar)\b[^0-9]{0,12}(3\d\d)(?![0-9])/i.exec(title) ?? /\b(3[0-4]\d)[A-Z]{0,2}\b/.exec(title);
  if (cat) return Number(cat[1]) - 300;
  const n = modelNumber(title.replace(/\b(19|20)\d\d\b/g, ' '));
  if (n === null || n === 0) return null;
  return n < 100 ? n / 10 : n < 1000 ? n / 10 : null;
}

/** A dozer's class from its model: Caterpillar D3–D11, Komatsu D31–D475, Deere 450–1050. */
function dozerClass(title: string): WeightClass {
  const cat = /\bD(\d{1,2})(?![0-9])/i.exec(title);
  if (cat) {
    const n = Number(cat[1]);
    const size = n >= 20 ? n / 10 : n; // Komatsu D61 → 6.1
    if (size < 6) return 'mid';
    if (size < 8) return 'heavy';
    return 'oversize';
  }
  const deere = /\b(450|550|650|700|750|850|950|1050)[A-Z]?\b/.exec(title);
  if (deere) {
    const n = Number(deere[1]);
    return n <= 700 ? 'mid' : n <= 850 ? 'heavy' : 'oversize';
  }
  return COMPACT_WORDS.test(title) ? 'mid' : 'heavy';
}

/**
 * The weight class of a machine from its category (ids of migration 0001) and title. Unknown
 * types are taken as mid-size (the estimate says so).
 */
export function weightClass(categoryId: number, title: string): WeightClass {
  const t = title;
  switch (categoryId) {
    case 1: {
      if (COMPACT_WORDS.test(t)) return 'compact';
      const tons = excavatorTons(t);
      // Without a model number: a full-size machine (most excavators sold at auction are 20-ton class).
      if (tons === null) return 'heavy';
      if (tons < 6) return 'compact';
      if (tons < 14) return 'mid';
      if (tons < 36) return 'heavy';
      return 'oversize';
    }
    case 2:
      return dozerClass(t);
    case 3: {
      if (COMPACT_WORDS.test(t)) return 'compact';
      const cat = /\b9(\d\d)[A-Z]?\b/.exec(t);
      if (cat) {
        const n = Number(cat[1]);
        return n < 20 ? 'compact' : n < 50 ? 'mid' : n < 80 ? 'heavy' : 'oversize';
      }
      const deere = /\b([2-9]\d4)[A-Z]?\b/.exec(t);
      if (deere) {
        const n = Number(deere[1]);
        return n < 400 ? 'compact' : n < 700 ? 'mid' : 'heavy';
      }
      return LARGE_WORDS.test(t) ? 'heavy' : 'mid';
    }
    case 4:
      return 'mid';
    case 5:
      return 'compact';
    case 6:
      if (/\b(carry[\s-]?deck|pick[\s-]?and[\s-]?carry|mini|knuckle)\b/i.test(t)) return 'mid';
      if (/\b(crawler|lattice|all[\s-]?terrain)\b/i.test(t)) return 'oversize';
      return 'heavy';
    case 7:
      return /\b(articulated|adt|off[\s-]?highway|rock truck|haul truck)\b/i.test(t) ? 'heavy' : 'mid';
    case 8: {
      const kw = /(\d{2,4})\s?kw\b/i.exec(t) ?? /(\d{2,4})\s?kva\b/i.exec(t);
      if (kw) {
        const n = Number(kw[1]);
        return n < 150 ? 'compact' : n < 500 ? 'mid' : 'heavy';
      }
      return COMPACT_WORDS.test(t) ? 'compact' : 'mid';
    }
    case 9:
      return COMPACT_WORDS.test(t) ? 'compact' : 'mid';
    case 10:
      return 'heavy';
    default:
      if (COMPACT_WORDS.test(t)) return 'compact';
      return 'mid';
  }
}

export type HaulEstimate = {
  weightClass: WeightClass;
  roadMiles: number;
  low: number;
  high: number;
};

/** Whole tens of dollars: an estimate shown to the dollar would claim too much. */
const tens = (usd: number) => Math.round(usd / 10) * 10;

/** The haul's range for a class over a straight-line distance: road miles × the class's rates, at least its minimum. */
export function haulEstimate(weight: WeightClass, straightMiles: number): HaulEstimate {
  const rate = FREIGHT_RATES[weight];
  const roadMiles = Math.round(Math.max(0, straightMiles) * ROAD_FACTOR);
  return {
    weightClass: weight,
    roadMiles,
    low: tens(Math.max(rate.minimum[0], roadMiles * rate.perMile[0])),
    high: tens(Math.max(rate.minimum[1], roadMiles * rate.perMile[1])),
  };
}
