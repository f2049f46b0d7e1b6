/** Fast Iron records as training sales, the same way the importer stores them in sold_results. */
import { PRODUCT_GROUP_CATEGORY, type FastIronRecord } from '../shared/datasets/fastiron.js';
import type { TrainingSale, ValuationInput } from './features.js';

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

/** `2004 521D Wheel Loader`: what a buyer reads in the comparables list. */
export function fastIronTitle(r: FastIronRecord): string {
  const kind = r.attributes.fiProductClassDesc?.split(' - ')[0]?.split(',')[0]?.trim() ?? PRODUCT_GROUP_CATEGORY[r.productGroup] ?? '';
  return [r.yearMade, r.modelDesc, kind].filter((p) => p !== null && p !== undefined && p !== '').join(' ').slice(0, 200);
}

/** The record as model input (price or not); null for a product group we do not map. */
export function fastIronToInput(r: FastIronRecord): ValuationInput | null {
  if (r.categoryId === undefined) return null;
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
    attributes: fastIronAttributes(r),
    title: fastIronTitle(r),
  };
}

/** null when the record has no price or no product group we map to an equipment type. */
export function fastIronToSale(r: FastIronRecord): TrainingSale | null {
  const input = fastIronToInput(r);
  return input && r.salePrice !== null ? { ...input, price: r.salePrice } : null;
}
