import { describe, expect, it } from 'vitest';
import { adapterEnv, ParseError } from '../../services/crawler/adapter.js';
import { parseSierraLotPage, sierraAuctionAdapter } from '../../services/crawler/adapters/sierraauction.js';
import { expectWholeListing, fetchedPage, readRecorded, testConfig } from '../support/recorded-sites.js';

const TRAILER = 'lot-detail-481867-trailer_dfg-console_tmp_snapshot.html';
const JETTA = 'lot-detail-485563-vw-jetta_dfg-console_new.html';
const BASE = 'https://sierraauction.auctioneersoftware.com';

function lotPage(file: string, url: string, at = '2025-12-10T12:00:00Z') {
  return parseSierraLotPage(fetchedPage(readRecorded('other-sierraauction', file), url, 'detail', {}, at), BASE);
}

describe('Sierra Auction adapter on the recorded lot pages', () => {
  it('reads the cargo trailer field by field from the page state', () => {
    const { listings, next } = lotPage(TRAILER, `${BASE}/auctions/6797/lot/481867-2006-carson-trailer-hiway-cargo-trailer`);
    expect(listings).toHaveLength(1);
    const l = listings[0]!;
    expectWholeListing(l);
    expect(l.externalId).toBe('481867');
    expect(l.title).toBe('2006 Carson Trailer HiWay Cargo Trailer');
    expect(l.url).toBe('https://sierraauction.auctioneersoftware.com/auctions/6797/lot/481867-2006-carson-trailer-hiway-cargo-trailer');
    expect(l.year).toBe('2006');
    expect(l.make).toBe('Carson Trailer');
    expect(l.model).toBe('HiWay Cargo');
    expect(l.hours).toBeNull();
    expect(l.category).toBe('Trailer');
    expect(l.currentBid).toBe(1300);
    expect(l.bidCount).toBe(22);
    expect(l.status).toBe('open');
    expect(l.endsAt).toEqual(new Date('2025-12-18T17:54:29Z'));
    expect(l.state).toBe('Arizona');
    expect(l.city).toBeNull();
    expect(l.buyersPremiumPct ?? null).toBeNull();
    expect(l.images).toHaveLength(33);
    expect(l.images![0]).toBe('https://d3j17a2r8lnfte.cloudfront.net/sie/2025/11/large/GEmE4oriKfBqTwYqNoeC40lk.jpeg');
    expect(l.description).toContain('VIN/SERIAL');
    // Walks on to the next lot of the auction.
    expect(next).toEqual([{ label: 'detail', url: `${BASE}/auctions/6797/lot/487451`, externalId: '487451' }]);
  });

  it('reads the Jetta: Phoenix yard, one bid, its end; sold once the end has passed', () => {
    const l = lotPage(JETTA, `${BASE}/auctions/6800/lot/485563-2003-volkswagen-jetta`).listings[0]!;
    expect(l.title).toBe('2003 Volkswagen Jetta');
    expect(l).toMatchObject({ year: '2003', make: 'Volkswagen', model: 'Jetta', city: 'Phoenix', state: 'Arizona', country: 'US', currentBid: 200, bidCount: 1, status: 'open' });
    expect(l.endsAt).toEqual(new Date('2025-12-20T15:16:30Z'));
    expect(l.images).toHaveLength(12);
    expect(l.images![0]).toBe('https://d3j17a2r8lnfte.cloudfront.net/sie/2025/10/large/mlYmEs_88E2EuEvVlQzix073.jpeg');
    const after = lotPage(JETTA, `${BASE}/auctions/6800/lot/485563`, '2025-12-21T00:00:00Z').listings[0]!;
    expect(after).toMatchObject({ status: 'sold', soldPrice: 200 });
  });

  it('fails pages without the lot state with a ParseError', () => {
    expect(() => parseSierraLotPage(fetchedPage('<html><script>window.__APOLLO_STATE__ = {"ROOT_QUERY":{}};</script></html>', BASE, 'detail'), BASE)).toThrow(ParseError);
    expect(() => parseSierraLotPage(fetchedPage(readRecorded('municibid', 'detail-active-84516049_TRIMMED_BlackWhole.html'), BASE, 'detail'), BASE)).toThrow(ParseError);
  });

  it('re-checks a known lot on its page', () => {
    const env = adapterEnv(sierraAuctionAdapter, testConfig());
    expect(sierraAuctionAdapter.detailStep!({ externalId: '481867', originalUrl: `${BASE}/auctions/6797/lot/481867-2006-carson-trailer-hiway-cargo-trailer` }, env)).toEqual({
      label: 'detail',
      url: `${BASE}/auctions/6797/lot/481867`,
      externalId: '481867',
    });
  });
});
