/** Fast Iron records as training sales, the same way the importer stores them in sold_results. */
import type { FastIronRecord } from '../shared/datasets/fastiron.js';
import type { TrainingSale } from './features.js';

export const FASTIRON_ORIGIN = 'import:fastiron';
export const FASTIRON_SALE_CHANNEL = 'auction';

/** The attributes kept with an imported sale: option columns plus the record's identifiers. */
export function fastIronAttributes(r: FastIronRecord): Record<string, string> {
  const attributes: Record<string, string> = { ...r.attributes, fiModelDesc: r.modelDesc };
  if (r.modelId) attributes.ModelID = r.modelId;
  if (r.machineId) attributes.MachineID = r.machineId;
  if (r.datasource) attributes.datasource = r.datasource;
  if (r.auctioneerId) attributes.auctioneerID = r.auctioneerId;
  attributes.ProductGroup = r.productGroup;
  return attributes;
}

/** null when the record has no price or no product group we map to an equipment type. */
export function fastIronToSale(r: FastIronRecord): TrainingSale | null {
  if (r.salePrice === null || r.categoryId === undefined) return null;
  return {
    categoryId: r.categoryId,
    make: null,
    model: r.modelDesc || null,
    modelFamily: r.baseModel,
    year: r.yearMade,
    hours: r.hours,
    condition: null,
    state: r.state,
    saleChannel: FASTIRON_SALE_CHANNEL,
    soldAt: r.saleDate,
    price: r.salePrice,
    attributes: fastIronAttributes(r),
  };
}
