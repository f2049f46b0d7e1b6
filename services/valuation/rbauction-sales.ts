/**
 * Ritchie Bros. results as sales history: one results row as the sold result the crawler stores
 * (a title as the product's Ritchie Bros. adapter reads it, make, model, family, year, hours,
 * state, sold day, hammer price) and as a training sale, or why it is not one. Pure.
 *
 * The item type is the tail of the results page's name (`2015-komatsu-pc490lc-11-hydraulic-
 * excavator` → `hydraulic-excavator`). It is mapped to the ten types by the crawler's own category
 * words (shared/lots/category.ts), after the few rules below that its words lack or get wrong for
 * these names. Decisions (docs/sources.md, "Ritchie Bros. results"):
 * - mini and midi excavators are Excavators (`tons_class` 1 or 5 from "1-4.9 / 5-9.9 tons");
 * - compact track loaders and multi-terrain loaders are Skid Steers (as the crawler files them);
 * - articulated, off-highway (rock) and on-road dump trucks are Dump Trucks (`dump_kind`);
 * - rollers, plate and trench compactors and rammers ("jumping jack") are Compactors (`compactor_kind`);
 * - gen sets are Generators (`kva` from "25 kVA", "20 kW" ×1.25 or "5000 W"); the results' size
 *   bucket ("Gen Set (10-249 kW/12.5-310 kVA)") is the catalog's, often wrong, and is not read;
 * - mobile cranes are Cranes (`tons`); bridge, gantry and shop cranes are not machines;
 * - wheel dozers are Bulldozers; crawler and skip loaders are Other (not wheel loaders);
 * - scrapers, tool carriers, carriers, sweepers, water wagons, trucks, trailers, tractors, forklifts
 *   and lifts are machines under Other; anything else (tools, small goods) is not a machine.
 * Lots of several (`quantity-of-…`), site goods (fences, cones, signs, barricades, job boxes,
 * supplies) and parts or stationary lots are skipped and counted.
 */
import { categoryIdFor } from '../shared/lots/category.js';
import { canonicalMake, modelFamily, parseTitle } from '../shared/lots/title-parser.js';
import { categoryIdByName, OTHER_CATEGORY_ID, type CategoryName } from '../shared/categories.js';
import type { RbAuctionRecord } from '../shared/datasets/rbauction.js';
import type { TrainingSale } from './features.js';
import { importedSale, westMachine, type ImportedSoldResult } from './westauction-sales.js';

export const RBAUCTION_ORIGIN = 'import:rbauction';
export const RBAUCTION_SOURCE = 'rbauction';
/** The market these sales were made in (Fast Iron's too): a live unreserved dealer/contractor auction. */
export const RBAUCTION_MARKET = 'dealer-auction';
export const RBAUCTION_SALE_CHANNEL = 'auction';

export type RbImportSkip = 'no-price' | 'quantity-lot' | 'site-goods' | 'parts-or-stationary' | 'not-a-machine';

/** A results name as the slug's words: lower case, `'` `/` `.` `+` `,` dropped, anything else a hyphen. */
export function slugTokens(text: string | null | undefined): string[] {
  return (text ?? '')
    .toLowerCase()
    .replace(/['’/.+,]/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function startsWith(tokens: string[], prefix: string[]): boolean {
  return prefix.length > 0 && prefix.length <= tokens.length && prefix.every((t, i) => tokens[i] === t);
}

const YEAR_TOKEN = /^(19|20)\d\d$/;

export type RbItem = {
  /** The slug's tail after year, make and model, without `unused`: `hydraulic-excavator`. */
  itemType: string;
  unused: boolean;
  /** The model as listed when the slug carries it before the type; null when `model` holds the lot's name. */
  model: string | null;
  /** The lot's name when the listing put it in `model` (no model of its own), else null. */
  name: string | null;
};

/** The model text with a leading "Unused", year and make taken off ("2013 CAT 289D" → "289D"). */
function modelWithoutPrefix(model: string, make: string | null): string {
  let rest = model.replace(/^unused\s+/i, '').replace(/^(19|20)\d\d\s+/, '');
  if (make && rest.toLowerCase().startsWith(make.toLowerCase() + ' ')) rest = rest.slice(make.length + 1);
  return rest.trim();
}

/** Splits a results name into year/make/model (as the row lists them) and the item type. */
export function rbItem(r: Pick<RbAuctionRecord, 'itemSlug' | 'year' | 'make' | 'model'>): RbItem {
  let rest = slugTokens(r.itemSlug);
  let unused = false;
  if (rest[0] === 'unused') (rest = rest.slice(1)), (unused = true);
  if (rest[rest.length - 1] === 'unused') (rest = rest.slice(0, -1)), (unused = true);
  if (rest.includes('unused')) unused = true;
  const rawYear = /^\s*((?:19|20)\d\d)\b/.exec(r.model ?? '')?.[1];
  for (const year of [r.year, rawYear].filter(Boolean)) if (startsWith(rest, [String(year)])) rest = rest.slice(1);
  const makeTokens = slugTokens(r.make);
  // a year the reader dropped as implausible (`2109-cat-336-…`) still leads the slug
  if (rest.length && r.year === null && (YEAR_TOKEN.test(rest[0]!) || (/^\d{4}$/.test(rest[0]!) && startsWith(rest.slice(1), makeTokens)))) rest = rest.slice(1);
  if (startsWith(rest, makeTokens)) rest = rest.slice(makeTokens.length);
  let model: string | null = null;
  let name: string | null = null;
  if (r.model) {
    const candidates = [r.model, modelWithoutPrefix(r.model, r.make)];
    const found = candidates.find((m) => {
      const t = slugTokens(m);
      return startsWith(rest, t) && rest.length > t.length;
    });
    if (found) {
      rest = rest.slice(slugTokens(found).length);
      model = found;
    } else {
      // no model before the type: the listing's whole name stands in `model`
      name = r.model;
    }
  }
  return { itemType: rest.filter((t) => t !== 'unused').join('-'), unused, model, name };
}

/** RB's catalog suffixes that say where a lot was filed, not what it is. */
const CATALOG_SUFFIX = /-?(?:miscellaneous-industrial-other|miscellaneous-crane-other)$/;
const GEN_SET_BUCKET = /-(?:\d+-\d+-kw\d+-\d+-kva|10-kw-or-125-kva|750-kw950-kva)$/;

const QUANTITY = /^(?:quantity|qty)-of\b|(?:^|-)(?:quantity|qty)-of-/;
const SITE_GOODS = /(?:^|-)(?:site-fences?|fences?|fencing|highway-cones|cones|road-signs|signs?|traffic-controls|barricades?|bollards|job-site-box(?:es)?|electrical-supplies|safety-supplies|first-aid-supplies|contractor-supplies|steel|scaffolding|storage-canopy|container-storage-canopy|pony-board|federal-excise-tax)$/;
const PARTS = /(?:^|-)(?:partsstationary(?:-[a-z]+)*|parts-only)(?:-|$)/;

/** Rules the crawler's category words lack or get wrong for results names, tried first. */
const RB_RULES: [CategoryName | null, RegExp, string?][] = [
  // shop, bridge and gantry cranes are workshop hoists, not mobile cranes
  [null, /(?:^|-)(?:shop|bridge|gantry|engine|platform|jib)-cranes?(?:-|$)/],
  // utility vehicles (RB's "personnel carrier"), attachments named after what they fit
  [null, /(?:^|-)(?:personnel-carriers?|attachments?|fits)(?:-|$)/],
  ['Compactors', /(?:^|-)(?:jumping-jacks?|rammers?)(?:-|$)/, 'rammer'],
  ['Compactors', /(?:^|-)plate-compactors?(?:-|$)/, 'plate'],
  ['Compactors', /(?:^|-)trench-compactors?(?:-|$)/, 'trench'],
  ['Compactors', /(?:^|-)(?:\d+-wheel|pneumatic|walk-behind|tandem|vibratory|padfoot|smooth-drum|combination|static)?-?rollers?(?:-|$)|padfoot-compactor|vibratory-compactor|soil-compactor|landfill-compactor/, 'roller'],
  ['Dump Trucks', /(?:^|-)articulated-dump-trucks?(?:-|$)/, 'articulated'],
  ['Dump Trucks', /(?:^|-)(?:rock-trucks?|off-highway-(?:dump-)?trucks?|rigid-(?:frame-)?(?:dump-)?trucks?)(?:-|$)/, 'off-highway'],
  ['Dump Trucks', /(?:^|-)dump-trucks?(?:-|$)/, 'on-road'],
  ['Wheel Loaders', /(?:^|-)integrated-tool-carriers?(?:-|$)/],
];

/** Machines filed under Other that these results sell (besides West's trucks, trailers, forklifts, lifts, tractors). */
const OTHER_KINDS: [string, RegExp][] = [
  ['loader', /(?:^|-)(?:crawler-loaders?|skip-loaders?)(?:-|$)/],
  ['scraper', /(?:^|-)scrapers?(?:-|$)/],
  ['carrier', /(?:^|-)(?:crawler-dumpers?|crawler-carriers?|tracked-carriers?|dumpers?)(?:-|$)/],
  ['sweeper', /(?:^|-)(?:sweepers?|brooms?|broom-tractors?)(?:-|$)/],
  ['water wagon', /(?:^|-)water-(?:wagons?|trucks?|tankers?)(?:-|$)/],
  ['paver', /(?:^|-)(?:pavers?|asphalt-pavers?|cold-planers?|milling-machines?|road-wideners?)(?:-|$)/],
  ['trencher', /(?:^|-)(?:trenchers?|boring-machines?|directional-drills?|pipelayers?)(?:-|$)/],
];

export type RbMachine = { categoryId: number; kind: string; sub?: { key: 'dump_kind' | 'compactor_kind'; value: string } };

/** The type of an item (the slug tail), and under Other the kind; or why it is not a machine. */
export function rbMachine(itemType: string): RbMachine | { skip: RbImportSkip } {
  // filed under "Miscellaneous Industrial - Other": small goods unless its words name one of the ten types
  const industrial = /-?miscellaneous-industrial-other$/.test(itemType);
  const type = itemType.replace(CATALOG_SUFFIX, '');
  if (QUANTITY.test(type)) return { skip: 'quantity-lot' };
  if (PARTS.test(type)) return { skip: 'parts-or-stationary' };
  if (!type || SITE_GOODS.test(type)) return { skip: 'site-goods' };
  for (const [name, pattern, sub] of RB_RULES) {
    if (!pattern.test(type)) continue;
    if (name === null) return { skip: 'not-a-machine' };
    const categoryId = categoryIdByName(name)!;
    const key = name === 'Dump Trucks' ? 'dump_kind' : name === 'Compactors' ? 'compactor_kind' : undefined;
    return { categoryId, kind: 'machine', ...(key && sub ? { sub: { key, value: sub } } : {}) };
  }
  // "plus", "with" in a type name ("VHP Plus Motor Grader") are not the attachments the crawler's words split off
  const words = type.replace(GEN_SET_BUCKET, '').replace(/(?:^|-)(?:plus|with|w)(?=-|$)/g, '').replace(/-/g, ' ');
  // crawler and skip loaders are not wheel loaders: the kinds are read before the crawler's words
  if (!industrial) for (const [kind, pattern] of OTHER_KINDS) if (pattern.test(type)) return { categoryId: OTHER_CATEGORY_ID, kind };
  const categoryId = categoryIdFor(words);
  if (categoryId !== OTHER_CATEGORY_ID) return { categoryId, kind: 'machine' };
  if (industrial) return { skip: 'not-a-machine' };
  // West's machine kinds under Other (trucks, trailers, forklifts, aerial lifts, tractors)
  const west = westMachine(words);
  if (west && west.categoryId === OTHER_CATEGORY_ID) return { categoryId: OTHER_CATEGORY_ID, kind: west.kind };
  return { skip: 'not-a-machine' };
}

/**
 * A number the slug states, with the decimal point the listed model or name kept and the slug
 * dropped: slug `36-kw` with model `GA-3.6HA` is 3.6, slug `75-ton` with model `7.5` is 7.5.
 */
function slugNumber(digits: string, listed: string): number {
  for (const m of listed.matchAll(/\d+\.\d+/g)) if (m[0].replace('.', '') === digits) return Number(m[0]);
  return Number(digits);
}

/** Sizes the name states, as numbers: generator kVA, crane tons, mini-excavator tonnage class. */
export function rbSizes(item: Pick<RbItem, 'itemType' | 'name' | 'model'>, categoryId: number): Record<string, number> {
  const sizes: Record<string, number> = {};
  const type = item.itemType.replace(GEN_SET_BUCKET, '');
  const listed = `${item.model ?? ''} ${item.name ?? ''}`;
  if (categoryId === categoryIdByName('Generators')) {
    // the listed name keeps its decimal points; its "(10-249 Kw/12.5-310 Kva)" is the catalog's bucket
    const text = (item.name ?? '').toLowerCase().replace(/\(.*$/, '');
    const namedKva = /(\d+(?:\.\d+)?)\s*kva\b/.exec(text);
    const namedKw = /(\d+(?:\.\d+)?)\s*kw\b/.exec(text);
    const kva = /(?:^|-)(\d+)-kva(?:-|$)/.exec(type);
    const kw = /(?:^|-)(\d+)-kw(?:-|$)/.exec(type);
    const w = /(?:^|-)(\d{3,6})-(?:w|watts?)(?:-|$)/.exec(type);
    const value = namedKva
      ? Number(namedKva[1])
      : namedKw
        ? Number(namedKw[1]) * 1.25
        : kva
          ? slugNumber(kva[1]!, listed)
          : kw
            ? slugNumber(kw[1]!, listed) * 1.25
            : w
              ? (Number(w[1]) / 1000) * 1.25
              : null;
    if (value !== null && value > 0 && value < 5000) sizes.kva = Math.round(value * 10) / 10;
  } else if (categoryId === categoryIdByName('Cranes')) {
    const tons = /(?:^|-)(\d+)-tons?(?:-|$)/.exec(type);
    const lb = /(?:^|-)(\d+)-lbs?(?:-|$)/.exec(type);
    const value = tons ? slugNumber(tons[1]!, listed) : lb ? Number(lb[1]) / 2000 : null;
    if (value !== null && value > 0 && value <= 2000) sizes.tons = Math.round(value * 10) / 10;
  } else if (categoryId === categoryIdByName('Excavators')) {
    // RB's classes: mini "1 - 4.9 tons", midi "5 - 9.9 tons" (the slug reads 1-49, 5-99)
    const cls = /(?:mini|midi)-excavator-(\d+)-\d+-tons?/.exec(type);
    if (cls) sizes.tons_class = Number(cls[1]);
  }
  return sizes;
}

/** Words kept in capitals in a title. */
const CAPS = new Set(['lgp', 'awd', 'vhp', 'xps', 'xl', 'lc', 'ta', 'sa', 'ctl', 'cr', 'vg', 'xr', 'xe', 'lt', 'wt', 'hd', 'zts', 'crsb', 'ii', 'iii', 'iv']);
const UNITS: Record<string, string> = { kw: 'kW', kva: 'kVA', w: 'W', lb: 'lb', lbs: 'lb', ft: 'ft', in: 'in', gal: 'gal' };

/** Slug words as the item type in a title: `two-speed-compact-track-loader` → `Two Speed Compact Track Loader`. */
function typeWords(itemType: string, listed: string): string {
  const type = itemType.replace(CATALOG_SUFFIX, '').replace(GEN_SET_BUCKET, '').replace(/(?:mini|midi)-excavator-\d+-\d+-tons?$/, (m) => m.split('-').slice(0, 2).join('-'));
  return slugTokens(type)
    .filter((t) => t !== 'inoperable')
    .map((t) => (UNITS[t] ? UNITS[t] : CAPS.has(t) ? t.toUpperCase() : /^\d+$/.test(t) ? String(slugNumber(t, listed)) : /^\d/.test(t) ? t : t[0]!.toUpperCase() + t.slice(1)))
    .join(' ');
}

/** A listed make as the adapter shows it: the canonical spelling when known (`CAT` → Caterpillar), else title case (`HUBBELL CHANCE` → Hubbell Chance; `FF`, `SDMO` stay). */
export function rbMake(make: string | null): string | null {
  if (!make) return null;
  const known = canonicalMake(make);
  if (known && known.toLowerCase() !== make.trim().replace(/\s+/g, ' ').toLowerCase()) return known;
  const cased = make
    .trim()
    .replace(/\s+/g, ' ')
    .split(' ')
    .map((word) =>
      word
        .split('-')
        .map((w) => (w.length <= 2 || !/[aeiouy]/i.test(w) ? w.toUpperCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase()))
        .join('-'),
    )
    .join(' ');
  return canonicalMake(cased) ?? cased;
}

export type RbSoldResult = ImportedSoldResult;

/** A priced machine lot as a sold_results row, or why it is not one. */
export function rbAuctionToSoldResult(r: RbAuctionRecord): RbSoldResult | { skip: RbImportSkip } {
  if (r.price === null) return { skip: 'no-price' };
  const item = rbItem(r);
  const machine = rbMachine(item.itemType);
  if ('skip' in machine) return machine;
  const parsed = item.name ? parseTitle(item.name, r.saleDate) : null;
  const make = rbMake(r.make) ?? parsed?.make ?? null;
  // a model read from the name is no model when it is the start of the type's words ("18 kW Mobile Gen Set")
  const parsedModel = parsed?.model && !startsWith(slugTokens(item.itemType), slugTokens(parsed.model)) ? parsed.model : null;
  const model = item.model ?? parsedModel;
  const inoperable = /(?:^|-)inoperable(?:-|$)/.test(item.itemType) || /\binoperable\b/i.test(item.name ?? '');
  const kind = typeWords(item.itemType, `${item.model ?? ''} ${item.name ?? ''}`);
  const title = [r.year, make, model, kind].filter((p) => p !== null && p !== '').join(' ') + (inoperable ? ' (Inoperable)' : '') + (item.unused ? ' (Unused)' : '');
  const attributes: Record<string, string | number> = {
    source: RBAUCTION_SOURCE,
    market: RBAUCTION_MARKET,
    item_type: item.itemType.slice(0, 80),
    machine_kind: machine.kind,
    ...rbSizes(item, machine.categoryId),
  };
  if (machine.sub) attributes[machine.sub.key] = machine.sub.value;
  // the same value a listing's "(Unused)" title gets (score-listing.ts), so both read alike
  if (item.unused) attributes.unused = 'yes';
  if (inoperable) attributes.inoperable = 'yes';
  return {
    origin: RBAUCTION_ORIGIN,
    externalId: r.invId,
    title: title.slice(0, 200),
    make,
    model,
    modelFamily: modelFamily(model),
    year: r.year,
    hours: r.hours,
    condition: null,
    categoryId: machine.categoryId,
    state: r.state,
    saleChannel: RBAUCTION_SALE_CHANNEL,
    soldAt: r.saleDate,
    price: r.price,
    currency: 'USD',
    url: r.url,
    attributes,
  };
}

/** The lot as a training sale (the same fields the importer stores); null when it is not a machine sale. */
export function rbAuctionToSale(r: RbAuctionRecord): TrainingSale | null {
  const row = rbAuctionToSoldResult(r);
  return 'skip' in row ? null : importedSale(row);
}
