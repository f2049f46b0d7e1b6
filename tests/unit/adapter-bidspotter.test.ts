import { describe, expect, it } from 'vitest';
import { adapterEnv, ParseError } from '../../services/crawler/adapter.js';
import { bidSpotterAdapter, parseBidSpotterSearch } from '../../services/crawler/adapters/bidspotter.js';
import { expectWholeListing, fetchedPage, readRecorded, testConfig } from '../support/recorded-sites.js';

const FILE = 'search-results-chairs_TRIMMED-3-cards_BlackWhole_bidspotter_search_chairs.html';
const URL_ = 'https://www.bidspotter.com/en-us/search-results?searchTerm=chairs&page=1';
// Saved 2026-07-21.
const search = () => parseBidSpotterSearch(fetchedPage(readRecorded('bidspotter', FILE), URL_, 'list', { page: 1 }, '2026-07-21T12:00:00Z'));

describe('BidSpotter adapter on the recorded search page', () => {
  it('reads the 3 cards as whole listings and pages on (13 pages)', () => {
    const { listings, next } = search();
    expect(listings.map((l) => l.externalId)).toEqual(['00a1c5e1-2b6b-4029-8bb3-b45200f057c5', 'aaf53c9e-a9d1-4de6-a794-b477015c7b1f', 'ea890a07-d99f-4a24-94e9-b477015c7b1f']);
    for (const l of listings) expectWholeListing(l);
    expect(next).toEqual([{ label: 'list', url: URL_.replace('page=1', 'page=2'), page: 2 }]);
  });

  it('reads the Ghost chairs card field by field; no price (the cards carry none)', () => {
    const l = search().listings[1]!;
    expect(l.title).toBe('Ghost chairs');
    expect(l.url).toBe('https://www.bidspotter.com/en-us/auction-catalogues/stone/catalogue-id-stone-10117/lot-aaf53c9e-a9d1-4de6-a794-b477015c7b1f');
    expect(l.city).toBe('Belmont');
    expect(l.state).toBe('North Carolina');
    expect(l.currency).toBe('USD');
    expect(l.endsAt).toEqual(new Date('2026-07-22T15:32:00Z'));
    expect(l.status).toBe('open');
    expect(l.images).toEqual(['https://cdn.globalauctionplatform.com/auctions-2026/stone-10117/images/f844cb75-e5e1-4704-87bb-b478012448c7.jpg?h=175']);
    expect(l.description).toBe('Ghost chairs');
    expect(l.currentBid ?? null).toBeNull();
    expect(l.askingPrice ?? null).toBeNull();
  });

  it('reads the featured mold lot in Grand Rapids; its end agrees with the recorded bid info', () => {
    const l = search().listings[0]!;
    expect(l.title).toBe('EPS 4-Cavity Mold, Kids Chairs');
    expect(l.city).toBe('Grand Rapids');
    expect(l.state).toBe('Michigan');
    expect(l.endsAt).toEqual(new Date('2026-08-25T16:40:00Z'));
    const bidInfo = JSON.parse(readRecorded('bidspotter', 'api-lot-bidinfo_BlackWhole_bidspotter_bid_info.json')) as { Model: { LotId: string; EndTimeUtc: string } }[];
    const row = bidInfo.find((r) => r.Model.LotId === l.externalId)!;
    expect(new Date(Number(/\d+/.exec(row.Model.EndTimeUtc)![0]))).toEqual(l.endsAt);
  });

  it('reads the Tuscan chairs card', () => {
    const l = search().listings[2]!;
    expect(l).toMatchObject({ title: 'Tuscan Chairs', city: 'Belmont', state: 'North Carolina' });
    expect(l.endsAt).toEqual(new Date('2026-07-22T15:33:00Z'));
  });

  it('fails pages that are not search results with a ParseError', () => {
    expect(() => parseBidSpotterSearch(fetchedPage(readRecorded('bidspotter', 'api-lot-bidinfo_BlackWhole_bidspotter_bid_info.json'), URL_))).toThrow(ParseError);
    expect(() => parseBidSpotterSearch(fetchedPage('<html><body>Access denied</body></html>', URL_))).toThrow(ParseError);
  });

  it('searches equipment terms', () => {
    const steps = bidSpotterAdapter.start(adapterEnv(bidSpotterAdapter, testConfig()));
    expect(steps).toHaveLength(10);
    expect(new URL(steps[0]!.url).searchParams.get('searchTerm')).toBe('excavator');
  });
});
