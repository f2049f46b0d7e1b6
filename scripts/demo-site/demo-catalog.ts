/**
 * The machines the demo auction sells: real sale records, read with the shared Fast Iron reader
 * (bulldozers data), West Auctions machine lots (the importer's own rules: every type, and
 * trucks, trailers, forklifts and lifts under Other), and 2010s–2020s machines from the Ritchie
 * Bros. results (the importer's own conversion, their makes as listed). Their real sale prices,
 * brought to today's dollars with the same price index the valuation model estimates from the same
 * sales, are the market value each demo lot's bidding is drawn around: the demo stays truthful to
 * the model. A lot's card reads its make and model, so a machine whose make is not known (a third
 * of Fast Iron's records) is not sold: its card would read as a bare model number ("892ELC").
 */
import { cityInState } from './demo-places.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CATEGORIES } from '../../services/shared/categories.js';
import { readFastIron, readSalePrices } from '../../services/shared/datasets/fastiron.js';
import { fastIronListingText } from '../../services/shared/datasets/fastiron-listing-text.js';
import { RBAUCTION_RESULTS_FILE, readRbAuction } from '../../services/shared/datasets/rbauction.js';
import { readWestAuction } from '../../services/shared/datasets/westauction.js';
import { comparableToday, estimatePriceIndex, type IndexSale } from '../../services/valuation/price-index.js';
import { rbAuctionToSoldResult } from '../../services/valuation/rbauction-sales.js';
import { westAuctionToSoldResult } from '../../services/valuation/westauction-sales.js';

export type CatalogMachine = {
  origin: 'fastiron' | 'westauction' | 'rbauction';
  recordId: string;
  title: string;
  make: string | null;
  model: string;
  year: number | null;
  hours: number | null;
  categoryId: number;
  state: string | null;
  city: string | null;
  /** The record's real sale price in today's dollars (USD, rounded). */
  marketValue: number;
  /** What it really sold for, and when (absent: marketValue is already in today's dollars). */
  soldPrice?: number;
  soldAt?: Date;
  /** Specifications under a buyer's labels ("Cab", "Tires"); West lots carry theirs in the description. */
  details: Record<string, string>;
  /** The listing text the lot page shows: an auctioneer's write-up, never raw record columns. */
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
  // Case's 921 before Caterpillar's 9xx (Caterpillar made no 921).
  [/^(521|621|721|821|921)[A-Z]/, 'Case', [3]],
  [/^(9[1-8][0-9])[A-Z]/, 'Caterpillar', [3]],
  [/^WA\d/, 'Komatsu', [3]],
  [/^(544|624|644|724|744|824)[A-Z]/, 'John Deere', [3]],
  [/^(310|410|710)[A-Z]/, 'John Deere', [4]],
  [/^(416|420|426|428|430|436|438|446)[A-Z]/, 'Caterpillar', [4]],
  [/^(580|590)[A-Z]/, 'Case', [4]],
  [/^(S|T)\d{3}/, 'Bobcat', [5]],
  [/^(753|763|773|853|863|873|883)/, 'Bobcat', [5]],
  [/^(216|226|232|236|242|246|248|252|256|262|267|268|272|277|287)[A-Z]?/, 'Caterpillar', [5]],
  [/^(12|14|16|120|130|135|140|143|160|163)[A-Z]/, 'Caterpillar', [10]],
  [/^(670|672|770|772|870|872)[A-Z]/, 'John Deere', [10]],
  [/^GD\d/, 'Komatsu', [10]],
  // Designations that are one maker's by themselves (Fast Iron leaves a third of its lots without
  // a make); numbers two makers share (Case and Deere dozers, 850C, 650G…) stay without one.
  [/^(30[1-8]\.\d|2[0-4]5[BCD]?|30[78]|31[1-578]|32[0-58-9]|330|336|345|365|385|3\d\dL)$/, 'Caterpillar', [1]],
  [/^(\d{3}[CDE] ?LC|\d{3}LC|120C)$/, 'John Deere', [1]],
  [/^TB\d{3}$/, 'Takeuchi', [1]],
  [/^(700H|455G)(LGP)?$/, 'John Deere', [2]],
  [/^(90[2-8]|9[1-9]\d[A-Z]?|IT\d\d[A-Z])$/, 'Caterpillar', [3]],
  [/^L\d{2,3}[A-H]$/, 'Volvo', [3]],
  [/^(444[A-Z]|210LE|TC54H)$/, 'John Deere', [3]],
  [/^(555E|LB75B)$/, 'New Holland', [4]],
  [/^214E?$/, 'JCB', [4]],
  [/^WB1\d0(-\d)?$/, 'Komatsu', [4]],
  [/^416$/, 'Caterpillar', [4]],
  [/^510[A-Z]$/, 'John Deere', [4]],
  [/^BL(60|70)$/, 'Volvo', [4]],
  [/^(1840|1845C)$/, 'Case', [5]],
  [/^(LX565|LX865|LS1[5-9]0)$/, 'New Holland', [5]],
  [/^MC(70|80|90)$/, 'Volvo', [5]],
  [/^RC30$/, 'ASV', [5]],
  [/^TL1[0-9]0$/, 'Takeuchi', [5]],
  [/^4810$/, 'Gehl', [5]],
  [/^317$/, 'John Deere', [5]],
  [/^(570|670|672|770|772)[AB]$/, 'John Deere', [10]],
];

export function makeForModel(model: string, categoryId: number): string | null {
  for (const [pattern, make, categoryIds] of MAKE_BY_MODEL) if (categoryIds.includes(categoryId) && pattern.test(model)) return make;
  return null;
}

async function readFastIronMachines(sharedDir: string, limit: number, indexSales: IndexSale[]): Promise<CatalogMachine[]> {
  const file = path.join(sharedDir, 'data/bulldozers/Train_first10931rows.csv.gz');
  const machines: CatalogMachine[] = [];
  for await (const record of readFastIron(file)) {
    if (record.categoryId !== undefined && record.salePrice !== null) indexSales.push(fastIronIndexSale(record.categoryId, record));
    if (!record.categoryId || record.salePrice === null || !record.modelDesc || machines.length >= limit) continue;
    const make = makeForModel(record.modelDesc, record.categoryId);
    if (!make) continue;
    const title = [record.yearMade, make, record.modelDesc, TYPE_NOUN[record.categoryId]].filter(Boolean).join(' ');
    // written up as a listing: the record's columns in a buyer's words, empty options left out
    const { description, details } = fastIronListingText({
      year: record.yearMade,
      make,
      model: record.modelDesc,
      hours: record.hours,
      typeNoun: TYPE_NOUN[record.categoryId] ?? 'machine',
      attributes: record.attributes,
    });
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
      city: cityInState(record.state, record.salesId),
      marketValue: record.salePrice,
      soldPrice: record.salePrice,
      soldAt: record.saleDate,
      details,
      description,
    });
  }
  return machines;
}

/** A sale as the price index sees it: the same fields training reads from the imported history. */
function fastIronIndexSale(categoryId: number, r: { baseModel: string | null; yearMade: number | null; saleDate: Date; salePrice: number | null }): IndexSale {
  return { categoryId, make: null, modelFamily: r.baseModel, year: r.yearMade, soldAt: r.saleDate, price: r.salePrice ?? 0 };
}

async function readWestAuctionMachines(sharedDir: string, limit: number, indexSales: IndexSale[]): Promise<CatalogMachine[]> {
  const file = path.join(sharedDir, 'data/westauction_lots/westauction_lots.csv.gz');
  if (!existsSync(file)) return [];
  const machines: CatalogMachine[] = [];
  for await (const record of readWestAuction(file)) {
    const sale = westAuctionToSoldResult(record);
    if ('skip' in sale) continue;
    indexSales.push({ categoryId: sale.categoryId, make: sale.make, modelFamily: sale.modelFamily, year: sale.year, soldAt: sale.soldAt, price: sale.price });
    // a demo lot worth bidding on: a machine that sold for real money, by a maker the card can name
    if (sale.price < 1000 || !sale.make || machines.length >= limit) continue;
    machines.push({
      origin: 'westauction',
      recordId: record.lotId,
      title: sale.title,
      make: sale.make,
      model: sale.model ?? '',
      year: sale.year,
      hours: sale.hours,
      categoryId: sale.categoryId,
      state: sale.state,
      city: record.city,
      marketValue: sale.price,
      soldPrice: sale.price,
      soldAt: sale.soldAt,
      details: {},
      description: record.description,
    });
  }
  return machines;
}

/** The Ritchie Bros. machines of model year 2010 on: the demo's machines of today's market. */
const RB_FROM_YEAR = 2010;

/**
 * Ritchie Bros. results as demo machines: those of 2010 on with a make, a model and a real price,
 * every k-th of them in file order so the picks span the 21 months and `limit` is kept. Their
 * sales are aged to today like the others but do not move the price index: estimated over every
 * sale at once it reads the step from these dealer-auction prices (2021–2023) to West's online
 * surplus prices (2024–2025) as the market falling by half, which a like-for-like market level
 * (issue 37) is to replace; until then the index stays the one Fast Iron and West give.
 */
async function readRbAuctionMachines(sharedDir: string, limit: number): Promise<CatalogMachine[]> {
  const file = path.join(sharedDir, RBAUCTION_RESULTS_FILE);
  if (!existsSync(file)) return [];
  const candidates: CatalogMachine[] = [];
  for await (const record of readRbAuction(file)) {
    const sale = rbAuctionToSoldResult(record);
    if ('skip' in sale) continue;
    if (sale.year === null || sale.year < RB_FROM_YEAR || !sale.make || !sale.model || sale.price < 1000) continue;
    const typeNoun = sale.title.replace(/ \((?:Unused|Inoperable)\)/g, '').split(`${sale.model} `).slice(1).join(`${sale.model} `) || (TYPE_NOUN[sale.categoryId] ?? 'machine');
    const { description, details } = fastIronListingText({ year: sale.year, make: sale.make, model: sale.model, hours: sale.hours, typeNoun: typeNoun.toLowerCase(), attributes: {} });
    candidates.push({
      origin: 'rbauction',
      recordId: record.invId,
      title: sale.title,
      make: sale.make,
      model: sale.model,
      year: sale.year,
      hours: sale.hours,
      categoryId: sale.categoryId,
      state: sale.state,
      city: cityInState(sale.state, record.invId),
      marketValue: sale.price,
      soldPrice: sale.price,
      soldAt: sale.soldAt,
      details,
      // the write-up's first sentence, and that it was sold new where it was (details: none listed)
      description: sale.attributes.unused === 'yes' ? `${description} Unused.` : description,
    });
  }
  const step = Math.max(1, Math.ceil(candidates.length / limit));
  return candidates.filter((_, i) => i % step === 0);
}

/** The later Fast Iron sales (with their prices from the solution file): they take part in the price index as in training. */
async function readFastIronLaterSales(sharedDir: string): Promise<IndexSale[]> {
  const dir = path.join(sharedDir, 'data/bulldozers');
  const valid = path.join(dir, 'Valid.csv.gz');
  const solution = path.join(dir, 'ValidSolution_2012-01_to_02.csv');
  if (!existsSync(valid) || !existsSync(solution)) return [];
  const out: IndexSale[] = [];
  for await (const r of readFastIron(valid, { prices: await readSalePrices(solution) })) {
    if (r.categoryId === undefined || r.salePrice === null) continue;
    out.push(fastIronIndexSale(r.categoryId, r));
  }
  return out;
}

/**
 * What each machine is worth as of the latest sale, as the model sees a comparable: its real sale
 * price in that day's dollars and at the age the machine has then (a 1998 excavator sold at 14 in
 * 2012 is offered at 27), by the index the model estimates from the same sales history.
 */
function inTodaysDollars(machines: CatalogMachine[], sales: IndexSale[]): CatalogMachine[] {
  const index = estimatePriceIndex(sales);
  const latest = new Date(Math.max(...sales.map((s) => s.soldAt.getTime())));
  return machines.map((m) =>
    m.soldPrice && m.soldAt ? { ...m, marketValue: Math.round(comparableToday(index, { price: m.soldPrice, soldAt: m.soldAt, year: m.year, categoryId: m.categoryId }, latest)) } : m,
  );
}

/** Ritchie Bros. machines in the catalog: with Fast Iron's ~8,900 named ones, about a third of the dealer-auction lots. */
const RB_MACHINES = 4_500;

/** Every machine the demo can sell, in a stable order. */
export async function loadCatalog(sharedDir: string): Promise<CatalogMachine[]> {
  const indexSales: IndexSale[] = [];
  const [fastIron, west, rb, later] = await Promise.all([
    readFastIronMachines(sharedDir, 20_000, indexSales),
    readWestAuctionMachines(sharedDir, 2_000, indexSales),
    readRbAuctionMachines(sharedDir, RB_MACHINES),
    readFastIronLaterSales(sharedDir),
  ]);
  if (fastIron.length === 0) throw new Error(`no Fast Iron records under ${sharedDir}/data/bulldozers: is SHARED_DIR right?`);
  return inTodaysDollars([...fastIron, ...west, ...rb], [...indexSales, ...later]);
}

export const CATEGORY_NAMES: Record<number, string> = Object.fromEntries(CATEGORIES.map((c) => [c.id, c.name]));
