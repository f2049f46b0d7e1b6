import { describe, expect, it } from 'vitest';
import { adapterEnv, ParseError } from '../../services/crawler/adapter.js';
import { bidSpotterAdapter, parseBidSpotterBidInfo, parseBidSpotterSearch } from '../../services/crawler/adapters/bidspotter.js';
import { expectWholeListing, fetchedPage, readRecorded, testConfig } from '../support/recorded-sites.js';

const FILE = 'search-results-chairs_TRIMMED-3-cards_BlackWhole_bidspotter_search_chairs.html';
const URL_ = 'https://www.bidspotter.com/en-us/search-results?searchTerm=chairs&page=1';
const BID_INFO = 'api-lot-bidinfo_BlackWhole_bidspotter_bid_info.json';
const BID_INFO_URL = 'https://www.bidspotter.com/en-us/lot/reload-timed-bid-info?v=1.3.0.1&c=lotsearch';
const env = adapterEnv(bidSpotterAdapter, testConfig());
// Saved 2026-07-21.
const search = () => parseBidSpotterSearch(fetchedPage(readRecorded('bidspotter', FILE), URL_, 'list', { page: 1 }, '2026-07-21T12:00:00Z'), env);
const bidInfo = () => parseBidSpotterBidInfo(fetchedPage(readRecorded('bidspotter', BID_INFO), BID_INFO_URL, 'update', {}, '2026-07-21T12:00:00Z'));
const GUIDS = ['00a1c5e1-2b6b-4029-8bb3-b45200f057c5', 'aaf53c9e-a9d1-4de6-a794-b477015c7b1f', 'ea890a07-d99f-4a24-94e9-b477015c7b1f'];

describe('BidSpotter adapter on the recorded search page', () => {
  it('reads the 3 cards as whole listings, asks for their bids in one batch and pages on (13 pages)', () => {
    const { listings, next } = search();
    expect(listings.map((l) => l.externalId)).toEqual(GUIDS);
    for (const l of listings) expectWholeListing(l);
    expect(next).toEqual([
      { label: 'update', url: BID_INFO_URL, page: 1, externalId: 'bids:chairs', lotIds: GUIDS },
      { label: 'list', url: URL_.replace('page=1', 'page=2'), page: 2 },
    ]);
  });

  it('POSTs the batch as the site does: a JSON array of lot ids', () => {
    const request = bidSpotterAdapter.request!({ label: 'update', url: BID_INFO_URL, page: 1, externalId: 'bids:chairs', lotIds: GUIDS }, env);
    expect(request).toMatchObject({ url: BID_INFO_URL, method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(request.body!)).toEqual(GUIDS.map((LotId) => ({ LotId, BidderHasBids: false })));
  });

  it('reads the Ghost chairs card field by field; no price and no status (the cards carry none: they come with the bid info)', () => {
    const l = search().listings[1]!;
    expect(l.title).toBe('Ghost chairs');
    expect(l.url).toBe('https://www.bidspotter.com/en-us/auction-catalogues/stone/catalogue-id-stone-10117/lot-aaf53c9e-a9d1-4de6-a794-b477015c7b1f');
    expect(l.city).toBe('Belmont');
    expect(l.state).toBe('North Carolina');
    expect(l.currency).toBe('USD');
    expect(l.endsAt).toEqual(new Date('2026-07-22T15:32:00Z'));
    expect(l.status).toBeUndefined();
    expect(l.images).toEqual(['https://cdn.globalauctionplatform.com/auctions-2026/stone-10117/images/f844cb75-e5e1-4704-87bb-b478012448c7.jpg?h=175']);
    expect(l.description).toBe('Ghost chairs');
    expect(l.currentBid).toBeUndefined();
    expect(l.askingPrice).toBeUndefined();
    expect(l.bidCount).toBeUndefined();
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

  it('reads the recorded bid info as partial updates of the 3 lots: bids, price for the whole quantity, end time, status', () => {
    const { listings, updates, next } = bidInfo();
    expect(listings).toEqual([]);
    expect(next).toEqual([]);
    expect(updates!.map((u) => u.externalId)).toEqual(GUIDS);
    // Mold: 1 bid of 50, quantity 1, EndTimeUtc /Date(1787676000000)/.
    expect(updates![0]).toMatchObject({ bidCount: 1, currentBid: 50, askingPrice: null, currency: 'USD', status: 'open', soldPrice: null, endsAt: new Date(1787676000000) });
    // Ghost chairs: 3 bids, leading 7 per chair × 43 = 301 (the row's TotalHammerPrice).
    expect(updates![1]).toMatchObject({ bidCount: 3, currentBid: 301, status: 'open', endsAt: new Date('2026-07-22T15:32:00Z') });
    // Tuscan chairs: 2 bids, 6 × 127 = 762.
    expect(updates![2]).toMatchObject({ bidCount: 2, currentBid: 762, status: 'open', endsAt: new Date('2026-07-22T15:33:00Z') });
    // Only what the row carries: no title, location or images to blank the card's.
    for (const u of updates!) for (const key of ['title', 'url', 'city', 'state', 'images', 'description']) expect(u).not.toHaveProperty(key);
  });

  it('reads a closed row with bids and the reserve met as sold at its total hammer price; no bids as the opening price', () => {
    const [row] = JSON.parse(readRecorded('bidspotter', BID_INFO)) as { Model: Record<string, unknown> }[];
    const closed = { Model: { ...row!.Model, LotClosed: true, IsBiddingClosed: true } };
    const noBids = { Model: { ...row!.Model, TotalBids: 0 } };
    const { updates } = parseBidSpotterBidInfo(fetchedPage(JSON.stringify([closed, noBids]), BID_INFO_URL, 'update'));
    expect(updates![0]).toMatchObject({ status: 'sold', soldPrice: 50, currentBid: 50 });
    expect(updates![1]).toMatchObject({ status: 'open', currentBid: null, askingPrice: 50, bidCount: 0 });
  });

  it('fails a bid-info answer that is not rows of lots with a ParseError', () => {
    for (const body of ['<html>502</html>', '{"error":1}', '[{"Model":{"LotId":"not-a-guid"}}]']) {
      expect(() => parseBidSpotterBidInfo(fetchedPage(body, BID_INFO_URL, 'update'))).toThrow(ParseError);
    }
    expect(parseBidSpotterBidInfo(fetchedPage('[]', BID_INFO_URL, 'update')).updates).toEqual([]);
  });

  it('fails pages that are not search results with a ParseError', () => {
    expect(() => parseBidSpotterSearch(fetchedPage(readRecorded('bidspotter', BID_INFO), URL_), env)).toThrow(ParseError);
    expect(() => parseBidSpotterSearch(fetchedPage('<html><body>Access denied</body></html>', URL_), env)).toThrow(ParseError);
  });

  it('searches equipment terms', () => {
    const steps = bidSpotterAdapter.start(adapterEnv(bidSpotterAdapter, testConfig()));
    expect(steps).toHaveLength(10);
    expect(new URL(steps[0]!.url).searchParams.get('searchTerm')).toBe('excavator');
  });
});
