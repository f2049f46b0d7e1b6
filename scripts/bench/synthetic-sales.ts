/**
 * Synthetic sales history for the training benchmark (`npm run bench:train`): as many sales as
 * asked, with the columns the shipped histories give the model — type, make, model and family,
 * year, hours (half unstated, as Ritchie Bros. reports 0), state, sold day, price, unused, and the
 * source with its market (Fast Iron's dealer auctions of 2004–2012, Ritchie Bros. results of
 * 2021–2023, West Auctions' online surplus lots of 2024–2025) — in the shipped proportions. Titles
 * read as the adapters write them ("2015 Komatsu PC490LC-11 Hydraulic Excavator"), so the title
 * features and the nearest lots see as many shared words as real lots do. Fast Iron rows carry
 * its ModelID, product class and a few option columns. Prices follow a type's level, its make and
 * model, depreciation with age, hours, a market level that moves over time, and noise: the trees
 * have something to learn, and deterministic for a seed.
 */
import { seededRandom } from '../../services/shared/seeded-random.js';
import type { TrainingSale } from '../../services/valuation/features.js';

/** Shares of the shipped histories: ~16k Fast Iron, ~62k Ritchie Bros., West Auctions lots. */
const SOURCES = [
  { source: 'fastiron', market: 'dealer auction', share: 0.15, from: Date.UTC(2004, 0, 1), to: Date.UTC(2012, 2, 1) },
  { source: 'rbauction', market: 'dealer auction', share: 0.8, from: Date.UTC(2021, 8, 1), to: Date.UTC(2023, 5, 1) },
  { source: 'westauction', market: 'online surplus', share: 0.05, from: Date.UTC(2024, 0, 1), to: Date.UTC(2026, 0, 1) },
] as const;

const TYPES = [
  { id: 1, noun: 'Hydraulic Excavator', small: 'Mini Excavator', level: 11.0 },
  { id: 2, noun: 'Crawler Dozer', small: 'Compact Dozer', level: 11.2 },
  { id: 3, noun: 'Wheel Loader', small: 'Compact Wheel Loader', level: 11.0 },
  { id: 4, noun: 'Loader Backhoe', small: 'Tractor Loader Backhoe', level: 10.6 },
  { id: 5, noun: 'Skid Steer Loader', small: 'Compact Track Loader', level: 10.1 },
  { id: 6, noun: 'Rough Terrain Crane', small: 'Carry Deck Crane', level: 11.5 },
  { id: 7, noun: 'Articulated Dump Truck', small: 'Tandem Axle Dump Truck', level: 11.1 },
  { id: 8, noun: 'Generator', small: 'Towable Generator', level: 9.6 },
  { id: 9, noun: 'Vibratory Smooth Drum Roller', small: 'Plate Compactor', level: 9.8 },
  { id: 10, noun: 'Motor Grader', small: 'Road Grader', level: 11.3 },
] as const;

const STATES = ['TX', 'CA', 'FL', 'GA', 'OH', 'PA', 'IL', 'NC', 'MN', 'CO', 'AZ', 'WA', 'OR', 'NV', 'UT', 'MO', 'TN', 'AL', 'LA', 'OK', 'KS', 'NE', 'IA', 'WI', 'MI', 'IN', 'KY', 'VA', 'NY', 'NJ'];
const SIZES = ['Mini', 'Compact', 'Small', 'Medium', 'Large / Medium', 'Large'];
const OPTIONS = { Enclosure: ['EROPS', 'OROPS', 'EROPS w AC'], Hydraulics: ['Standard', 'Auxiliary', '2 Valve'], Tire_Size: ['17.5', '20.5', '23.5'], Thumb: ['Hydraulic', 'Manual', 'None or Unspecified'] };
const LETTERS = 'ABCDEFGHJKLMNPRSTVWXZ';
const DAY_MS = 24 * 3600 * 1000;

type CatalogueModel = { type: (typeof TYPES)[number]; make: string; model: string; family: string; effect: number; small: boolean; modelId: number };

/** Makes (Zipf-popular) and their models per type: ~2,000 makes and ~20,000 models, as the shipped histories hold. */
function catalogue(random: () => number): { models: CatalogueModel[]; weights: Float64Array } {
  const makes = Array.from({ length: 2000 }, (_, i) => {
    const name = Array.from({ length: 3 + Math.floor(random() * 6) }, () => LETTERS[Math.floor(random() * LETTERS.length)]).join('');
    return { name: i % 3 === 0 ? `${name} ${LETTERS[i % LETTERS.length]}${LETTERS[(i * 7) % LETTERS.length]}` : name, effect: (random() - 0.5) * 0.8, popularity: 1 / (i + 1) };
  });
  const models: CatalogueModel[] = [];
  const weights: number[] = [];
  for (const make of makes) {
    const types = TYPES.filter(() => random() < 0.35);
    for (const type of types) {
      const families = 1 + Math.floor(random() * 4);
      for (let f = 0; f < families; f++) {
        const family = `${LETTERS[Math.floor(random() * LETTERS.length)]}${10 + Math.floor(random() * 990)}`;
        const variants = 1 + Math.floor(random() * 3);
        for (let v = 0; v < variants; v++) {
          const model = v === 0 ? family : `${family}${LETTERS[Math.floor(random() * LETTERS.length)]}${random() < 0.5 ? `-${1 + Math.floor(random() * 12)}` : ''}`;
          models.push({ type, make: make.name, model, family, effect: make.effect + (random() - 0.5) * 1.2, small: random() < 0.3, modelId: models.length + 1 });
          weights.push(make.popularity * (0.2 + random()));
        }
      }
    }
  }
  const cumulative = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => (cumulative[i] = sum += w));
  return { models, weights: cumulative.map((c) => c / sum) };
}

function pick(cumulative: Float64Array, u: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A standard normal draw (Box–Muller). */
const normal = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/** The market level (log) at a time: up through the 2000s, a fall in 2009, high in early 2022, lower by mid 2023. */
function marketLevel(t: number): number {
  const years = t / (365.25 * DAY_MS) + 1970;
  return 0.02 * (years - 2004) - (years > 2009 && years < 2011 ? 0.12 : 0) + (years > 2021.5 ? 0.25 - 0.3 * Math.max(0, years - 2022.2) : 0);
}

export function syntheticSales(count: number, seed = 1): TrainingSale[] {
  return Array.from(syntheticSaleStream(count, seed));
}

/** The same sales one at a time, so a million need not be held at once (bench:train packs them as they come). */
export function* syntheticSaleStream(count: number, seed = 1): Generator<TrainingSale> {
  const random = seededRandom(seed);
  const { models, weights } = catalogue(random);
  for (let i = 0; i < count; i++) {
    const u = random();
    const src = u < SOURCES[0].share ? SOURCES[0] : u < SOURCES[0].share + SOURCES[1].share ? SOURCES[1] : SOURCES[2];
    const m = models[pick(weights, random())]!;
    const soldAt = new Date(Math.floor((src.from + random() * (src.to - src.from)) / DAY_MS) * DAY_MS);
    const soldYear = soldAt.getUTCFullYear();
    const unused = src.source !== 'fastiron' && random() < 0.06;
    const age = unused ? Math.floor(random() * 2) : Math.floor(random() * random() * 25);
    const year = soldYear - age;
    const hoursStated = !unused && random() < 0.5;
    const hours = unused ? 0 : Math.round(Math.max(0, age * (300 + 900 * random()) + normal(random) * 200));
    const logPrice =
      m.type.level + m.effect - (m.small ? 1 : 0) - 0.09 * age - 0.00001 * hours + marketLevel(soldAt.getTime()) +
      (unused ? 0.15 : 0) - (src.market === 'online surplus' ? 0.6 : 0) + normal(random) * (src.market === 'online surplus' ? 0.7 : 0.3);
    const price = Math.max(100, Math.round(Math.exp(logPrice) / 50) * 50);
    const noun = m.small ? m.type.small : m.type.noun;
    const attributes: TrainingSale['attributes'] = { source: src.source, market: src.market };
    if (unused) attributes.unused = 'yes';
    if (src.source === 'fastiron') {
      attributes.ModelID = String(m.modelId);
      attributes.ProductGroup = String(m.type.id);
      attributes.fiProductClassDesc = `${noun} - ${50 + (m.modelId % 20) * 10}.0 to ${60 + (m.modelId % 20) * 10}.0 Horsepower`;
      attributes.ProductSize = SIZES[m.modelId % SIZES.length]!;
      for (const [name, values] of Object.entries(OPTIONS)) if (random() < 0.6) attributes[name] = values[Math.floor(random() * values.length)]!;
    }
    yield {
      categoryId: m.type.id,
      make: src.source === 'fastiron' ? null : m.make,
      model: m.model,
      modelFamily: m.family,
      year: src.source === 'fastiron' && random() < 0.1 ? null : year,
      hours: hoursStated || src.source === 'westauction' ? hours : null,
      condition: null,
      state: STATES[Math.floor(random() * STATES.length)]!,
      saleChannel: src.source === 'westauction' ? 'online' : 'auction',
      soldAt,
      price,
      attributes,
      title: src.source === 'fastiron' ? `${year} ${m.model} ${noun}` : `${year} ${m.make} ${m.model} ${noun}${unused ? ' (Unused)' : ''}`,
      description: src.source === 'westauction' ? `${m.make} ${m.model} ${noun.toLowerCase()}, runs and operates, located in ${STATES[i % STATES.length]}` : null,
    };
  }
}
