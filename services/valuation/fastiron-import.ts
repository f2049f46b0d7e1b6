/** A Fast Iron record as a sold_results row (sales history), or why it cannot be one. */
import { PRODUCT_GROUP_CATEGORY, type FastIronRecord } from '../shared/datasets/fastiron.js';
import { FASTIRON_ORIGIN, FASTIRON_SALE_CHANNEL, fastIronAttributes } from './fastiron-sales.js';

export type ImportedSale = {
  origin: string;
  externalId: string;
  title: string;
  make: null;
  model: string | null;
  modelFamily: string | null;
  year: number | null;
  hours: number | null;
  categoryId: number;
  state: string | null;
  saleChannel: string;
  soldAt: Date;
  price: number;
  currency: 'USD';
  url: null;
  attributes: Record<string, string>;
};

/** `2004 521D Wheel Loader`: what a buyer reads in the comparables list. */
export function fastIronTitle(r: FastIronRecord): string {
  const kind = r.attributes.fiProductClassDesc?.split(' - ')[0]?.split(',')[0]?.trim() ?? PRODUCT_GROUP_CATEGORY[r.productGroup] ?? '';
  return [r.yearMade, r.modelDesc, kind].filter((p) => p !== null && p !== undefined && p !== '').join(' ').slice(0, 200);
}

export function fastIronToSoldResult(r: FastIronRecord): ImportedSale | { skip: 'no-price' | 'unmapped-type' } {
  if (r.salePrice === null) return { skip: 'no-price' };
  if (r.categoryId === undefined) return { skip: 'unmapped-type' };
  return {
    origin: FASTIRON_ORIGIN,
    externalId: r.salesId,
    title: fastIronTitle(r),
    make: null,
    model: r.modelDesc || null,
    modelFamily: r.baseModel,
    year: r.yearMade,
    hours: r.hours,
    categoryId: r.categoryId,
    state: r.state,
    saleChannel: FASTIRON_SALE_CHANNEL,
    soldAt: r.saleDate,
    price: r.salePrice,
    currency: 'USD',
    url: null,
    attributes: fastIronAttributes(r),
  };
}
