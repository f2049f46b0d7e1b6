import { describe, expect, it } from 'vitest';
import { adapterEnv, ParseError } from '../../services/crawler/adapter.js';
import { gsaAuctionsAdapter, parseGsaAuctions } from '../../services/crawler/adapters/gsaauctions.js';
import { normalizeListing } from '../../services/shared/lots/normalize-listing.js';
import { expectWholeListing, fetchedPage, readRecorded, testConfig } from '../support/recorded-sites.js';

const FILE = 'api-v2-auctions_Results_SELECTED-20-items_BlackWhole_discover_sample.json';
const URL_ = 'https://api.gsa.gov/assets/gsaauctions/v2/auctions?format=JSON';

function parse() {
  return parseGsaAuctions(fetchedPage(readRecorded('gsaauctions', FILE), URL_)).listings;
}

describe('GSA Auctions adapter on the recorded API feed', () => {
  it('turns all 20 recorded items into whole listings, ids from sale and lot number', () => {
    const listings = parse();
    expect(listings).toHaveLength(20);
    for (const l of listings) expectWholeListing(l);
    expect(new Set(listings.map((l) => l.externalId)).size).toBe(20);
  });

  it('reads the Chinook training aid field by field (values checked in the file)', () => {
    const l = parse().find((x) => x.externalId === '4-1-QSC-I-26-410-001')!;
    expect(l.title).toBe('Boeing CH-47D Chinook CAT C Training Aid');
    expect(l.url).toBe('https://www.gsaauctions.gov/auctions/preview/370801');
    expect(l.currentBid).toBe(9950);
    expect(l.bidCount).toBe(5);
    expect(l.city).toBe('TULSA');
    expect(l.state).toBe('OK');
    expect(l.status).toBe('open');
    expect(l.images).toEqual(['https://www.ppms.gov/gw/auction/ppms/api/v1/auction/image/41QSCI26410001.jpg']);
    // The feed has a closing date but no time of day: no instant is made up.
    expect(l.endsAt).toBeUndefined();
    expect(l.description).toMatch(/^Auction closes on 2026-07-31\./);
    // Nothing in the feed states make, model, year, hours or a buyer's premium.
    expect(l.make ?? null).toBeNull();
    expect(l.model ?? null).toBeNull();
    expect(l.year ?? null).toBeNull();
    expect(l.hours ?? null).toBeNull();
    expect(l.buyersPremiumPct ?? null).toBeNull();
  });

  it('reads lots with and without bids as they are', () => {
    const listings = parse();
    const scales = listings.find((x) => x.externalId === '3-1-QSC-I-26-499-005')!;
    expect(scales.title).toBe('Patient and Wheelchair Scale Lot');
    expect(scales.city).toBe('SHREVEPORT');
    expect(scales.state).toBe('LA');
    expect(scales.currentBid).toBeNull();
    expect(scales.bidCount).toBeNull();
    expect(scales.url).toBe('https://www.gsaauctions.gov/auctions/preview/371182');
    expect(scales.description).toContain('This lot contains (13) patient and wheelchair scales.');

    const shredder = listings.find((x) => x.externalId === '3-1-QSC-I-26-499-004')!;
    expect(shredder.title).toBe('Fellowes Paper Shredder');
    expect(shredder.currentBid).toBe(5);
    expect(shredder.bidCount).toBe(1);
    expect(shredder.city).toBe('Golden');
    expect(shredder.state).toBe('CO');

    const desk = listings.find((x) => x.externalId === '1-1-QSC-I-26-269-001')!;
    expect(desk.title).toBe('Executive Wood Office Desk/Workstation');
    expect(desk.images).toEqual([]);
    expect(desk.state).toBe('WV');

    const furniture = listings.find((x) => x.externalId === '1-1-QSC-I-26-269-020')!;
    expect(furniture.title).toBe('Office Furniture');
  });

  it('normalises a lot: bid as price, two-letter state, absolute image, no end time', () => {
    const chinook = parse().find((x) => x.externalId === '4-1-QSC-I-26-410-001')!;
    const n = normalizeListing(chinook, URL_, new Date('2026-07-30T00:00:00Z'));
    expect(n.price).toBe(9950);
    expect(n.state).toBe('OK');
    expect(n.auctionEndAt).toBeNull();
    expect(n.originalUrl).toBe('https://www.gsaauctions.gov/auctions/preview/370801');
    expect(n.images).toHaveLength(1);
  });

  it('fails a body that is not the feed with a ParseError', () => {
    for (const body of ['', '<html>nope</html>', '{"Results":"x"}', '{"error":{"code":"OVER_RATE_LIMIT"}}']) {
      expect(() => parseGsaAuctions(fetchedPage(body, URL_))).toThrow(ParseError);
    }
    expect(() => parseGsaAuctions(fetchedPage('{"Results":[{"itemName":"no ids"}]}', URL_))).toThrow(ParseError);
    expect(parseGsaAuctions(fetchedPage('{"Results":[]}', URL_)).listings).toEqual([]);
  });

  it('asks the official API with the configured key, within its documented limits', () => {
    const config = testConfig({ GSA_API_KEY: 'my-key' });
    const env = adapterEnv(gsaAuctionsAdapter, config);
    expect(env.baseUrl).toBe('https://api.gsa.gov');
    const [start] = gsaAuctionsAdapter.start(env);
    expect(start!.url).toBe(URL_);
    expect(gsaAuctionsAdapter.request!(start!, env).headers).toMatchObject({ 'X-API-KEY': 'my-key' });
    expect(testConfig().GSA_API_KEY).toBe('DEMO_KEY');
    // 5 calls per 5 s: one at a time, a second apart.
    expect(gsaAuctionsAdapter.politeness).toEqual({ minDelayMs: 1000, maxConcurrency: 1 });
    expect(gsaAuctionsAdapter.disabledReason).toBeUndefined();
    expect(adapterEnv(gsaAuctionsAdapter, testConfig({ SOURCE_BASE_URLS: 'gsaauctions=http://127.0.0.1:9/' })).baseUrl).toBe('http://127.0.0.1:9');
  });
});
