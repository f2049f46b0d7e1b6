/**
 * Ritchie Bros. auction results (`../shared/data/rbauction_results/`, see its SOURCE.md), and any
 * file in the same format (`sale_date,year,make,model,hours,price_usd,item_slug,inv_id,auction,url`,
 * plain or .gz): one CSV row per lot as a typed record. What the row means for the valuation (is it
 * a machine, which type, its title) is decided in services/valuation/rbauction-sales.ts.
 *
 * Quirks handled: `hours` 0 = not stated; a few implausible years (2109); make and model upper case
 * and sometimes empty (then `model` may hold the lot's whole name); the state is the two letters
 * before the event number in `auction` (`minneapolis-mn-2023164`).
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import { toStateCode } from '../us-states.js';
import { csvNumber, csvOptional, csvText } from './csv-fields.js';

/** The shipped results file, relative to SHARED_DIR. */
export const RBAUCTION_RESULTS_FILE = path.join('data', 'rbauction_results', 'rbauction-results-2021-09-to-2023-05.csv.gz');

export const RBAUCTION_COLUMNS = ['sale_date', 'year', 'make', 'model', 'hours', 'price_usd', 'item_slug', 'inv_id', 'auction', 'url'] as const;

/** Names are untrusted site text: kept as plain text and bounded. */
const MAX_TEXT = 200;

export type RbAuctionRecord = {
  /** Ritchie Bros.' inventory id (unique per lot). */
  invId: string;
  /** The day it sold, at 00:00 UTC. */
  saleDate: Date;
  /** null when empty or implausible (before 1900, or after the sale's year + 1). */
  year: number | null;
  /** As listed (upper case), null when empty. */
  make: string | null;
  /** As listed, may carry a trim (`PC490LC-11`) or, without a make, the lot's whole name. */
  model: string | null;
  /** null when not stated (0 or empty). For on-road trucks this may be miles. */
  hours: number | null;
  /** Hammer price in USD without the buyer's premium; null when missing or not positive. */
  price: number | null;
  /** The results page's name: `<year>-<make>-<model>-<item type>`. */
  itemSlug: string;
  /** The event: `<city>-<state>-<event number>`. */
  auction: string;
  /** USPS code from the event, or null. */
  state: string | null;
  url: string | null;
};


/** `minneapolis-mn-2023164` → `MN`; null when the event names no US state. */
export function stateOfEvent(auction: string | null | undefined): string | null {
  const m = /(?:^|-)([a-z]{2})-\d+$/i.exec((auction ?? '').trim());
  return m ? (toStateCode(m[1]) ?? null) : null;
}

/** `2023-05-25` → 2023-05-25T00:00:00Z; null for anything else. */
export function parseRbSaleDate(value: string | undefined): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec((value ?? '').trim());
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return Number.isNaN(d.getTime()) || d.getUTCDate() !== Number(m[3]) ? null : d;
}

/** One CSV row (header → value) as a record; null when it has no inventory id or sale day. */
export function toRbAuctionRecord(row: Record<string, string>): RbAuctionRecord | null {
  const invId = csvOptional(row.inv_id, 40);
  const saleDate = parseRbSaleDate(row.sale_date);
  if (!invId || !saleDate) return null;
  const year = csvNumber(row.year);
  const hours = csvNumber(row.hours);
  const price = csvNumber(row.price_usd);
  const auction = csvText(row.auction, 100);
  const url = csvOptional(row.url, 500);
  return {
    invId,
    saleDate,
    year: year !== null && Number.isInteger(year) && year >= 1900 && year <= saleDate.getUTCFullYear() + 1 ? year : null,
    make: csvOptional(row.make, 60),
    model: csvOptional(row.model, MAX_TEXT),
    hours: hours !== null && hours > 0 && hours < 200_000 ? Math.round(hours) : null,
    price: price !== null && price > 0 ? price : null,
    itemSlug: csvText(row.item_slug, 300).toLowerCase(),
    auction,
    state: stateOfEvent(auction),
    url: url && /^https:\/\/(www\.)?rbauction\.com\//.test(url) ? url : null,
  };
}

/**
 * Streams the records of a Ritchie Bros. results CSV (plain or .gz). Rows without an inventory id
 * or sale day are counted in `stats.skipped`. A file whose header lacks the format's columns fails
 * with an error that names them.
 */
export async function* readRbAuction(file: string, opts: { stats?: { rows: number; skipped: number } } = {}): AsyncGenerator<RbAuctionRecord> {
  const input = createReadStream(file);
  const source = file.endsWith('.gz') ? input.pipe(createGunzip()) : input;
  const parser = source.pipe(parse({ columns: true, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true }));
  let checked = false;
  for await (const row of parser as AsyncIterable<Record<string, string>>) {
    if (!checked) {
      const missing = RBAUCTION_COLUMNS.filter((c) => !(c in row));
      if (missing.includes('inv_id') || missing.includes('sale_date') || missing.includes('item_slug') || missing.includes('price_usd')) {
        parser.destroy();
        throw new Error(`${file}: not a Ritchie Bros. results file (missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; expected ${RBAUCTION_COLUMNS.join(',')})`);
      }
      checked = true;
    }
    if (opts.stats) opts.stats.rows++;
    const record = toRbAuctionRecord(row);
    if (!record) {
      if (opts.stats) opts.stats.skipped++;
      continue;
    }
    yield record;
  }
}
