/**
 * The one reader of the Fast Iron / Kaggle "Blue Book for Bulldozers" CSV format, and the one map
 * from its product groups to our categories. Used by the sales importer, the valuation model's
 * evaluation, the demo auction site and the benchmark seeder.
 *
 * Quirks handled (see ../shared/data/bulldozers/SOURCE.md): YearMade 1000 = unknown; hours 0 or
 * empty = not reported; "None or Unspecified" = empty; saledate `M/D/YYYY 0:00`; CRLF or LF;
 * plain or gzip-compressed files.
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import { categoryIdByName } from '../categories.js';
import { toStateCode } from '../us-states.js';

/** Fast Iron product groups → our equipment types. The data covers six of the ten. */
export const PRODUCT_GROUP_CATEGORY: Record<string, string> = {
  TEX: 'Excavators',
  TTT: 'Bulldozers',
  WL: 'Wheel Loaders',
  BL: 'Backhoe Loaders',
  SSL: 'Skid Steers',
  MG: 'Graders',
};

export function categoryIdForProductGroup(group: string | null | undefined): number | undefined {
  const name = group ? PRODUCT_GROUP_CATEGORY[group.trim().toUpperCase()] : undefined;
  return name ? categoryIdByName(name) : undefined;
}

/** The option columns carried as attributes (everything beyond the identity and sale fields). */
export const OPTION_COLUMNS = [
  'UsageBand', 'fiSecondaryDesc', 'fiModelSeries', 'fiModelDescriptor', 'ProductSize', 'fiProductClassDesc',
  'Drive_System', 'Enclosure', 'Forks', 'Pad_Type', 'Ride_Control', 'Stick', 'Transmission', 'Turbocharged',
  'Blade_Extension', 'Blade_Width', 'Enclosure_Type', 'Engine_Horsepower', 'Hydraulics', 'Pushblock', 'Ripper',
  'Scarifier', 'Tip_Control', 'Tire_Size', 'Coupler', 'Coupler_System', 'Grouser_Tracks', 'Hydraulics_Flow',
  'Track_Type', 'Undercarriage_Pad_Width', 'Stick_Length', 'Thumb', 'Pattern_Changer', 'Grouser_Type',
  'Backhoe_Mounting', 'Blade_Type', 'Travel_Controls', 'Differential_Type', 'Steering_Controls',
] as const;

export type FastIronRecord = {
  salesId: string;
  /** Present in training files (and test files that carry it). */
  salePrice: number | null;
  machineId: string | null;
  modelId: string | null;
  datasource: string | null;
  auctioneerId: string | null;
  /** null when unknown (YearMade 1000 or implausible). */
  yearMade: number | null;
  /** null when not reported (0 or empty). */
  hours: number | null;
  saleDate: Date;
  /** e.g. `950FII`. */
  modelDesc: string;
  /** e.g. `950`: the model family. */
  baseModel: string | null;
  /** USPS code, or null ("Unspecified"). */
  state: string | null;
  productGroup: string;
  /** Our category id, or undefined for a product group we do not map. */
  categoryId: number | undefined;
  /** Option columns with a value (empties and "None or Unspecified" dropped). */
  attributes: Record<string, string>;
};

const EMPTY = new Set(['', 'none or unspecified', 'unspecified', '#name?']);

function clean(value: string | undefined): string | null {
  if (value === undefined) return null;
  const v = value.trim();
  return EMPTY.has(v.toLowerCase()) ? null : v;
}

/** `11/16/2006 0:00` → 2006-11-16T00:00:00Z. Also accepts ISO dates. */
export function parseSaleDate(value: string): Date | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(value.trim());
  if (m) return new Date(Date.UTC(Number(m[3]), Number(m[1]) - 1, Number(m[2])));
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** One CSV row (header → value) as a record; null when the row lacks an id or a sale date. */
export function toFastIronRecord(row: Record<string, string>): FastIronRecord | null {
  const salesId = clean(row.SalesID);
  const saleDate = row.saledate ? parseSaleDate(row.saledate) : null;
  if (!salesId || !saleDate) return null;
  const year = Number(row.YearMade);
  const hours = Number(row.MachineHoursCurrentMeter);
  const price = Number(row.SalePrice);
  const attributes: Record<string, string> = {};
  for (const column of OPTION_COLUMNS) {
    const v = clean(row[column]);
    if (v !== null) attributes[column] = v;
  }
  const productGroup = (row.ProductGroup ?? '').trim();
  return {
    salesId,
    salePrice: row.SalePrice !== undefined && row.SalePrice !== '' && Number.isFinite(price) && price > 0 ? price : null,
    machineId: clean(row.MachineID),
    modelId: clean(row.ModelID),
    datasource: clean(row.datasource),
    auctioneerId: clean(row.auctioneerID),
    yearMade: Number.isInteger(year) && year >= 1900 && year <= saleDate.getUTCFullYear() + 1 ? year : null,
    hours: Number.isFinite(hours) && hours > 0 ? Math.round(hours) : null,
    saleDate,
    modelDesc: (row.fiModelDesc ?? '').trim(),
    baseModel: clean(row.fiBaseModel),
    state: toStateCode(row.state) ?? null,
    productGroup,
    categoryId: categoryIdForProductGroup(productGroup),
    attributes,
  };
}

/**
 * Streams the records of a Fast Iron CSV (plain or .gz). Rows without an id or sale date are
 * skipped and counted in `skipped`. `prices` (SalesID → SalePrice, e.g. from ValidSolution.csv)
 * fills in prices for files that do not carry them.
 */
export async function* readFastIron(
  file: string,
  opts: { prices?: Map<string, number>; stats?: { rows: number; skipped: number } } = {},
): AsyncGenerator<FastIronRecord> {
  const input = createReadStream(file);
  const source = file.endsWith('.gz') ? input.pipe(createGunzip()) : input;
  const parser = source.pipe(parse({ columns: true, bom: true, relax_column_count: true, skip_empty_lines: true, trim: false }));
  for await (const row of parser as AsyncIterable<Record<string, string>>) {
    if (opts.stats) opts.stats.rows++;
    const record = toFastIronRecord(row);
    if (!record) {
      if (opts.stats) opts.stats.skipped++;
      continue;
    }
    if (record.salePrice === null && opts.prices) record.salePrice = opts.prices.get(record.salesId) ?? null;
    yield record;
  }
}

/** Reads a `SalesID,SalePrice[,…]` solution file into a map. */
export async function readSalePrices(file: string): Promise<Map<string, number>> {
  const prices = new Map<string, number>();
  const input = createReadStream(file);
  const source = file.endsWith('.gz') ? input.pipe(createGunzip()) : input;
  for await (const row of source.pipe(parse({ columns: true, bom: true, skip_empty_lines: true })) as AsyncIterable<Record<string, string>>) {
    const price = Number(row.SalePrice);
    if (row.SalesID && Number.isFinite(price)) prices.set(row.SalesID.trim(), price);
  }
  return prices;
}
