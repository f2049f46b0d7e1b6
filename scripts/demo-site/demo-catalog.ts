/**
 * The machines the demo auction sells: real sale records, read with the shared Fast Iron reader
 * (bulldozers data) plus West Auctions equipment lots for variety. Their real sale prices are
 * the market value each demo lot's bidding is drawn around.
 */
import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import { CATEGORIES, OTHER_CATEGORY_ID } from '../../services/shared/categories.js';
import { readFastIron } from '../../services/shared/datasets/fastiron.js';
import { categoryIdFor } from '../../services/crawler/normalize/category.js';
import { parseTitle } from '../../services/crawler/normalize/title-parser.js';
import { toStateCode } from '../../services/shared/us-states.js';

export type CatalogMachine = {
  origin: 'fastiron' | 'westauction';
  recordId: string;
  title: string;
  make: string | null;
  model: string;
  year: number | null;
  hours: number | null;
  categoryId: number;
  state: string | null;
  city: string | null;
  /** The record's real sale price (USD). */
  marketValue: number;
  details: Record<string, string>;
  description: string;
};

const TYPE_NOUN: Record<number, string> = {
  1: 'Excavator', 2: 'Dozer', 3: 'Wheel Loader', 4: 'Backhoe Loader', 5: 'Skid Steer Loader', 10: 'Motor Grader',
};

/**
 * Fast Iron records carry no manufacturer. These model designations belong to one maker each;
 * other models are shown without a make rather than with a guessed one.
 */
const MAKE_BY_MODEL: [RegExp, string, number[]][] = [
  [/^D([3-9]|1[01])[A-Z]*$/, 'Caterpillar', [2]],
  [/^D(2[0-9]|3[0-9]|4[0-9]|5[0-9]|6[0-9]|8[0-9])[A-Z]/, 'Komatsu', [2]],
  [/^PC\d/, 'Komatsu', [1]],
  [/^(30[1-9]|31[0-9]|32[0-9]|33[0-9]|34[05]|36[05]|385)[BCDEL]/, 'Caterpillar', [1]],
  [/^(ZX|EX)\d/, 'Hitachi', [1]],
  [/^EC\d/, 'Volvo', [1]],
  [/^SK\d/, 'Kobelco', [1]],
  [/^(9[1-8][0-9])[A-Z]/, 'Caterpillar', [3]],
  [/^WA\d/, 'Komatsu', [3]],
  [/^(544|624|644|724|744|824)[A-Z]/, 'John Deere', [3]],
  [/^(521|621|721|821|921)[A-Z]/, 'Case', [3]],
  [/^(310|410|710)[A-Z]/, 'John Deere', [4]],
  [/^(416|420|426|428|430|436|438|446)[A-Z]/, 'Caterpillar', [4]],
  [/^(580|590)[A-Z]/, 'Case', [4]],
  [/^(S|T)\d{3}/, 'Bobcat', [5]],
  [/^(753|763|773|853|863|873|883)/, 'Bobcat', [5]],
  [/^(216|226|232|236|242|246|248|252|256|262|267|268|272|277|287)[A-Z]?/, 'Caterpillar', [5]],
  [/^(12|14|16|120|130|135|140|143|160|163)[A-Z]/, 'Caterpillar', [10]],
  [/^(670|672|770|772|870|872)[A-Z]/, 'John Deere', [10]],
  [/^GD\d/, 'Komatsu', [10]],
];

export function makeForModel(model: string, categoryId: number): string | null {
  for (const [pattern, make, categoryIds] of MAKE_BY_MODEL) if (categoryIds.includes(categoryId) && pattern.test(model)) return make;
  return null;
}

async function readFastIronMachines(sharedDir: string, limit: number): Promise<CatalogMachine[]> {
  const file = path.join(sharedDir, 'data/bulldozers/Train_first10931rows.csv.gz');
  const machines: CatalogMachine[] = [];
  for await (const record of readFastIron(file)) {
    if (!record.categoryId || record.salePrice === null || !record.modelDesc) continue;
    const make = makeForModel(record.modelDesc, record.categoryId);
    const title = [record.yearMade, make, record.modelDesc, TYPE_NOUN[record.categoryId]].filter(Boolean).join(' ');
    const details: Record<string, string> = {};
    for (const [key, value] of Object.entries(record.attributes)) details[key.replace(/_/g, ' ').replace(/^fi/, '')] = value;
    machines.push({
      origin: 'fastiron',
      recordId: record.salesId,
      title,
      make,
      model: record.modelDesc,
      year: record.yearMade,
      hours: record.hours,
      categoryId: record.categoryId,
      state: record.state,
      city: null,
      marketValue: record.salePrice,
      details,
      description: [record.attributes.fiProductClassDesc, ...Object.entries(details).filter(([k]) => k !== 'ProductClassDesc').map(([k, v]) => `${k}: ${v}`)]
        .filter(Boolean)
        .join('\n'),
    });
    if (machines.length >= limit) break;
  }
  return machines;
}

async function readWestAuctionMachines(sharedDir: string, limit: number): Promise<CatalogMachine[]> {
  const file = path.join(sharedDir, 'data/westauction_lots/westauction_lots.csv.gz');
  if (!existsSync(file)) return [];
  const machines: CatalogMachine[] = [];
  const rows = createReadStream(file).pipe(createGunzip()).pipe(parse({ columns: true, bom: true, relax_column_count: true }));
  for await (const row of rows as AsyncIterable<Record<string, string>>) {
    const price = Number(row.high_bid_usd);
    if (row.closed_before_collection !== '1' || !(price >= 1000)) continue;
    const categoryId = categoryIdFor(row.title);
    if (categoryId === OTHER_CATEGORY_ID) continue;
    const parsed = parseTitle(row.title ?? '');
    const year = Number(row.year) || parsed.year;
    machines.push({
      origin: 'westauction',
      recordId: row.lot_id!,
      title: row.title!.replace(/\s+/g, ' ').trim(),
      make: row.make || parsed.make,
      model: row.model || parsed.model || '',
      year: year && year > 1930 && year < 2030 ? year : null,
      hours: Number(row.hours) > 0 ? Math.round(Number(row.hours)) : null,
      categoryId,
      state: toStateCode(row.state) ?? null,
      city: row.city || null,
      marketValue: price,
      details: {},
      description: (row.description_text ?? '').slice(0, 1500),
    });
    if (machines.length >= limit) break;
  }
  return machines;
}

/** Every machine the demo can sell, in a stable order. */
export async function loadCatalog(sharedDir: string): Promise<CatalogMachine[]> {
  const [fastIron, west] = await Promise.all([readFastIronMachines(sharedDir, 20_000), readWestAuctionMachines(sharedDir, 400)]);
  if (fastIron.length === 0) throw new Error(`no Fast Iron records under ${sharedDir}/data/bulldozers: is SHARED_DIR right?`);
  return [...fastIron, ...west];
}

export const CATEGORY_NAMES: Record<number, string> = Object.fromEntries(CATEGORIES.map((c) => [c.id, c.name]));
