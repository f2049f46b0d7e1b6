/**
 * West Auctions closed-lot records (`../shared/data/westauction_lots/`, see its SOURCE.md): one
 * CSV row per lot as a typed record. What the row means for the valuation (is it a machine, which
 * type) is decided in services/valuation/westauction-sales.ts.
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import { toStateCode } from '../us-states.js';
import { csvNumber, csvOptional, csvText } from './csv-fields.js';

/**
 * The CSV's `*_time_utc` columns come from the site's unix fields, which run 7,200 s early
 * (SOURCE.md, "Time trap"): add them back.
 */
export const WESTAUCTION_CLOCK_SHIFT_MS = 2 * 3600 * 1000;
/** Titles and descriptions are untrusted site text: kept as plain text and bounded. */
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 1500;

export type WestAuctionRecord = {
  lotId: string;
  auctionId: string;
  title: string;
  make: string | null;
  model: string | null;
  year: number | null;
  hours: number | null;
  odometer: number | null;
  condition: string | null;
  /** Hammer price before premium; null when there was no bid. */
  highBid: number | null;
  bidCount: number;
  buyersPremiumPct: number | null;
  /** True when the lot had closed when the data was collected (its bid is final). */
  closed: boolean;
  endAt: Date | null;
  state: string | null;
  city: string | null;
  description: string;
};


export function toWestAuctionRecord(row: Record<string, string>): WestAuctionRecord | null {
  const lotId = csvOptional(row.lot_id, 40);
  if (!lotId) return null;
  const end = row.end_time_utc ? new Date(row.end_time_utc) : null;
  const year = csvNumber(row.year);
  const hours = csvNumber(row.hours);
  const odometer = csvNumber(row.odometer);
  const bid = csvNumber(row.high_bid_usd);
  const endAt = end && !Number.isNaN(end.getTime()) ? new Date(end.getTime() + WESTAUCTION_CLOCK_SHIFT_MS) : null;
  return {
    lotId,
    auctionId: csvText(row.auction_id, 40),
    title: csvText(row.title, MAX_TITLE),
    make: csvOptional(row.make, 60),
    model: csvOptional(row.model, 60),
    year: year !== null && Number.isInteger(year) && year >= 1900 && year <= (endAt?.getUTCFullYear() ?? 2100) + 1 ? year : null,
    hours: hours !== null && hours > 0 && hours < 200_000 ? Math.round(hours) : null,
    odometer: odometer !== null && odometer > 0 && odometer < 2_000_000 ? Math.round(odometer) : null,
    condition: csvOptional(row.condition, 40),
    highBid: bid !== null && bid > 0 ? bid : null,
    bidCount: Math.max(0, Math.round(csvNumber(row.bid_count) ?? 0)),
    buyersPremiumPct: csvNumber(row.buyer_premium_pct),
    closed: row.closed_before_collection === '1',
    endAt,
    state: toStateCode(row.state) ?? null,
    city: csvOptional(row.city, 60),
    description: csvText(row.description_text, MAX_DESCRIPTION),
  };
}

/** Streams the records of a West Auctions lots CSV (plain or .gz); rows without a lot id are counted in `stats.skipped`. */
export async function* readWestAuction(file: string, opts: { stats?: { rows: number; skipped: number } } = {}): AsyncGenerator<WestAuctionRecord> {
  const input = createReadStream(file);
  const source = file.endsWith('.gz') ? input.pipe(createGunzip()) : input;
  const parser = source.pipe(parse({ columns: true, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true }));
  for await (const row of parser as AsyncIterable<Record<string, string>>) {
    if (opts.stats) opts.stats.rows++;
    const record = toWestAuctionRecord(row);
    if (!record) {
      if (opts.stats) opts.stats.skipped++;
      continue;
    }
    yield record;
  }
}
