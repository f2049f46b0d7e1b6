/**
 * `npm run seed -- --count N [--database-url URL] [--seed S]`: fills a database with N realistic
 * listings for benchmarks and demos of scale. Make, model, year, hours, price and location are
 * drawn from the real records in ../shared/data (Fast Iron auction sales, West Auctions lots, the
 * UCF tractor sales); the lots belong to clearly labelled benchmark sources (`bench-*`, disabled).
 *
 * SYNTHETIC SCORES: the deal_score written here is random, not the scorer's. This is the one
 * place in the product where a score does not come from the scorer, and it only ever writes to
 * the benchmark sources' listings. Valuation columns are left empty.
 *
 * Fast path: rows go in with COPY in batches; on a large load into an empty listings table the
 * secondary indexes are dropped first and rebuilt after (the usual bulk-load practice), from the
 * exact definitions the migrations created.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import cliProgress from 'cli-progress';
import { parse } from 'csv-parse';
import postgres from 'postgres';
import { openSql } from '../services/shared/database/connection-url.js';
import { categoryIdByName, OTHER_CATEGORY_ID } from '../services/shared/categories.js';
import { loadConfig } from '../services/shared/config.js';
import { runMigrations } from '../services/shared/database/db.js';
import { findRunningEmbeddedPostgres, startEmbeddedPostgres } from '../services/shared/database/embedded-postgres.js';
import { readFastIron, readSalePrices } from '../services/shared/datasets/fastiron.js';
import { listingSlug } from '../services/shared/slug.js';
import { geocode, lookupZip, zipsOfState } from '../services/shared/geo/gazetteer.js';
import { toStateCode, US_STATES } from '../services/shared/us-states.js';
import { seededRandom } from '../services/shared/seeded-random.js';
import { missingSharedDataMessage, requireSharedData } from './cli/shared-data.js';

/** A lot to copy from: a real record's identity, with its real price as the price anchor. */
export type LotTemplate = {
  categoryId: number;
  make: string;
  model: string;
  modelFamily: string | null;
  year: number | null;
  hours: number | null;
  state: string | null;
  city: string | null;
  price: number;
  description: string;
  noun: string;
};

export const BENCH_SOURCES = [
  { name: 'bench-ironplanet', displayName: 'IronPlanet (benchmark)' },
  { name: 'bench-govdeals', displayName: 'GovDeals (benchmark)' },
  { name: 'bench-gsaauctions', displayName: 'GSA Auctions (benchmark)' },
  { name: 'bench-westauction', displayName: 'West Auctions (benchmark)' },
  { name: 'bench-proxibid', displayName: 'Proxibid (benchmark)' },
  { name: 'bench-equipmentfacts', displayName: 'EquipmentFacts (benchmark)' },
];

/** Fast Iron has no manufacturer column: the make follows from well-known model-code families. */
const MAKE_RULES: Array<[number, RegExp, string]> = [
  [1, /^(3\d\d|M3\d\d)/, 'Caterpillar'],
  [1, /^PC/, 'Komatsu'],
  [1, /^(ZX|EX)/, 'Hitachi'],
  [1, /^EC/, 'Volvo'],
  [1, /^(CX|9\d{3})/, 'Case'],
  [1, /^\d{2,3}[CDGP]/, 'John Deere'],
  [1, /^(SK|SH)/, 'Kobelco'],
  [2, /^D\d[A-Z]?/, 'Caterpillar'],
  [2, /^D\d\d/, 'Komatsu'],
  [2, /^(450|550|650|700|750|850|1050)/, 'John Deere'],
  [2, /^(1150|1650|850)/, 'Case'],
  [3, /^(9\d\d|IT)/, 'Caterpillar'],
  [3, /^WA/, 'Komatsu'],
  [3, /^L\d/, 'Volvo'],
  [3, /^(444|544|624|644|724|744|824)/, 'John Deere'],
  [3, /^(521|621|721|821)/, 'Case'],
  [4, /^(310|410|710)/, 'John Deere'],
  [4, /^(416|420|426|428|430|436|438|446)/, 'Caterpillar'],
  [4, /^(580|590)/, 'Case'],
  [4, /^(3CX|4CX|214|215)/, 'JCB'],
  [5, /^[ST]\d/, 'Bobcat'],
  [5, /^(216|226|232|236|242|246|252|262|268|272)/, 'Caterpillar'],
  [5, /^(SR|TR|SV|TV|\d{2}XT)/, 'Case'],
  [5, /^(3\d\d|2\d\d)/, 'John Deere'],
  [5, /^(L\d|LS|LX|C\d)/, 'New Holland'],
  [10, /^(1\d\dH|1[246]H|1[246]G|1\d\dM|1[246]M)/, 'Caterpillar'],
  [10, /^GD/, 'Komatsu'],
  [10, /^(670|672|770|772|872)/, 'John Deere'],
];

const FALLBACK_MAKES: Record<number, string[]> = {
  1: ['Caterpillar', 'Komatsu', 'John Deere', 'Hitachi', 'Volvo', 'Case', 'Kobelco'],
  2: ['Caterpillar', 'Komatsu', 'John Deere', 'Case', 'Dressta'],
  3: ['Caterpillar', 'Komatsu', 'John Deere', 'Volvo', 'Case', 'Kawasaki'],
  4: ['John Deere', 'Caterpillar', 'Case', 'JCB', 'New Holland'],
  5: ['Bobcat', 'Caterpillar', 'Case', 'John Deere', 'New Holland', 'Gehl'],
  10: ['Caterpillar', 'John Deere', 'Komatsu', 'Volvo'],
};

const NOUNS: Record<number, string> = {
  1: 'Hydraulic Excavator', 2: 'Crawler Dozer', 3: 'Wheel Loader', 4: 'Backhoe Loader', 5: 'Skid Steer Loader',
  6: 'Crane', 7: 'Dump Truck', 8: 'Generator', 9: 'Compactor', 10: 'Motor Grader', 11: 'Equipment',
};

/** One or two real cities per state, for `location` filters by city. */
const CITIES: Record<string, string[]> = {
  AL: ['Birmingham', 'Montgomery'], AK: ['Anchorage'], AZ: ['Phoenix', 'Tucson'], AR: ['Little Rock'],
  CA: ['Sacramento', 'Fresno', 'Los Angeles'], CO: ['Denver', 'Grand Junction'], CT: ['Hartford'], DE: ['Dover'],
  FL: ['Tampa', 'Orlando', 'Jacksonville'], GA: ['Atlanta', 'Savannah'], HI: ['Honolulu'], ID: ['Boise'],
  IL: ['Chicago', 'Peoria'], IN: ['Indianapolis'], IA: ['Des Moines', 'Cedar Rapids'], KS: ['Wichita'],
  KY: ['Louisville', 'Lexington'], LA: ['Baton Rouge', 'Shreveport'], ME: ['Bangor'], MD: ['Baltimore'],
  MA: ['Worcester'], MI: ['Grand Rapids', 'Detroit'], MN: ['Minneapolis', 'Duluth'], MS: ['Jackson'],
  MO: ['Kansas City', 'St. Louis'], MT: ['Billings'], NE: ['Omaha', 'Lincoln'], NV: ['Reno', 'Las Vegas'],
  NH: ['Manchester'], NJ: ['Newark'], NM: ['Albuquerque'], NY: ['Albany', 'Buffalo'], NC: ['Charlotte', 'Raleigh'],
  ND: ['Fargo', 'Bismarck'], OH: ['Columbus', 'Toledo'], OK: ['Oklahoma City', 'Tulsa'], OR: ['Portland', 'Eugene'],
  PA: ['Pittsburgh', 'Harrisburg'], RI: ['Providence'], SC: ['Columbia'], SD: ['Sioux Falls'], TN: ['Nashville', 'Memphis'],
  TX: ['Houston', 'Dallas', 'San Antonio', 'Lubbock'], UT: ['Salt Lake City'], VT: ['Burlington'], VA: ['Richmond'],
  WA: ['Spokane', 'Seattle'], WV: ['Charleston'], WI: ['Milwaukee', 'Madison'], WY: ['Casper'], DC: ['Washington'],
};
const STATE_CODES = Object.keys(US_STATES);
const CONDITIONS = ['New', 'Like New', 'Good', 'Good', 'Good', 'Fair', 'Fair', 'Poor', 'Parts Only'];

/** The shared seeded PRNG, so a given --seed always yields the same database. */
export const prng = seededRandom;

export function makeForModel(categoryId: number, model: string, pick: () => number): string {
  const upper = model.toUpperCase();
  for (const [cat, pattern, make] of MAKE_RULES) if (cat === categoryId && pattern.test(upper)) return make;
  const options = FALLBACK_MAKES[categoryId] ?? ['Caterpillar'];
  return options[Math.floor(pick() * options.length)]!;
}

function describeAttributes(attributes: Record<string, string>): string {
  const parts = Object.entries(attributes)
    .filter(([k]) => !['UsageBand', 'fiModelDesc'].includes(k))
    .slice(0, 8)
    .map(([k, v]) => `${k.replace(/_/g, ' ').replace(/^fi/, '')}: ${v}`);
  return parts.join('. ');
}

async function* csvRows(file: string): AsyncGenerator<Record<string, string>> {
  const input = createReadStream(file);
  const source = file.endsWith('.gz') ? input.pipe(createGunzip()) : input;
  yield* source.pipe(parse({ columns: true, bom: true, relax_column_count: true, skip_empty_lines: true })) as AsyncIterable<Record<string, string>>;
}

const KEYWORD_CATEGORIES: Array<[RegExp, string]> = [
  [/generator|genset/i, 'Generators'],
  [/dump truck|dump body|\bdump\b/i, 'Dump Trucks'],
  [/crane|boom truck/i, 'Cranes'],
  [/compactor|roller|plate tamper/i, 'Compactors'],
  [/excavator/i, 'Excavators'],
  [/backhoe/i, 'Backhoe Loaders'],
  [/skid steer/i, 'Skid Steers'],
  [/loader/i, 'Wheel Loaders'],
];

/** Reads the real records once into lot templates (about 30k). */
export async function loadTemplates(sharedDir: string): Promise<LotTemplate[]> {
  const templates: LotTemplate[] = [];
  const pick = prng(7);
  const bulldozers = path.join(sharedDir, 'data/bulldozers');
  const prices = await readSalePrices(path.join(bulldozers, 'ValidSolution_2012-01_to_02.csv'));
  const byCategoryPrices = new Map<number, number[]>();
  const fastIron: Array<{ t: Omit<LotTemplate, 'price'>; price: number | null }> = [];
  for (const file of ['Train_first10931rows.csv.gz', 'Valid.csv.gz', 'Test.csv.gz']) {
    for await (const r of readFastIron(path.join(bulldozers, file), { prices })) {
      if (!r.categoryId || !r.modelDesc) continue;
      const make = makeForModel(r.categoryId, r.modelDesc, pick);
      if (r.salePrice) (byCategoryPrices.get(r.categoryId) ?? byCategoryPrices.set(r.categoryId, []).get(r.categoryId)!).push(r.salePrice);
      fastIron.push({
        t: {
          categoryId: r.categoryId,
          make,
          model: r.modelDesc,
          modelFamily: r.baseModel,
          year: r.yearMade,
          hours: r.hours,
          state: r.state,
          city: null,
          description: describeAttributes(r.attributes),
          noun: NOUNS[r.categoryId]!,
        },
        price: r.salePrice,
      });
    }
  }
  for (const { t, price } of fastIron) {
    // Test.csv carries no prices: borrow a real sale price of the same category.
    const pool = byCategoryPrices.get(t.categoryId)!;
    templates.push({ ...t, price: price ?? pool[Math.floor(pick() * pool.length)]! });
  }

  for await (const row of csvRows(path.join(sharedDir, 'data/westauction_lots/westauction_lots.csv.gz'))) {
    const bid = Number(row.high_bid_usd);
    const year = Number(row.year);
    if (!row.title || !Number.isFinite(bid) || bid < 500) continue;
    const category = KEYWORD_CATEGORIES.find(([re]) => re.test(row.title!))?.[1];
    if (!category && !(year > 1950)) continue;
    const categoryId = category ? categoryIdByName(category)! : OTHER_CATEGORY_ID;
    const titleWords = row.title.trim().split(/\s+/);
    const make = row.make?.trim() || titleWords.find((w) => /^[A-Z][a-z]+$/.test(w) && !/^\d/.test(w)) || 'Unbranded';
    const model = row.model?.trim() || titleWords.slice(1, 3).join(' ');
    templates.push({
      categoryId,
      make,
      model: model.slice(0, 40),
      modelFamily: null,
      year: year > 1950 && year < 2030 ? year : null,
      hours: Number(row.hours) > 0 ? Math.round(Number(row.hours)) : null,
      state: toStateCode(row.state) ?? null,
      city: row.city?.trim() || null,
      price: bid,
      description: (row.description_text ?? '').slice(0, 600),
      noun: category ? NOUNS[categoryId]! : '',
    });
  }

  for await (const row of csvRows(path.join(sharedDir, 'data/tractor_sales_ucf/TRACTOR7.csv'))) {
    const price = Number(row.saleprice);
    if (!(price > 0)) continue;
    const hp = Number(row.horsepower);
    const make = row.johndeere === '1' ? 'John Deere' : ['Kubota', 'Massey Ferguson', 'New Holland', 'Case IH'][Math.floor(pick() * 4)]!;
    templates.push({
      categoryId: OTHER_CATEGORY_ID,
      make,
      model: `${hp} HP Tractor`,
      modelFamily: null,
      year: 2024 - Number(row.age),
      hours: Number(row.enghours) > 0 ? Math.round(Number(row.enghours)) : null,
      state: null,
      city: null,
      price,
      description: `${hp} horsepower farm tractor${row.cab === '1' ? ' with cab' : ''}${row.fwd === '1' ? ', front-wheel assist' : ''}${row.diesel === '1' ? ', diesel' : ''}.`,
      noun: 'Tractor',
    });
  }
  return templates;
}

const COPY_COLUMNS = [
  'source_id', 'external_id', 'slug', 'title', 'make', 'model', 'model_family', 'year', 'hours', 'condition',
  'description', 'category_id', 'city', 'state', 'currency', 'asking_price', 'current_bid', 'bid_count', 'price',
  'price_usd', 'status', 'auction_end_at', 'original_url', 'image_count', 'first_image_url', 'deal_score',
  'zip', 'lat', 'lon', 'geo_precision', 'fair_value', 'buyers_premium_pct', 'good_bid_limit',
];

/**
 * Where a benchmark lot is, as the crawl store would place it: a third by a ZIP code of its state
 * (so the index holds tens of thousands of distinct places, as real sources give), the others by
 * their city or, without one, their state's centroid.
 */
function placeOf(state: string, city: string | null, r: () => number): [string | null, number | null, number | null, string] {
  const zips = zipsOfState(state);
  if (zips.length > 0 && r() < 0.33) {
    const zip = zips[Math.floor(r() * zips.length)]!;
    const at = lookupZip(zip)!;
    return [zip, at.lat, at.lon, 'zip'];
  }
  const at = geocode({ city, state });
  return at ? [null, at.lat, at.lon, at.precision] : [null, null, null, 'none'];
}

function tsv(value: string | number | null): string {
  if (value === null) return '\\N';
  if (typeof value === 'number') return String(value);
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** The i-th benchmark lot as one COPY text line. Deterministic in (seed, i). */
export function lotLine(i: number, templates: LotTemplate[], sources: Array<{ id: number; name: string }>, seed: number, now: number): string {
  const r = prng(seed * 1_000_003 + i);
  const t = templates[Math.floor(r() * templates.length)]!;
  const source = sources[i % sources.length]!;
  const externalId = `lot-${i}`;
  const state = t.state ?? STATE_CODES[Math.floor(r() * STATE_CODES.length)]!;
  const cities = CITIES[state] ?? [];
  const city = t.city ?? (cities.length > 0 ? cities[Math.floor(r() * cities.length)]! : null);
  const year = t.year !== null ? t.year + Math.floor(r() * 5) - 2 : null;
  const hours = t.hours !== null ? Math.max(1, Math.round(t.hours * (0.6 + r() * 0.8))) : r() < 0.3 ? Math.round(r() * 12000) : null;
  const asking = Math.round((t.price * (0.5 + r() * 1.1)) / 50) * 50;
  const ended = r() < 0.08;
  const hasBids = r() < 0.6;
  const bidCount = hasBids ? 1 + Math.floor(r() * 30) : 0;
  const currentBid = hasBids ? Math.round((asking * (0.3 + r() * 0.9)) / 25) * 25 : null;
  const priceOnRequest = !hasBids && r() < 0.03;
  const price = priceOnRequest ? null : (currentBid ?? asking);
  const endAt = ended ? now - r() * 30 * 86400_000 : r() < 0.03 ? null : now + 3600_000 + r() * 30 * 86400_000;
  // SYNTHETIC (benchmark only): a random score with a realistic spread; 12% unscored.
  const score = r() < 0.12 ? null : Math.min(1000, Math.max(0, Math.round(520 + (r() + r() + r() - 1.5) * 420)));
  const imageCount = Math.floor(r() * 14);
  const title = [year, t.make, t.model, t.noun].filter(Boolean).join(' ').slice(0, 200);
  const condition = CONDITIONS[Math.floor(r() * CONDITIONS.length)]!;
  // in the order the columns draw them
  const conditionOrNull = r() < 0.7 ? condition : null;
  const status = ended ? (r() < 0.5 ? 'sold' : 'closed') : 'open';
  const place = placeOf(state, city, r);
  // SYNTHETIC (benchmark only), drawn after the rest so earlier columns stay as they were: a fair
  // value for scored lots (higher scores under it), so "worth the trip" keeps some and not others;
  // a stated buyer's premium on two lots in five, as auction houses state 10–15%; an open scored
  // lot's Good bid limit (cards carry it) at about 60% of its fair value before the premium.
  const fairValue = score === null || price === null ? null : Math.round(price * (0.7 + (score / 1000) * 0.8));
  const premium = r() < 0.4 ? [10, 12.5, 15][Math.floor(r() * 3)]! : null;
  const goodLimit = fairValue === null || ended ? null : Math.floor((fairValue * 0.6) / (1 + (premium ?? 0) / 100));
  const values: Array<string | number | null> = [
    source.id, externalId, listingSlug(title, source.name, externalId), title, t.make, t.model, t.modelFamily, year, hours,
    conditionOrNull, t.description, t.categoryId, city, state, 'USD', asking, currentBid, bidCount, price, price,
    status, endAt === null ? null : new Date(endAt).toISOString(),
    `https://bench.invalid/${source.name}/lots/${i}`, imageCount,
    imageCount > 0 ? `https://bench.invalid/${source.name}/lots/${i}/1.jpg` : null, score,
    ...place,
    fairValue,
    premium,
    goodLimit,
  ];
  return `${values.map(tsv).join('\t')}\n`;
}

export type SeedOptions = {
  count: number;
  sharedDir: string;
  seed?: number;
  log?: (line: string) => void;
  batchSize?: number;
  /** Called as rows are written (every few hundred lots): how many so far, of how many. */
  onProgress?: (written: number, total: number) => void;
};

/** Replaces the benchmark sources' listings with `count` new ones. Returns the seconds it took. */
export async function seedListings(sql: postgres.Sql, opts: SeedOptions): Promise<number> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const seed = opts.seed ?? 1;
  const templates = await loadTemplates(opts.sharedDir);
  log(`loaded ${templates.length} lot templates from ${opts.sharedDir}/data`);

  const sources: Array<{ id: number; name: string }> = [];
  for (const s of BENCH_SOURCES) {
    const [row] = await sql<Array<{ id: number; name: string }>>`
      INSERT INTO sources (name, display_name, base_url, enabled, settings)
      VALUES (${s.name}, ${s.displayName}, ${`https://bench.invalid/${s.name}`}, false, ${sql.json({ benchmark: true })})
      ON CONFLICT (name) DO UPDATE SET display_name = EXCLUDED.display_name
      RETURNING id, name`;
    sources.push(row!);
  }
  const sourceIds = sources.map((s) => s.id);
  await sql`DELETE FROM listings WHERE source_id = ANY(${sourceIds})`;

  const [{ n: others } = { n: 0 }] = await sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM listings`;
  const bulk = others === 0 && opts.count >= 50_000;
  let indexDefs: Array<{ indexname: string; indexdef: string }> = [];
  if (bulk) {
    indexDefs = await sql<Array<{ indexname: string; indexdef: string }>>`
      SELECT i.indexname, i.indexdef FROM pg_indexes i
      WHERE i.schemaname = 'public' AND i.tablename = 'listings'
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`;
    for (const d of indexDefs) await sql.unsafe(`DROP INDEX "${d.indexname}"`);
    log(`bulk load: dropped ${indexDefs.length} secondary indexes, will rebuild them`);
  }

  const now = Date.now();
  const batch = opts.batchSize ?? 100_000;
  try {
    for (let from = 0; from < opts.count; from += batch) {
      const to = Math.min(opts.count, from + batch);
      const writable = await sql.unsafe(`COPY listings (${COPY_COLUMNS.join(', ')}) FROM STDIN`).writable();
      async function* lines(): AsyncGenerator<string> {
        let chunk = '';
        for (let i = from; i < to; i++) {
          chunk += lotLine(i, templates, sources, seed, now);
          if (chunk.length > 1 << 16) {
            yield chunk;
            chunk = '';
            opts.onProgress?.(i + 1, opts.count);
          }
        }
        if (chunk) yield chunk;
        opts.onProgress?.(to, opts.count);
      }
      await pipeline(Readable.from(lines()), writable);
      log(`copied ${to.toLocaleString('en-US')} / ${opts.count.toLocaleString('en-US')} listings (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
  } finally {
    if (bulk) {
      await sql`SET maintenance_work_mem = '512MB'`;
      for (const d of indexDefs) {
        await sql.unsafe(d.indexdef);
        log(`rebuilt ${d.indexname} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
  }
  await sql`VACUUM (ANALYZE) listings`;
  await sql`VACUUM (ANALYZE) listing_search_terms`;
  const seconds = (Date.now() - started) / 1000;
  log(`seeded ${opts.count.toLocaleString('en-US')} listings in ${seconds.toFixed(0)} s`);
  return seconds;
}

const USAGE = 'Usage: npm run seed -- --count <N> [--seed <S>] [--database-url <URL>]   (1 ≤ N ≤ 20,000,000)\n';

/** A bar on a terminal; elsewhere (a log, CI) a line every tenth of the way. */
function progressReporter(): { update(written: number, total: number): void; stop(): void } {
  if (process.stdout.isTTY) {
    const bar = new cliProgress.SingleBar({ format: 'listings [{bar}] {percentage}% | {value}/{total} | {duration_formatted}', hideCursor: true }, cliProgress.Presets.shades_classic);
    let started = false;
    return {
      update(written, total) {
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(written);
      },
      stop: () => started && bar.stop(),
    };
  }
  let lastTenth = 0;
  return {
    update(written, total) {
      const tenth = Math.floor((10 * written) / total);
      if (tenth > lastTenth) process.stdout.write(`${(10 * tenth).toString().padStart(3)}%  ${written.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} listings\n`);
      lastTenth = Math.max(lastTenth, tenth);
    },
    stop() {},
  };
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        count: { type: 'string' },
        'database-url': { type: 'string' },
        seed: { type: 'string', default: '1' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    // node:util's own message (unknown option, missing value), then the usage.
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}Fills the database with N synthetic benchmark listings (sources bench-*, disabled), replacing earlier ones.\n`);
    return 0;
  }
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1 || count > 20_000_000) {
    process.stderr.write(USAGE);
    return 2;
  }
  const config = loadConfig();
  try {
    requireSharedData(config.SHARED_DIR, 'data/bulldozers', 'data/westauction_lots', 'data/tractor_sales_ucf');
  } catch (err) {
    process.stderr.write(missingSharedDataMessage(err, config.SHARED_DIR) ?? `${(err as Error).message}\n`);
    return 1;
  }
  // Beside a running product, its embedded database (as the operator CLI does); else one of our own.
  const running = values['database-url'] || config.DATABASE_URL ? undefined : findRunningEmbeddedPostgres(config.DATA_DIR);
  const embedded = values['database-url'] || config.DATABASE_URL || running ? undefined : await startEmbeddedPostgres({ dataDir: config.DATA_DIR });
  const url = values['database-url'] ?? config.DATABASE_URL ?? running ?? embedded!.url;
  const sql = openSql(url, { max: 1, onnotice: () => {} });
  const progress = progressReporter();
  try {
    await runMigrations(url);
    process.stdout.write(`reading lot templates from ${config.SHARED_DIR}/data…\n`);
    await seedListings(sql, {
      count,
      sharedDir: config.SHARED_DIR,
      seed: Number(values.seed),
      onProgress: (written, total) => progress.update(written, total),
      log: (l) => {
        // Lines between bar updates would tear the bar: they wait for its end.
        if (!process.stdout.isTTY || !/^copied /.test(l)) process.stdout.write(`${l}\n`);
      },
    });
    return 0;
  } finally {
    progress.stop();
    await sql.end({ timeout: 5 });
    await embedded?.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.exit(await main());
}
