import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWestAuction, type WestAuctionRecord } from '../../services/shared/datasets/westauction.js';
import { westAuctionToSoldResult, westMachine } from '../../services/valuation/westauction-sales.js';

// The licensed lots are read from ../shared at run time, never copied into the repository.
const FILE = path.resolve(process.env.SHARED_DIR ?? '../shared', 'data/westauction_lots/westauction_lots.csv.gz');
const WANTED = new Set(['558721', '570139', '595547', '598867', '600927']);

async function recorded(): Promise<Map<string, WestAuctionRecord>> {
  const found = new Map<string, WestAuctionRecord>();
  const stats = { rows: 0, skipped: 0 };
  for await (const r of readWestAuction(FILE, { stats })) if (WANTED.has(r.lotId)) found.set(r.lotId, r);
  expect(stats.rows).toBe(31_124);
  return found;
}

describe('West Auctions lots as sales history', async () => {
  const lots = await recorded();

  it('reads the recorded rows, with the two hours the CSV clock runs early added back', () => {
    const generator = lots.get('558721')!;
    expect(generator.endAt!.toISOString()).toBe('2024-10-09T18:01:07.000Z');
    expect(generator.highBid).toBe(4055);
    expect(generator.state).toBe('CA');
    expect(generator.closed).toBe(true);
  });

  it('imports machines with type, make, model and year from the record and the crawler title parser', () => {
    const lift = westAuctionToSoldResult(lots.get('600927')!);
    expect(lift).toMatchObject({ categoryId: 11, make: 'Genie', model: 'GS-3246', year: 2001, price: 2369, state: 'NV', origin: 'import:westauction' });
    expect(lift).toHaveProperty('attributes.machine_kind', 'aerial lift');
    const trailer = westAuctionToSoldResult(lots.get('598867')!);
    expect(trailer).toMatchObject({ categoryId: 11, year: 2008, price: 1600 });
    expect(trailer).toHaveProperty('attributes.machine_kind', 'trailer');
    const forklift = westAuctionToSoldResult(lots.get('595547')!);
    expect(forklift).toMatchObject({ model: '7FBCU15', hours: 26155 });
    expect(forklift).toHaveProperty('attributes.buyers_premium_pct', 0);
    expect(westAuctionToSoldResult(lots.get('558721')!)).toMatchObject({ categoryId: 8, make: 'Generac' });
  });

  it('leaves attachments, parts and open lots out', () => {
    expect(westAuctionToSoldResult(lots.get('570139')!)).toEqual({ skip: 'not-a-machine' });
    expect(westAuctionToSoldResult({ ...lots.get('600927')!, closed: false })).toEqual({ skip: 'not-closed' });
    expect(westAuctionToSoldResult({ ...lots.get('600927')!, highBid: null })).toEqual({ skip: 'no-price' });
    expect(westMachine('CAT Excavator Thumb 440-0645')).toBeNull();
    expect(westMachine('Presto 2,200 Lb Capacity Electric Pallet Truck')).toBeNull();
    expect(westMachine('2017 Ford F350 Flatbed Dually')).toEqual({ categoryId: 11, kind: 'truck' });
    expect(westMachine('2024 AGT H12R Mini Excavator (Unused)')).toEqual({ categoryId: 1, kind: 'machine' });
    // carts, truck parts and attachments sold as "trucks", "forklift …" or "… excavator" are not machines
    expect(westMachine('Uline Tilt Truck')).toBeNull();
    expect(westMachine('17’ Truck Box')).toBeNull();
    expect(westMachine('Cascade Corp. Forklift Carriage')).toBeNull();
    expect(westMachine('2025 Future Mini Excavator Rubber Track Set, Fit to 1-3 Ton Excavator (Unused)')).toBeNull();
    expect(westMachine('Translate TP-201 Semi Automatic Strapping Machine')).toBeNull();
    expect(westMachine('1969 White Freightliner COE 2564-T Semi Truck')).toEqual({ categoryId: 11, kind: 'truck' });
    expect(westMachine('Genie Z-45/25 Boom Lift')).toEqual({ categoryId: 11, kind: 'aerial lift' });
  });

  it('knows an attachment, a part or another kind of "generator" named after a machine from the machine', () => {
    // attachments and parts named after the machine they fit
    expect(westMachine('2025 LandHonor BS-12-2500G Skid Steer Bale Spear (Unused)')).toBeNull();
    expect(westMachine('2025 Future FT-SG45 Skid Steer Stump Grinder (Unused)')).toBeNull();
    expect(westMachine('Conteqtec AP300 12" Skid Steer Planer')).toBeNull();
    expect(westMachine('66” Forklift Extensions')).toBeNull();
    expect(westMachine('Vintage Steel Truck Bumper')).toBeNull();
    expect(westMachine('Truck Roll Bar With Bumper Guards')).toBeNull();
    expect(westMachine('Steel Forklift Ready Cabinet With Contents Inside')).toBeNull();
    expect(westMachine('Land Pride HRS3025 Tractor Hydraulic Reservoir System')).toBeNull();
    expect(westMachine('Ariens Riding Lawn Tractor')).toBeNull();
    // not a crane, not a power generator
    expect(westMachine('WEAVER MECHANICAL ENGINE CRANE')).toBeNull();
    expect(westMachine('John Crane Seal Support System')).toBeNull();
    expect(westMachine('ARS Swash Electro Steam Generator Winery Sanitation Machine')).toBeNull();
    expect(westMachine('2018 PSA Nitrogen Generator System with Inoco Filters')).toBeNull();
    // the machines themselves still are
    expect(westMachine('Caterpillar 259D Skid Steer Loader')).toEqual({ categoryId: 5, kind: 'machine' });
    expect(westMachine('Honda EB 5000X Gasoline Generator')).toEqual({ categoryId: 8, kind: 'machine' });
    expect(westMachine('Miller Trailblazer 302 Air Pak Welder/Generator/Compressor')).toEqual({ categoryId: 8, kind: 'machine' });
    expect(westMachine('Terex RT780 Rough Terrain Crane')).toEqual({ categoryId: 6, kind: 'machine' });
    expect(westMachine('Custom Grape Bin Trailer with Conveyor Rollers')).toEqual({ categoryId: 11, kind: 'trailer' });
    expect(westMachine('Caterpillar Tractor')).toEqual({ categoryId: 11, kind: 'tractor' });
  });

  it('knows an implement named after the machine it fits, with words that are a machine on their own', () => {
    // a host machine's name directly followed by the implement's (issue 28, round 5: training-period lots)
    expect(westMachine('2025 Future FT-BK56 Skid Steer Backhoe (Unused)')).toBeNull();
    expect(westMachine('2024 Future FT-D680 Skid Steer Post Driver (Unused)')).toBeNull();
    expect(westMachine('2025 Future FT-SV70 Skid Steer Snow Shovel (Unused)')).toBeNull();
    expect(westMachine('Skid Steer Snow Pusher')).toBeNull();
    expect(westMachine('2025 Future FT-VR59 Skid Steer Vibratory Roller (Unused)')).toBeNull();
    expect(westMachine('2025 FJ-1T Forklift Jib (Unused)')).toBeNull();
    expect(westMachine('Forklift Dump Hopper')).toBeNull();
    expect(westMachine('Rolling Forklift Man Lift')).toBeNull();
    expect(westMachine('Excavator Plow')).toBeNull();
    // post drivers, pounders and rammers are hand tools or attachments
    expect(westMachine('Post Rammer, Machete And (2) 10” Steel Wedges')).toBeNull();
    // the machines those words also name still are machines
    expect(westMachine('Kubota L39 Tractor Loader Backhoe')).toEqual({ categoryId: 4, kind: 'machine' });
    expect(westMachine('JCB 3CX Backhoe')).toEqual({ categoryId: 4, kind: 'machine' });
    expect(westMachine('Hamm HD12 Vibratory Roller')).toEqual({ categoryId: 9, kind: 'machine' });
    expect(westMachine('2024 AGT LRT23 Compact Skid Steer Track Loader (Unused)')).toEqual({ categoryId: 5, kind: 'machine' });
    expect(westMachine('Toyota 8FGCU25 4700 Lb Capacity Propane Forklift with Avery Weigh-Tronix Attachment')).toEqual({ categoryId: 11, kind: 'forklift' });
    expect(westMachine('Genie GR-20 Vertical Mast Lift - 20\' Max Lift Height')).toEqual({ categoryId: 11, kind: 'aerial lift' });
    expect(westMachine('Wilson Hopper Bottom Trailer')).toEqual({ categoryId: 11, kind: 'trailer' });
  });
});
