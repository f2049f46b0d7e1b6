import { describe, expect, it } from 'vitest';
import { adapterEnv, ParseError } from '../../services/crawler/adapter.js';
import { zonedTimeToUtc } from '../../services/crawler/adapters/adapter-support.js';
import { parseWestAuctions, parseWestImages, parseWestItems, westAuctionAdapter } from '../../services/crawler/adapters/westauction.js';
import { allRecordedFiles, expectWholeListing, fetchedPage, readRecorded, testConfig } from '../support/recorded-sites.js';

const ITEMS_URL = (auction: string) => `https://www.westauction.com/api/auctions/${auction}/items`;
const lotFiles = allRecordedFiles().filter((f) => f.site === 'westauction' && /^\d+_lot_\d+\.json$/.test(f.file));
const env = adapterEnv(westAuctionAdapter, testConfig());

type Lot = Record<string, unknown> & { collectedAt: string; end_time_display: string };

/** One recorded lot as the items endpoint returns it (inside its `data` array), fetched when it was collected. */
function lotPage(file: string, slug?: string) {
  const lot = JSON.parse(readRecorded('westauction', file)) as Lot;
  const auction = file.split('_')[0]!;
  const body = JSON.stringify({ result: 'success', data: [lot] });
  return { lot, page: fetchedPage(body, ITEMS_URL(auction), 'list', { page: 1, externalId: slug ? `auction:${slug}` : undefined }, lot.collectedAt) };
}

function listingOf(file: string, slug?: string) {
  const { page } = lotPage(file, slug);
  const { listings } = parseWestItems(page, env);
  expect(listings).toHaveLength(1);
  return listings[0]!;
}

/** "Thursday, October 30, 2025 at 10:04:00 am  PT" → the UTC instant (an independent reading of the lot's end). */
function displayedEnd(display: string): Date {
  const m = /(\w+) (\d{1,2}), (\d{4}) at (\d{1,2}):(\d{2}):(\d{2}) (am|pm)\s+PT/.exec(display)!;
  const month = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'].indexOf(m[1]!) + 1;
  const hour = (Number(m[4]) % 12) + (m[7] === 'pm' ? 12 : 0);
  return zonedTimeToUtc({ year: +m[3]!, month, day: +m[2]!, hour, minute: +m[5]!, second: +m[6]! }, 'America/Los_Angeles')!;
}

describe('West Auctions adapter on the 40 recorded lots', () => {
  it('has 40 lot files to read', () => expect(lotFiles).toHaveLength(40));

  it.each(lotFiles.map((f) => f.file))('%s: a whole listing whose end time is the displayed Pacific time', (file) => {
    const { lot } = lotPage(file);
    const l = listingOf(file);
    expectWholeListing(l);
    expect(l.externalId).toBe(`${lot.auction_id}-${lot.id}`);
    expect(l.endsAt).toEqual(displayedEnd(lot.end_time_display));
  });

  it('reads the unused AGT excavator (closed, sold) field by field', () => {
    const l = listingOf('4404_lot_580120.json');
    expect(l.title).toBe('2025 AGT MY50R 2-Ton Hydraulic Crawler Excavator with Cab (Unused)');
    expect(l.year).toBe('2025');
    expect(l.make).toBe('AGT');
    expect(l.model).toBe('MY50R');
    expect(l.condition).toBe('Unused');
    expect(l.hours).toBeNull();
    expect(l.status).toBe('sold');
    expect(l.currentBid).toBe(7000);
    expect(l.soldPrice).toBe(7000);
    expect(l.bidCount).toBe(111);
    expect(l.buyersPremiumPct).toBe(15);
    expect(l.city).toBe('Woodland');
    expect(l.state).toBe('CA');
    expect(l.endsAt).toEqual(new Date('2025-03-26T17:37:15Z'));
    // The lot record has only a thumbnail: the gallery comes from the images call the page queues.
    expect(l.images).toBeUndefined();
  });

  it('queues one gallery call per lot of an items page (GET, on the configured base URL)', () => {
    const { page } = lotPage('4404_lot_580120.json');
    const { next } = parseWestItems(page, env);
    expect(next).toEqual([{ label: 'update', url: 'https://www.westauction.com/api/auctions/4404/items/580120/images', externalId: '4404-580120' }]);
    expect(westAuctionAdapter.request!(next[0]!, env)).toEqual({ url: next[0]!.url, headers: { accept: 'application/json' } });
  });

  it.each(lotFiles.map((f) => f.file.replace('.json', '_images.json')))('%s: the whole gallery, full size, in order', (file) => {
    const recorded = JSON.parse(readRecorded('westauction', file)) as { data: { image_url: string }[]; lotId: string; auctionId: string };
    const url = `https://www.westauction.com/api/auctions/${recorded.auctionId}/items/${recorded.lotId}/images`;
    const { listings, updates } = parseWestImages(fetchedPage(readRecorded('westauction', file), url, 'update', { externalId: `${recorded.auctionId}-${recorded.lotId}` }));
    expect(listings).toEqual([]);
    expect(updates).toEqual([{ externalId: `${recorded.auctionId}-${recorded.lotId}`, images: recorded.data.map((d) => d.image_url) }]);
  });

  it('reads the AGT excavator gallery: 32 images, the first the lot record\'s thumbnail at full size', () => {
    const url = 'https://www.westauction.com/api/auctions/4404/items/580120/images';
    const { updates } = parseWestImages(fetchedPage(readRecorded('westauction', '4404_lot_580120_images.json'), url, 'update'));
    const images = updates![0]!.images!;
    expect(images).toHaveLength(32);
    expect(images[0]).toBe('https://d278yjzsv5tla9.cloudfront.net/auctionimages/4404/cp1741632031x580120/app/10-1333-f6ff03fa-b47d-46fb-a956-a0de9e803ba4/wA0181-31.jpg');
    expect(() => parseWestImages(fetchedPage('<html>502</html>', url, 'update'))).toThrow(ParseError);
    expect(() => parseWestImages(fetchedPage(readRecorded('westauction', '4404_lot_580120_images.json'), ITEMS_URL('4404'), 'update'))).toThrow(ParseError);
  });

  it('reads the upcoming John Deere tractor: hours from the meter, no bids, open', () => {
    const l = listingOf('4569_lot_605582.json', 'online-auction-of-vineyard-equipment-trucks-and-more-in-los-alamos-ca-4569');
    expect(l.title).toBe('1996 John Deere 870 Tractor');
    expect(l.url).toBe('https://www.westauction.com/auction/online-auction-of-vineyard-equipment-trucks-and-more-in-los-alamos-ca-4569/bidgallery/');
    expect(l.year).toBe('1996');
    expect(l.make).toBe('John Deere');
    expect(l.model).toBe('870 0052');
    expect(l.hours).toBe('9,094.3');
    expect(l.status).toBe('open');
    expect(l.bidCount).toBe(0);
    expect(l.currentBid).toBeNull();
    expect(l.askingPrice).toBe(5);
    expect(l.category).toBe('Vehicles & Automotive');
    expect(l.state).toBe('CA');
    expect(l.city).toBeNull();
    // 10:04 am PDT.
    expect(l.endsAt).toEqual(new Date('2025-10-30T17:04:00Z'));
  });

  it('reads the live Skyjack lift and the unsold trailer as they are', () => {
    const lift = listingOf('4657_lot_609240.json');
    expect(lift.title).toBe('Skyjack SJ 4626 Electric Scissor Lift - 26&#39; Max Height');
    expect(lift.make).toBe('Skyjack');
    expect(lift.model).toBe('SJ 4626');
    expect(lift.hours).toBe('324');
    expect(lift.status).toBe('open');
    expect(lift.currentBid).toBe(3150);
    expect(lift.bidCount).toBe(94);
    // "0.000" on this lot: a premium the record does not really state.
    expect(lift.buyersPremiumPct).toBeNull();
    expect(lift.url).toBe('https://www.westauction.com/api/auctions/4657/items/609240');

    const trailer = listingOf('4478_lot_600361.json');
    expect(trailer.make).toBe('Trailmobile');
    expect(trailer.year).toBeNull();
    expect(trailer.status).toBe('closed');
    expect(trailer.bidCount).toBe(0);
    expect(trailer.currentBid).toBeNull();
    expect(trailer.soldPrice).toBeNull();
    expect(trailer.city).toBe('Vallejo');
  });

  it('reads the generator (no Year or Make in its list) and the Ram odometer, not as hours', () => {
    const generator = listingOf('4226_lot_558721.json');
    expect(generator.model).toBe('3559750100');
    expect(generator.make).toBeNull();
    expect(generator.year).toBeNull();
    expect(generator.soldPrice).toBe(4055);
    expect(generator.bidCount).toBe(176);
    // Real close: 11:01:07 am PDT (end_time_unix would say 16:01:07Z, 2 h early).
    expect(generator.endsAt).toEqual(new Date('2024-10-09T18:01:07Z'));
    const ram = listingOf('4681_lot_612775.json');
    expect(ram).toMatchObject({ year: '2018', make: 'Ram', model: '2500 Heavy Duty', hours: null, status: 'open' });
  });

  it('turns the auction list into one items crawl per auction with its public gallery slug', () => {
    const auctions = ['4421', '4569', '4657'].map((id) => JSON.parse(readRecorded('westauction', `auction_${id}.json`)) as unknown);
    const { listings, next } = parseWestAuctions(fetchedPage(JSON.stringify({ result: 'success', data: auctions }), 'https://www.westauction.com/api/auctions', 'list', { page: 1, externalId: 'current' }), 'https://www.westauction.com');
    expect(listings).toEqual([]);
    expect(next).toContainEqual({ label: 'list', url: 'https://www.westauction.com/api/auctions/4569/items', page: 1, externalId: 'auction:online-auction-of-vineyard-equipment-trucks-and-more-in-los-alamos-ca-4569' });
    expect(next.filter((s) => s.url.endsWith('/items'))).toHaveLength(3);
    expect(next).toContainEqual({ label: 'list', url: 'https://www.westauction.com/api/auctions', page: 2, externalId: 'current' });
  });

  it('fails other shapes with a ParseError and POSTs forms', () => {
    expect(() => parseWestItems(fetchedPage('{"result":"success"}', ITEMS_URL('1')), env)).toThrow(ParseError);
    expect(() => parseWestItems(fetchedPage(readRecorded('westauction', '4121_lot_598370_images.json'), ITEMS_URL('4121')), env)).toThrow(ParseError);
    const [current, past] = westAuctionAdapter.start(env);
    expect(westAuctionAdapter.request!(current!, env)).toMatchObject({ method: 'POST', body: 'page=1&past_sales=0&meta_also=0' });
    expect(westAuctionAdapter.request!(past!, env).body).toBe('page=1&past_sales=1&meta_also=0');
  });
});
