import { describe, expect, it } from 'vitest';
import { ParseError } from '../../services/crawler/adapter.js';
import { parsePublicSurplusAuction, publicSurplusAdapter, readPublicSurplusAuction } from '../../services/crawler/adapters/publicsurplus.js';
import { fetchedPage, readRecorded } from '../support/recorded-sites.js';

const FILE = 'detail-active-with-bids-4053470_EXCERPT_BlackWhole.html';
const URL_ = 'https://www.publicsurplus.com/sms/auction/view?auc=4053470';

describe('Public Surplus adapter on the recorded auction-page excerpt', () => {
  it('reads price, bids, increment, minimum bid, epoch end and pick-up address', () => {
    const a = readPublicSurplusAuction(readRecorded('publicsurplus', FILE), URL_);
    expect(a).toEqual({
      auctionId: '4053470',
      title: null,
      currentPrice: 10.5,
      bidCount: 2,
      increment: 0.5,
      minimumBid: 11,
      // 1785524400000 = Jul 31, 2026 01:00 PM MDT ("Auction Ends" on the page).
      endsAt: new Date('2026-07-31T19:00:00Z'),
      street: '3610 N. Stone Ave.',
      city: 'Colorado Springs',
      state: 'CO',
      zip: '80907',
    });
  });

  it('yields no listing from the excerpt: it has no lot title (a ParseError, not a half-filled lot)', () => {
    expect(() => parsePublicSurplusAuction(fetchedPage(readRecorded('publicsurplus', FILE), URL_, 'detail'))).toThrow(/no lot title/);
  });

  it('fails other sites\u2019 pages with a ParseError', () => {
    expect(() => parsePublicSurplusAuction(fetchedPage(readRecorded('municibid', 'detail-active-84516049_TRIMMED_BlackWhole.html'), 'https://x/sms/auction/view', 'detail'))).toThrow(ParseError);
  });

  it('is disabled by default with its reason', () => {
    expect(publicSurplusAdapter.disabledReason).toMatch(/excerpt/);
    expect(publicSurplusAdapter.obeyRobots).toBe(true);
  });
});
