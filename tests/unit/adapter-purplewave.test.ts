import { describe, expect, it } from 'vitest';
import { adapterEnv, ParseError } from '../../services/crawler/adapter.js';
import { buyersPremiumFromText, parsePurpleWaveSearch, purpleWaveAdapter } from '../../services/crawler/adapters/purplewave.js';
import { normalizeListing } from '../../services/shared/lots/normalize-listing.js';
import { expectWholeListing, fetchedPage, readRecorded, testConfig } from '../support/recorded-sites.js';

const FILE = 'api-v1-search-search_sold-dateType-past_TRIMMED-6-items_BlackWhole_sold_sweep.json';
const URL_ = 'https://www.purplewave.com/v1/search/search?searchType=all&dateType=past&perPage=100&page=1';

function parse() {
  return parsePurpleWaveSearch(fetchedPage(readRecorded('purplewave', FILE), URL_, 'list', { page: 1 }));
}

describe('Purple Wave adapter on the recorded sold sweep', () => {
  it('reads the 6 sold items as whole listings', () => {
    const { listings, next } = parse();
    expect(listings).toHaveLength(6);
    for (const l of listings) expectWholeListing(l);
    expect(next).toEqual([]);
  });

  it('reads a sold lot field by field: hammer price, bids, 10% premium, location, end, images', () => {
    const l = parse().listings.find((x) => x.externalId === '250107-EQ2550')!;
    expect(l.title).toBe('Furniture');
    expect(l.url).toBe('https://www.purplewave.com/auction/250107/item/EQ2550');
    expect(l.status).toBe('sold');
    expect(l.currentBid).toBe(55);
    expect(l.soldPrice).toBe(55);
    expect(l.bidCount).toBe(3);
    expect(l.buyersPremiumPct).toBe(10);
    expect(l.city).toBe('Dickinson');
    expect(l.state).toBe('TX');
    expect(l.endsAt).toBe(1736272680);
    expect(l.images).toHaveLength(14);
    expect(l.images![0]).toBe('https://d323w7klwy72q3.cloudfront.net/i/a/2025/20250107govt/EQ2550.JPG');
    // year 0 and hours 0 mean "not applicable" for furniture: absent.
    expect(l.year).toBeNull();
    expect(l.hours).toBeNull();
    expect(l.make).toBeNull();
  });

  it('reads the other lots as they are', () => {
    const listings = parse().listings;
    const tables = listings.find((x) => x.externalId === '250121-NJ9683')!;
    expect(tables.title).toBe('(5) picnic tables');
    expect(tables.soldPrice).toBe(2900);
    expect(tables.bidCount).toBe(37);
    expect(tables.city).toBe('Webster Groves');
    expect(tables.state).toBe('MO');
    expect(tables.endsAt).toBe(1737483308);
    const folding = listings.find((x) => x.externalId === '250107-NI9330')!;
    expect(folding.title).toBe("(13) 8' L folding tables");
    expect(folding.currentBid).toBe(325);
    expect(folding.bidCount).toBe(24);
    expect(folding.city).toBe('Leavenworth');
    expect(folding.images).toHaveLength(6);
  });

  it('normalises a sold lot with its sale price and UTC end', () => {
    const l = parse().listings.find((x) => x.externalId === '250121-EJ5309')!;
    const n = normalizeListing(l, URL_);
    expect(n.status).toBe('sold');
    expect(n.soldPrice).toBe(100);
    expect(n.auctionEndAt?.toISOString()).toBe('2025-01-21T18:12:00.000Z');
    expect(n.state).toBe('OK');
  });

  it('pages on while pages are full and fails other shapes with a ParseError', () => {
    const items = JSON.parse(readRecorded('purplewave', FILE)) as unknown[];
    const full = JSON.stringify(Array.from({ length: 100 }, (_, i) => items[i % items.length]));
    expect(parsePurpleWaveSearch(fetchedPage(full, URL_, 'list', { page: 1 })).next).toEqual([{ label: 'list', url: URL_.replace('page=1', 'page=2'), page: 2 }]);
    expect(() => parsePurpleWaveSearch(fetchedPage('{"message":"error"}', URL_))).toThrow(ParseError);
    expect(parsePurpleWaveSearch(fetchedPage('[]', URL_)).listings).toEqual([]);
  });

  it('reads the premium only from its sentence', () => {
    expect(buyersPremiumFromText("A 10% buyer's premium will be added")).toBe(10);
    expect(buyersPremiumFromText('No reserve')).toBeNull();
  });

  it('sweeps upcoming and past lots', () => {
    const steps = purpleWaveAdapter.start(adapterEnv(purpleWaveAdapter, testConfig()));
    expect(steps.map((s) => new URL(s.url).searchParams.get('dateType'))).toEqual(['upcoming', 'past']);
    expect(purpleWaveAdapter.obeyRobots).toBe(true);
  });
});
