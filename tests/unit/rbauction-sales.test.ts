import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { rbImportReport } from '../../scripts/cli/import-sales-command.js';
import { categoryIdByName, OTHER_CATEGORY_ID } from '../../services/shared/categories.js';
import { readRbAuction, stateOfEvent, toRbAuctionRecord, type RbAuctionRecord } from '../../services/shared/datasets/rbauction.js';
import { rbAuctionToSale, rbAuctionToSoldResult, rbItem, rbMake, rbMachine, type RbSoldResult } from '../../services/valuation/rbauction-sales.js';

const HEADER = 'sale_date,year,make,model,hours,price_usd,item_slug,inv_id,auction,url';

/** A results row in the shared file's format (values made up in its shape). */
function row(over: Partial<Record<string, string>> & { item_slug: string }): Record<string, string> {
  return {
    sale_date: '2023-03-22',
    year: '',
    make: '',
    model: '',
    hours: '0',
    price_usd: '10000',
    inv_id: '13000001',
    auction: 'minneapolis-mn-2023162',
    url: `https://www.rbauction.com/${over.item_slug}?invId=13000001&id=ar&auction=minneapolis-mn-2023162`,
    ...over,
  };
}

function record(over: Partial<Record<string, string>> & { item_slug: string }): RbAuctionRecord {
  const r = toRbAuctionRecord(row(over));
  expect(r).not.toBeNull();
  return r!;
}

function sold(over: Partial<Record<string, string>> & { item_slug: string }): RbSoldResult {
  const s = rbAuctionToSoldResult(record(over));
  if ('skip' in s) throw new Error(`skipped: ${s.skip}`);
  return s;
}

const id = (name: Parameters<typeof categoryIdByName>[0]) => categoryIdByName(name)!;
const typeOf = (itemType: string) => {
  const m = rbMachine(itemType);
  return 'skip' in m ? m.skip : m.categoryId;
};

describe('Ritchie Bros. results: a row as a sold result', () => {
  it('titles a lot as the adapter reads it, with make, model, family, year, hours, state, day, price, url and id', () => {
    const s = sold({ year: '2015', make: 'KOMATSU', model: 'PC490LC-11', hours: '9779', price_usd: '47500', item_slug: '2015-komatsu-pc490lc-11-hydraulic-excavator', inv_id: '13769843', auction: 'atlanta-ga-2023134' });
    expect(s).toMatchObject({
      title: '2015 Komatsu PC490LC-11 Hydraulic Excavator',
      make: 'Komatsu',
      model: 'PC490LC-11',
      modelFamily: 'PC490',
      year: 2015,
      hours: 9779,
      categoryId: id('Excavators'),
      state: 'GA',
      price: 47500,
      currency: 'USD',
      origin: 'import:rbauction',
      externalId: '13769843',
      saleChannel: 'auction',
    });
    expect(s.soldAt.toISOString()).toBe('2023-03-22T00:00:00.000Z');
    expect(s.url).toMatch(/^https:\/\/www\.rbauction\.com\/2015-komatsu-pc490lc-11-hydraulic-excavator\?invId=/);
    expect(s.attributes).toEqual({ source: 'rbauction', market: 'dealer-auction', item_type: 'hydraulic-excavator', machine_kind: 'machine' });
  });

  it('gives the make as the adapter does: known makes spelled canonically, others in title case', () => {
    expect(rbMake('JOHN DEERE')).toBe('John Deere');
    expect(rbMake('CAT')).toBe('Caterpillar');
    expect(rbMake('INGERSOLL-RAND')).toBe('Ingersoll Rand');
    expect(rbMake('AGT')).toBe('AGT');
    expect(rbMake('FF')).toBe('FF');
    expect(rbMake('HUBBELL CHANCE')).toBe('Hubbell Chance');
    expect(rbMake('VICSEC')).toBe('Vicsec');
    expect(rbMake(null)).toBeNull();
  });

  it('reads the state from the event, hours 0 as not stated, and an implausible year as none', () => {
    expect(stateOfEvent('minneapolis-mn-2023164')).toBe('MN');
    expect(stateOfEvent('north-east-md-2022105')).toBe('MD');
    expect(stateOfEvent('fort-worth-tx-2023166')).toBe('TX');
    expect(stateOfEvent('online-2023164')).toBeNull();
    const r = record({ year: '2109', make: 'CAT', model: '336', hours: '0', item_slug: '2109-cat-336-hydraulic-excavator', auction: 'columbus-oh-2022233', sale_date: '2022-06-23' });
    expect(r).toMatchObject({ year: null, hours: null, state: 'OH' });
    const s = sold({ year: '2109', make: 'CAT', model: '336', hours: '0', item_slug: '2109-cat-336-hydraulic-excavator', sale_date: '2022-06-23' });
    expect(s).toMatchObject({ year: null, hours: null, title: 'Caterpillar 336 Hydraulic Excavator', attributes: { item_type: 'hydraulic-excavator' } });
    expect(record({ year: '1899', item_slug: '1899-x-y-wheel-loader' }).year).toBeNull();
    expect(record({ year: '2024', item_slug: '2024-x-y-wheel-loader', sale_date: '2023-05-01' }).year).toBe(2024);
  });

  it('keeps unused as a fact of the sale, in the title and as the attribute listings get', () => {
    const s = sold({ year: '2023', make: 'AGT', model: 'QS12R', item_slug: '2023-agt-qs12r-unused-mini-excavator-1-49-tons-unused', price_usd: '4000' });
    expect(s).toMatchObject({ title: '2023 AGT QS12R Mini Excavator (Unused)', categoryId: id('Excavators'), model: 'QS12R' });
    expect(s.attributes).toMatchObject({ unused: 'yes', item_type: 'mini-excavator-1-49-tons', tons_class: 1 });
    expect(rbItem({ itemSlug: 'unused-2022-ff-ff-12-mini-excavator-1-49-tons', year: 2022, make: 'FF', model: 'FF-12' })).toMatchObject({ unused: true, model: 'FF-12', itemType: 'mini-excavator-1-49-tons' });
    expect(sold({ year: '2018', make: 'KUBOTA', model: 'U17', item_slug: '2018-kubota-u17-mini-excavator-1-49-tons' }).attributes.unused).toBeUndefined();
  });

  it('maps each item type to the ten types or Other', () => {
    expect(typeOf('hydraulic-excavator')).toBe(id('Excavators'));
    expect(typeOf('mini-excavator-1-49-tons')).toBe(id('Excavators'));
    expect(typeOf('midi-excavator-5-99-tons')).toBe(id('Excavators'));
    expect(typeOf('4x4-mobile-excavator')).toBe(id('Excavators'));
    expect(typeOf('crawler-tractor')).toBe(id('Bulldozers'));
    expect(typeOf('lgp-crawler-tractor')).toBe(id('Bulldozers'));
    expect(typeOf('wheel-dozer')).toBe(id('Bulldozers'));
    expect(typeOf('wheel-loader')).toBe(id('Wheel Loaders'));
    expect(typeOf('integrated-tool-carrier')).toBe(id('Wheel Loaders'));
    expect(typeOf('4x4-loader-backhoe')).toBe(id('Backhoe Loaders'));
    expect(typeOf('skid-steer-loader')).toBe(id('Skid Steers'));
    // compact track loaders are Skid Steers, as the crawler files them
    expect(typeOf('two-speed-compact-track-loader')).toBe(id('Skid Steers'));
    expect(typeOf('2-spd-high-flow-compact-track-loader')).toBe(id('Skid Steers'));
    expect(typeOf('multi-terrain-loader')).toBe(id('Skid Steers'));
    expect(typeOf('50-ton-4x4x4-rough-terrain-crane')).toBe(id('Cranes'));
    expect(typeOf('110-ton-crawler-crane')).toBe(id('Cranes'));
    expect(typeOf('40-ton-6x4-hydraulic-truck-crane')).toBe(id('Cranes'));
    expect(typeOf('articulated-dump-truck')).toBe(id('Dump Trucks'));
    expect(typeOf('6x6-articulated-dump-truck')).toBe(id('Dump Trucks'));
    expect(typeOf('rock-truck')).toBe(id('Dump Trucks'));
    expect(typeOf('ta-dump-truck')).toBe(id('Dump Trucks'));
    expect(typeOf('25-kva-mobile-gen-set-250-749-kw310-950-kva')).toBe(id('Generators'));
    expect(typeOf('gen-set-10-kw-or-125-kva')).toBe(id('Generators'));
    expect(typeOf('tandem-roller')).toBe(id('Compactors'));
    expect(typeOf('9-wheel-roller')).toBe(id('Compactors'));
    expect(typeOf('walk-behind-roller')).toBe(id('Compactors'));
    expect(typeOf('plate-compactor')).toBe(id('Compactors'));
    expect(typeOf('reversible-plate-compactor')).toBe(id('Compactors'));
    expect(typeOf('jumping-jack')).toBe(id('Compactors'));
    expect(typeOf('trench-compactor')).toBe(id('Compactors'));
    expect(typeOf('motor-grader')).toBe(id('Graders'));
    expect(typeOf('vhp-plus-motor-grader')).toBe(id('Graders'));
    // machines under Other
    expect(typeOf('crawler-loader')).toBe(OTHER_CATEGORY_ID);
    expect(typeOf('4x4-skip-loader')).toBe(OTHER_CATEGORY_ID);
    expect(typeOf('motor-scraper')).toBe(OTHER_CATEGORY_ID);
    expect(typeOf('broom')).toBe(OTHER_CATEGORY_ID);
    expect(typeOf('5000-gal-water-wagon')).toBe(OTHER_CATEGORY_ID);
    expect(typeOf('crawler-dumper')).toBe(OTHER_CATEGORY_ID);
  });

  it('says which kind of dump truck and compactor, and the sizes the name states', () => {
    expect(sold({ year: '2016', make: 'VOLVO', model: 'A40G', item_slug: '2016-volvo-a40g-6x6-articulated-dump-truck' }).attributes).toMatchObject({ dump_kind: 'articulated' });
    expect(sold({ year: '2008', make: 'MACK', model: 'GU713', item_slug: '2008-mack-gu713-ta-dump-truck' }).attributes).toMatchObject({ dump_kind: 'on-road' });
    expect(sold({ make: 'WACKER', model: 'BS60-2', item_slug: 'wacker-bs60-2-jumping-jack' }).attributes).toMatchObject({ compactor_kind: 'rammer' });
    expect(sold({ make: 'WACKER', model: 'VP1550', item_slug: 'wacker-vp1550-plate-compactor' }).attributes).toMatchObject({ compactor_kind: 'plate' });
    expect(sold({ year: '2011', make: 'CATERPILLAR', model: 'CB24', item_slug: '2011-caterpillar-cb24-tandem-roller' }).attributes).toMatchObject({ compactor_kind: 'roller' });
    // generators: kVA as stated, kW × 1.25, the decimal point the model kept (slug 36 kW, model GA-3.6HA)
    expect(sold({ year: '2014', make: 'MULTIQUIP', model: 'DCA-45SSIU4F', item_slug: '2014-multiquip-dca-45ssiu4f-45-kva-mobile-gen-set-250-749-kw310-950-kva' }))
      .toMatchObject({ categoryId: id('Generators'), title: '2014 Multiquip DCA-45SSIU4F 45 kVA Mobile Gen Set', attributes: { kva: 45 } });
    expect(sold({ make: 'ATLAS COPCO', model: 'QAS45', item_slug: 'atlas-copco-qas45-36-kw-mobile-gen-set-10-249-kw125-310-kva' }).attributes.kva).toBe(45);
    expect(sold({ make: 'MULTIQUIP', model: 'GA-3.6HA', item_slug: 'multiquip-ga-36ha-36-kw-gen-set-10-kw-or-125-kva' }).attributes.kva).toBe(4.5);
    // the catalog's size bucket in the name is not the generator's size
    expect(sold({ make: 'ROCKFORD', model: 'ROCKFORD Gen Set (250-749 Kw/310-950 Kva)', item_slug: 'rockford-gen-set-250-749-kw310-950-kva' }).attributes.kva).toBeUndefined();
    expect(sold({ year: '2011', make: 'GROVE', model: 'RT650E', item_slug: '2011-grove-rt650e-50-ton-4x4x4-rough-terrain-crane' }).attributes.tons).toBe(50);
    expect(sold({ make: 'GROVE', model: '7.5', item_slug: 'grove-75-75-ton-4x4-carry-deck-crane' })).toMatchObject({ title: 'Grove 7.5 7.5 Ton 4x4 Carry Deck Crane', attributes: { tons: 7.5 } });
    expect(sold({ year: '2002', make: 'GROVE', model: 'YB4410', item_slug: '2002-grove-yb4410-20000-lb-4x2-carry-deck-crane' }).attributes.tons).toBe(10);
    expect(sold({ year: '2020', make: 'KUBOTA', model: 'KX057-5', item_slug: '2020-kubota-kx057-5-midi-excavator-5-99-tons' }).attributes.tons_class).toBe(5);
  });

  it('skips lots of several, fences, cones and small goods, parts, and lots without a price, saying why', () => {
    const skip = (over: Partial<Record<string, string>> & { item_slug: string }) => {
      const s = rbAuctionToSoldResult(record(over));
      return 'skip' in s ? s.skip : 'kept';
    };
    expect(skip({ item_slug: 'quantity-of-107-highway-cones' })).toBe('quantity-lot');
    expect(skip({ year: '2023', make: 'KAIJIAN', model: '4-RAIL', item_slug: '2023-kaijian-4-rail-quantity-of-24-10-ft-x-7-ft-p-site-fence-unused' })).toBe('quantity-lot');
    expect(skip({ make: 'HONDA', model: 'EB6500', item_slug: 'honda-eb6500-quantity-of-2-gen-set-250-749-kw310-950-kva' })).toBe('quantity-lot');
    expect(skip({ item_slug: 'qty-of-granite-pavers-miscellaneous-industrial-other' })).toBe('quantity-lot');
    expect(skip({ year: '2023', make: 'KAIJIAN', model: '7 ft x 4 ft', item_slug: '2023-kaijian-7-ft-x-4-ft-galvanized-unused-site-fence-unused' })).toBe('site-goods');
    expect(skip({ item_slug: 'highway-cones' })).toBe('site-goods');
    expect(skip({ make: 'DELTA', item_slug: 'delta-job-site-box' })).toBe('site-goods');
    expect(skip({ item_slug: 'pony-board-electrical-supplies' })).toBe('site-goods');
    expect(skip({ item_slug: 'tire-changer' })).toBe('not-a-machine');
    expect(skip({ model: 'Unused 2021 200 Lb Steel Anvil Miscellaneous Industrial - Other', year: '2021', item_slug: '2021-200-lb-steel-anvil-miscellaneous-industrial-other-unused' })).toBe('not-a-machine');
    expect(skip({ item_slug: '10-ton-bridge-crane' })).toBe('not-a-machine');
    expect(skip({ item_slug: 'personnel-carrier' })).toBe('not-a-machine');
    expect(skip({ year: '2006', make: 'JOHN DEERE', model: '350D', item_slug: '2006-john-deere-350d-lc-hydraulic-excavator-partsstationary-construction-other' })).toBe('parts-or-stationary');
    expect(skip({ year: '2014', make: 'BOBCAT', model: 'S650', item_slug: '2014-bobcat-s650-parts-only-skid-steer-loader' })).toBe('parts-or-stationary');
    expect(skip({ year: '2014', make: 'BOBCAT', model: 'S650', item_slug: '2014-bobcat-s650-skid-steer-loader', price_usd: '0' })).toBe('no-price');
  });

  it('reads the model out of a name the listing put in the model column', () => {
    const s = sold({ year: '2013', make: 'CAT', model: '2013 CAT 289D', item_slug: '2013-cat-289d-two-speed-compact-track-loader' });
    expect(s).toMatchObject({ title: '2013 Caterpillar 289D Two Speed Compact Track Loader', model: '289D', modelFamily: '289', categoryId: id('Skid Steers') });
    const g = sold({ year: '2014', make: 'MAGNUM', model: '2014 MAGNUM 18 kW Mobile Gen Set (10-249 Kw/12.5-310 Kva)', item_slug: '2014-magnum-18-kw-mobile-gen-set-10-249-kw125-310-kva' });
    expect(g).toMatchObject({ categoryId: id('Generators'), make: 'Magnum', title: '2014 Magnum 18 kW Mobile Gen Set', attributes: { kva: 22.5 } });
    const inop = sold({ year: '2005', make: 'WACKER', model: '2005 WACKER (Inoperable) Tandem Roller', item_slug: '2005-wacker-inoperable-tandem-roller' });
    expect(inop).toMatchObject({ title: '2005 Wacker Neuson Tandem Roller (Inoperable)', categoryId: id('Compactors'), attributes: { inoperable: 'yes' } });
  });

  it('gives the training sale the same fields as the stored row', () => {
    const r = record({ year: '2017', make: 'KUBOTA', model: 'KX040-4', hours: '1317', price_usd: '45000', item_slug: '2017-kubota-kx040-4-mini-excavator-1-49-tons' });
    const sale = rbAuctionToSale(r)!;
    expect(sale).toMatchObject({ categoryId: id('Excavators'), make: 'Kubota', model: 'KX040-4', modelFamily: 'KX040', year: 2017, hours: 1317, state: 'MN', price: 45000, title: '2017 Kubota KX040-4 Mini Excavator' });
    expect(sale.attributes).toMatchObject({ source: 'rbauction', market: 'dealer-auction' });
    expect(rbAuctionToSale(record({ item_slug: 'quantity-of-107-highway-cones' }))).toBeNull();
  });
});

describe('Ritchie Bros. results reader', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rbauction-'));
  const lines = [
    HEADER,
    '2023-05-24,2020,KOMATSU,PC490LC-11,3188,265000,2020-komatsu-pc490lc-11-hydraulic-excavator,13893886,denver-co-2023177,https://www.rbauction.com/2020-komatsu-pc490lc-11-hydraulic-excavator?invId=13893886',
    '2023-05-25,,,"Quantity of (2) Boxes of AED\'s, First Aid",0,"5,250",quantity-of-2-boxes-of-aeds-first-aid-supplies,13869064,windsor-locks-ct-2023361,',
    ',2020,KOMATSU,PC490LC-11,3188,265000,2020-komatsu-pc490lc-11-hydraulic-excavator,13893887,denver-co-2023177,',
    '2023-05-24,2020,KOMATSU,PC490LC-11,3188,265000,2020-komatsu-pc490lc-11-hydraulic-excavator,,denver-co-2023177,',
  ];

  async function readAll(file: string) {
    const stats = { rows: 0, skipped: 0 };
    const records: RbAuctionRecord[] = [];
    for await (const r of readRbAuction(file, { stats })) records.push(r);
    return { records, stats };
  }

  it('reads a plain CSV given by path, and the same file gzipped, alike', async () => {
    const plain = path.join(dir, 'later.csv');
    writeFileSync(plain, lines.join('\n') + '\n');
    const gz = path.join(dir, 'later.csv.gz');
    writeFileSync(gz, gzipSync(lines.join('\r\n')));
    const a = await readAll(plain);
    const b = await readAll(gz);
    expect(a.stats).toEqual({ rows: 4, skipped: 2 });
    expect(b).toEqual(a);
    expect(a.records.map((r) => r.invId)).toEqual(['13893886', '13869064']);
    expect(a.records[1]).toMatchObject({ price: 5250, make: null, model: "Quantity of (2) Boxes of AED's, First Aid", state: 'CT', url: null, year: null });
  });

  it('fails a file of another format with the columns it lacks', async () => {
    const other = path.join(dir, 'other.csv');
    writeFileSync(other, 'SalesID,SalePrice,saledate\n1,100,1/1/2010\n');
    await expect(readAll(other)).rejects.toThrow(/not a Ritchie Bros\. results file \(missing columns .*inv_id/);
  });
});

describe('the Ritchie Bros. import report', () => {
  it('counts written and skipped by reason, and the lots per type with their share', () => {
    const text = rbImportReport(
      'rb.csv',
      { rows: 10, written: 4, skipped: { 'no-price': 1, 'quantity-lot': 2, 'site-goods': 1, 'parts-or-stationary': 1, 'not-a-machine': 1, 'no-id': 0 }, byCategory: { 1: 3, 11: 1 } },
      '',
    );
    expect(text).toContain('rb.csv: 10 rows read, 4 machine sales imported or updated; skipped 2 lots of several, 1 site goods');
    expect(text).toMatch(/Excavators\s+3\s+75\.0%/);
    expect(text).toMatch(/Other\s+1\s+25\.0%/);
    expect(text).toMatch(/Cranes\s+0\s+0\.0%/);
    expect(text).toMatch(/machines\s+4\s+of 10 rows \(40\.0%\)/);
  });
});
