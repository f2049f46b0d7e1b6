/**
 * West Auctions lots as sales history. A lot counts when it closed with a hammer price and is a
 * machine: one the crawler's own category rules file under the ten types, or a truck, trailer,
 * forklift, lift or tractor under Other. Attachments, parts and general merchandise are not
 * machines. Make, model and year come from the record, else from the title via the crawler's own
 * title parser (read only); the buyer's premium, odometer and source are kept as attributes.
 */
import { categoryIdFor, machinePart } from '../shared/lots/category.js';
import { canonicalMake, modelFamily, parseTitle } from '../shared/lots/title-parser.js';
import { OTHER_CATEGORY_ID } from '../shared/categories.js';
import type { WestAuctionRecord } from '../shared/datasets/westauction.js';
import type { TrainingSale } from './features.js';

export const WESTAUCTION_ORIGIN = 'import:westauction';
export const WESTAUCTION_SALE_CHANNEL = 'online auction';
export const WESTAUCTION_SOURCE = 'westauction';
/** How much of a lot's description a sold result keeps (the valuation reads the first 600 characters). */
export const SOLD_DESCRIPTION_CHARS = 600;

/**
 * Words that make a lot something for, or of, a machine rather than the machine ("Excavator Thumb",
 * "Rake for 1-2 Ton Excavator", "Skid Steer Forks", "Transfer Switch", "Hand Truck", "Skid Steer
 * Bale Spear", "Truck Bumper", "Forklift Ready Cabinet", "Riding Lawn Tractor").
 */
const NOT_A_MACHINE =
  /\b(for|fits|thumbs?|rakes?|rippers?|hoses?|augers?|brooms?|forks|accessor(y|ies)|kits?|hoists?|switch(es)?|cutters?|drills?|conditioners?|bits|attachments?|buckets?|grapples?|blades?|tires?|rims?|wheels?(?! loader)|parts?|manuals?|toys?|models? of|scale|seats?|mowers?|tillers?|trenchers?|breakers?|hammers?|couplers?|tooth|teeth|tracks? only|pallet jacks?|hand trucks?|dollys?|dollies|tool ?box(es)?|racks?|beds?|caps?|covers?|canopy|ramps?|hitch(es)?|jacks?|stands?|base|engines? only|batter(y|ies)|chargers?|cables?|cords?|winch(es)?|wench|motors?|pallets?|pallet trucks?|baskets?|cages?|frames?|hoods?|tailgates?|differentials?|landing gear|contents|stackers?|heaters?|fit|track sets?|trimmers?|carriages?|liftgates?|grabs?|lights?(?! ?towers?)|sweepers?|carts?|booms?(?! ?lifts?)|platforms?(?! ?lifts?)|tilt trucks?|poly box trucks?|truck (?:box(?:es)?|steps?|toppers?|bod(?:y|ies)|engines?)|front end(?! loaders?)|child|bikes?|bicycles?|and more|bumpers?|roll ?bars?|cabinets?|spears?|levell?ers?|planers?|grinders?|extensions?|reservoirs?|seals?|guards?|mirrors?|fenders?|grilles?|mounts?|trash compactors?|(?:lawn|garden) tractors?|forklift[- ]ready|front scrapers?)\b/i;

/**
 * An attachment or implement named after the machine it fits, with words that are a machine on
 * their own ("Skid Steer Backhoe", "Skid Steer Vibratory Roller", "Forklift Jib", "Forklift Dump
 * Hopper", "Forklift Man Lift", "Skid Steer Snow Shovel"): the host machine's name directly
 * followed by the implement's. "Tractor Loader Backhoe" is a machine (a loader sits between).
 * Post drivers, pounders and rammers are hand tools or attachments, never one of the types.
 * Written from the training period's lots (issue 28, round 5).
 */
const ATTACHED_TO_A_MACHINE =
  /\b(?:skid ?steers?|fork ?lifts?|tractors?|excavators?)[- ](?:backhoes?|post (?:drivers?|pounders?)|snow (?:shovels?|pushers?|plows?|blowers?)|jibs?|(?:dump )?hoppers?|man (?:lifts?|baskets?)|(?:vibratory )?rollers?|plows?)\b|\bpost (?:drivers?|pounders?|rammers?|hole diggers?)\b/i;

/** Machines filed under Other that buyers of equipment price like machines, and the kind the model sees. */
const OTHER_MACHINE_KINDS: [string, RegExp][] = [
  ['forklift', /\bfork ?lifts?\b|\blift trucks?\b|\bteleh?andlers?\b|\btelescopic handlers?\b|\breach ?stackers?\b/i],
  ['aerial lift', /\b(scissor|boom|aerial|man|personnel|vertical|mast|articulating|straight boom|towable boom) ?lifts?\b|\bcherry ?pickers?\b|\bbucket trucks?\b/i],
  ['trailer', /\btrailers?\b/i],
  ['tractor', /\btractors?\b/i],
  ['truck', /\btrucks?\b|\bpick ?ups?\b|\bbox vans?\b|\bcargo vans?\b|\bstep vans?\b|\bflatbeds?\b|\btractor ?trailer\b|\bsemi\b(?![- ](?:automatic|auto|flush|steer|gloss))/i],
];

export type WestMachine = { categoryId: number; kind: string };

/** The type (and, under Other, the kind) of a lot that is a machine; null for anything else. */
export function westMachine(title: string): WestMachine | null {
  const part = machinePart(title);
  if (NOT_A_MACHINE.test(part) || ATTACHED_TO_A_MACHINE.test(part)) return null;
  const categoryId = categoryIdFor(title);
  if (categoryId !== OTHER_CATEGORY_ID) return { categoryId, kind: 'machine' };
  for (const [kind, pattern] of OTHER_MACHINE_KINDS) if (pattern.test(part)) return { categoryId, kind };
  return null;
}

export type WestImportSkip = 'not-closed' | 'no-price' | 'not-a-machine';

/** A sold result as an importer of lots (West Auctions, Ritchie Bros.) writes it to sold_results. */
export type ImportedSoldResult = {
  origin: string;
  externalId: string;
  title: string;
  make: string | null;
  model: string | null;
  modelFamily: string | null;
  year: number | null;
  hours: number | null;
  condition: null;
  categoryId: number;
  state: string | null;
  saleChannel: string;
  soldAt: Date;
  price: number;
  currency: 'USD';
  url: string | null;
  attributes: Record<string, string | number>;
};

export type WestSoldResult = ImportedSoldResult & { url: string };

/** A closed, priced machine lot as a sold_results row, or why it is not one. */
export function westAuctionToSoldResult(r: WestAuctionRecord): WestSoldResult | { skip: WestImportSkip } {
  if (!r.closed || !r.endAt) return { skip: 'not-closed' };
  if (r.highBid === null) return { skip: 'no-price' };
  const machine = westMachine(r.title);
  if (!machine) return { skip: 'not-a-machine' };
  const parsed = parseTitle(r.title, r.endAt);
  const make = canonicalMake(r.make) ?? parsed.make;
  const model = r.model && r.model.length <= 40 && /\d/.test(r.model) ? r.model : parsed.model;
  const attributes: Record<string, string | number> = { source: WESTAUCTION_SOURCE, machine_kind: machine.kind };
  if (r.odometer !== null) attributes.odometer = r.odometer;
  if (r.buyersPremiumPct !== null) attributes.buyers_premium_pct = r.buyersPremiumPct;
  if (/\bunused\b|\bnew\b/i.test(r.title)) attributes.unused = 'yes';
  // the start of the description finds the lot's nearest sold lots (lot-neighbours.ts)
  if (r.description) attributes.description = r.description.slice(0, SOLD_DESCRIPTION_CHARS);
  return {
    origin: WESTAUCTION_ORIGIN,
    externalId: r.lotId,
    title: r.title,
    make,
    model,
    modelFamily: modelFamily(model),
    year: r.year ?? parsed.year,
    hours: r.hours,
    condition: null,
    categoryId: machine.categoryId,
    state: r.state,
    saleChannel: WESTAUCTION_SALE_CHANNEL,
    soldAt: r.endAt,
    price: r.highBid,
    currency: 'USD',
    url: `https://www.westauction.com/auctions/${encodeURIComponent(r.auctionId)}/lot/${encodeURIComponent(r.lotId)}`,
    attributes,
  };
}

export function westAuctionToSale(r: WestAuctionRecord): TrainingSale | null {
  const row = westAuctionToSoldResult(r);
  return 'skip' in row ? null : importedSale(row);
}

/** An imported sold result (West, Ritchie Bros.) as a training sale: the fields the importer stores. */
export function importedSale(
  row: Pick<ImportedSoldResult, 'categoryId' | 'make' | 'model' | 'modelFamily' | 'year' | 'hours' | 'state' | 'saleChannel' | 'soldAt' | 'price' | 'attributes' | 'title'>,
): TrainingSale {
  return {
    categoryId: row.categoryId,
    make: row.make,
    model: row.model,
    modelFamily: row.modelFamily,
    year: row.year,
    hours: row.hours,
    condition: null,
    state: row.state,
    saleChannel: row.saleChannel,
    soldAt: row.soldAt,
    price: row.price,
    attributes: row.attributes,
    title: row.title,
    description: typeof row.attributes.description === 'string' ? row.attributes.description : null,
  };
}
