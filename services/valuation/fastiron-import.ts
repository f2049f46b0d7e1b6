/** A Fast Iron record as a sold_results row (sales history), or why it cannot be one. */
import type { FastIronRecord } from '../shared/datasets/fastiron.js';
import { FASTIRON_ORIGIN, FASTIRON_SALE_CHANNEL, fastIronAttributes, fastIronTitle } from './fastiron-sales.js';

export { fastIronTitle };

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
