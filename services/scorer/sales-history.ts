/** Sales history rows as the model's training sales and as comparables. */
import type { SoldResultRow } from '../shared/repositories/sold-results-repository.js';
import type { ComparableCandidate } from '../valuation/comparables.js';
import type { TrainingSale } from '../valuation/features.js';
import { westMachine } from '../valuation/westauction-sales.js';

const ORIGIN_LABELS: Record<string, string> = {
  'import:fastiron': 'Fast Iron auction records',
  'import:westauction': 'West Auctions',
  'import:rbauction': 'Ritchie Bros. Auctioneers',
};

/**
 * A sold result as a training sale. A crawled sale is its source's lot (`source` from its origin,
 * older rows did not store it), so it is valued and calibrated as that source's market, not as
 * Fast Iron's.
 */
export function soldResultToSale(row: SoldResultRow): TrainingSale {
  const attributes = { ...(row.attributes ?? {}) };
  if (row.origin.startsWith('crawl:')) {
    if (attributes.source === undefined) attributes.source = row.origin.slice('crawl:'.length);
    // the kind a listing of the same title is scored with (score-listing.ts)
    const kind = attributes.machine_kind === undefined ? westMachine(row.title)?.kind : undefined;
    if (kind) attributes.machine_kind = kind;
  }
  return {
    categoryId: row.categoryId,
    make: row.make,
    model: row.model,
    modelFamily: row.modelFamily,
    year: row.year,
    hours: row.hours,
    condition: row.condition,
    state: row.state,
    saleChannel: row.saleChannel,
    soldAt: row.soldAt,
    price: row.price,
    attributes,
    title: row.title,
    description: typeof attributes.description === 'string' ? attributes.description : null,
  };
}

export function soldResultToCandidate(row: SoldResultRow): ComparableCandidate {
  const title = row.title.trim() || [row.year, row.make, row.model ?? row.modelFamily].filter(Boolean).join(' ');
  return {
    title,
    make: row.make,
    model: row.model,
    modelFamily: row.modelFamily,
    year: row.year,
    hours: row.hours,
    price: row.price,
    soldAt: row.soldAt,
    source: row.sourceName ?? ORIGIN_LABELS[row.origin] ?? row.origin.replace(/^crawl:/, ''),
    url: row.url,
  };
}
