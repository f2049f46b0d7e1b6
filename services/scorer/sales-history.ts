/** Sales history rows as the model's training sales and as comparables. */
import type { SoldResultRow } from '../shared/repositories/sold-results-repository.js';
import type { ComparableCandidate } from '../valuation/comparables.js';
import type { TrainingSale } from '../valuation/features.js';

const ORIGIN_LABELS: Record<string, string> = { 'import:fastiron': 'Fast Iron auction records', 'import:westauction': 'West Auctions' };

export function soldResultToSale(row: SoldResultRow): TrainingSale {
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
    attributes: row.attributes ?? {},
    title: row.title,
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
