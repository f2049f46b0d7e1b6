/**
 * Places the listings stored before lots were placed at crawl time (issue 30), in batches by id:
 * each row's ZIP code, city and state through the same pure rule the crawl store uses
 * (placeListing). Idempotent and safe beside a crawl: only rows never tried are written, so a
 * rerun, or a second process doing the same, changes nothing twice.
 */
import type { DbOrTx } from '../shared/database/db.js';
import { listUntriedPlaces, writePlaces } from '../shared/repositories/listing-places-repository.js';
import { placeListing } from '../shared/lots/normalize-listing.js';

export async function backfillListingPlaces(db: DbOrTx, opts: { batchSize?: number; stopped?: () => boolean } = {}): Promise<{ tried: number; written: number }> {
  const batchSize = opts.batchSize ?? 2000;
  let afterId = 0;
  let tried = 0;
  let written = 0;
  while (!opts.stopped?.()) {
    const rows = await listUntriedPlaces(db, afterId, batchSize);
    if (rows.length === 0) break;
    tried += rows.length;
    written += await writePlaces(db, rows.map((r) => ({ id: r.id, ...placeListing(r) })));
    afterId = rows[rows.length - 1]!.id;
  }
  return { tried, written };
}
