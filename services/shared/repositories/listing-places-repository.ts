/**
 * SQL for where listings are (issue 30): the backfill's reads and writes of `lat`, `lon` and
 * `geo_precision` for rows stored before listings were placed at crawl time, and the share of
 * listings placed per source. The crawl store places new and changed lots itself
 * (listing-store-repository.ts, placeListing).
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../database/db.js';
import type { ListingPlace } from '../lots/normalize-listing.js';

export type UnplacedListing = { id: number; zip: string | null; city: string | null; state: string | null; country: string };

/** Rows not tried yet (geo_precision NULL), by id from `afterId`. */
export async function listUntriedPlaces(db: DbOrTx, afterId: number, limit: number): Promise<UnplacedListing[]> {
  return (await db.execute(sql`
    SELECT id, zip, city, state, country FROM listings
    WHERE geo_precision IS NULL AND id > ${afterId}
    ORDER BY id LIMIT ${limit}`)) as unknown as UnplacedListing[];
}

/** Writes places in one statement; a row placed meanwhile (by a crawl) is left as the crawl wrote it. */
export async function writePlaces(db: DbOrTx, places: Array<{ id: number } & ListingPlace>): Promise<number> {
  if (places.length === 0) return 0;
  const rows = (await db.execute(sql`
    UPDATE listings l SET lat = p.lat, lon = p.lon, geo_precision = p.precision
    FROM (SELECT * FROM jsonb_to_recordset(${JSON.stringify(places.map((p) => ({ id: p.id, lat: p.lat, lon: p.lon, precision: p.geoPrecision })))}::jsonb)
          AS x(id int, lat float8, lon float8, precision text)) p
    WHERE l.id = p.id AND l.geo_precision IS NULL
    RETURNING l.id`)) as unknown as Array<{ id: number }>;
  return rows.length;
}

export type PlaceShare = { source: string; listings: number; open: number; zip: number; city: number; state: number; none: number; untried: number };

/** Per source: how many listings (and open ones) and how each is placed. */
export async function placeSharesBySource(db: DbOrTx): Promise<PlaceShare[]> {
  return (await db.execute(sql`
    SELECT s.name AS source, count(l.id)::int AS listings,
      count(l.id) FILTER (WHERE l.status = 'open')::int AS open,
      count(l.id) FILTER (WHERE l.geo_precision = 'zip')::int AS zip,
      count(l.id) FILTER (WHERE l.geo_precision = 'city')::int AS city,
      count(l.id) FILTER (WHERE l.geo_precision = 'state')::int AS state,
      count(l.id) FILTER (WHERE l.geo_precision = 'none')::int AS none,
      count(l.id) FILTER (WHERE l.geo_precision IS NULL)::int AS untried
    FROM sources s JOIN listings l ON l.source_id = s.id
    GROUP BY s.name ORDER BY s.name`)) as unknown as PlaceShare[];
}
