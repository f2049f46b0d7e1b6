import { describe, expect, it } from 'vitest';
import type { ScrapedListing } from '../../services/shared/lots/normalize-listing.js';
import { adapterEnv, adapterHosts, NotFoundError, ParseError } from '../../services/crawler/adapter.js';
import { isSilentContentPage } from '../../services/crawler/crawl-pipeline.js';
import { municibidAdapter, parseMunicibidListing, parseMunicibidSearch } from '../../services/crawler/adapters/municibid.js';
import { expectWholeListing, fetchedPage, readRecorded } from '../support/recorded-sites.js';
import { readRepoRecorded, testConfig } from '../support/recorded-sites.js';

const SEARCH = 'search-results-active-chairs_TRIMMED_BlackWhole_discover_active_chairs.html';
const ACTIVE = 'detail-active-84516049_TRIMMED_BlackWhole.html';
const CLOSED = 'detail-closed-sold-82394410_TRIMMED_BlackWhole.html';

function search() {
  return parseMunicibidSearch(fetchedPage(readRecorded('municibid', SEARCH), 'https://municibid.com/Search/Results?page=1', 'list', { page: 1 }, '2026-07-31T09:10:00Z'));
}

describe('Municibid adapter on the recorded search results', () => {
  it('reads the 34 results as whole open listings', () => {
    const { listings, next } = search();
    expect(listings).toHaveLength(34);
    for (const l of listings) expectWholeListing(l);
    expect(new Set(listings.map((l) => l.status))).toEqual(new Set(['open']));
    expect(next).toEqual([]);
  });

  it('reads a lot with a bid field by field (JSON end time is UTC)', () => {
    const l = search().listings.find((x) => x.externalId === '84516049')!;
    expect(l.title).toBe('Banquet Chairs');
    expect(l.url).toBe('https://municibid.com/Listing/Details/84516049');
    expect(l.currentBid).toBe(25);
    expect(l.bidCount).toBe(1);
    expect(l.city).toBe('Boyertown');
    expect(l.state).toBe('PA');
    expect(l.endsAt).toEqual(new Date('2026-08-04T12:27:00Z'));
    expect(l.images).toEqual(['https://storagemunicibidpro.blob.core.windows.net/assets/media/beb07e00-f3cf-41b6-8642-e25f7df3660d_thumbcrop.jpg']);
  });

  it('reads lots with several bids and with none', () => {
    const listings = search().listings;
    const office = listings.find((x) => x.externalId === '84127570')!;
    expect(office.title).toBe('Multiple office chairs');
    expect(office.currentBid).toBe(16);
    expect(office.bidCount).toBe(7);
    expect(office.city).toBe('Zachary');
    expect(office.state).toBe('LA');
    expect(office.endsAt).toEqual(new Date('2026-08-04T14:00:00Z'));
    const black = listings.find((x) => x.externalId === '84710337')!;
    expect(black.title).toBe('Black Chairs (5 Pack)');
    expect(black.bidCount).toBe(0);
    expect(black.currentBid).toBeNull();
    expect(black.askingPrice).toBe(1);
    expect(black.city).toBe('New Kensington');
    const desks = listings.find((x) => x.externalId === '84385765')!;
    expect(desks.title).toBe('Lot of 28 Virco Analogy Combo Desks - Excellent');
    expect(desks.askingPrice).toBe(500);
  });
});

describe('Municibid adapter on the recorded listing pages', () => {
  it('reads the active listing as a partial update: current bid, bid count, Eastern end time in UTC, no location', () => {
    const [l] = parseMunicibidListing(fetchedPage(readRecorded('municibid', ACTIVE), 'https://municibid.com/Listing/Details/84516049', 'detail')).updates!;
    expectWholeListing(l as ScrapedListing);
    expect(l!.externalId).toBe('84516049');
    expect(l!.title).toBe('Banquet Chairs');
    expect(l!.currentBid).toBe(25);
    expect(l!.bidCount).toBe(1);
    expect(l!.status).toBe('open');
    // A listing page has no location or image: a partial update leaves the search page's alone.
    for (const key of ['city', 'state', 'images', 'country']) expect(l).not.toHaveProperty(key);
    // 08/04/2026 08:27:00 Eastern = the search JSON's 2026-08-04T12:27:00.
    expect(l!.endsAt).toEqual(new Date('2026-08-04T12:27:00Z'));
  });

  it('reads the closed listing as sold with its final bid', () => {
    const [l] = parseMunicibidListing(fetchedPage(readRecorded('municibid', CLOSED), 'https://municibid.com/Listing/Details/82394410', 'detail')).updates!;
    expectWholeListing(l as ScrapedListing);
    expect(l!.externalId).toBe('82394410');
    expect(l!.title).toBe('Miscellaneous Chairs');
    expect(l!.status).toBe('sold');
    expect(l!.soldPrice).toBe(21);
    expect(l!.currentBid).toBe(21);
    expect(l!.bidCount).toBe(8);
    expect(l!.endsAt).toEqual(new Date('2026-05-04T12:06:00Z'));
  });

  it('reads an old search page whose result JSON is empty as an empty page, not a changed layout', () => {
    const body = readRecorded('municibid', SEARCH).replace(/(<script type="application\/json" id="srp-markers-data">)[\s\S]*?(<\/script>)/, '$1[]$2');
    expect(body).toContain('id="srp-markers-data">[]</script>');
    expect(parseMunicibidSearch(fetchedPage(body, 'https://municibid.com/Search/Results?page=1'))).toMatchObject({ listings: [], empty: true });
  });

  it('fails pages that are not a listing with a ParseError', () => {
    expect(() => parseMunicibidListing(fetchedPage(readRecorded('municibid', SEARCH), 'https://municibid.com/Listing/Details/1', 'detail'))).toThrow(ParseError);
    expect(() => parseMunicibidSearch(fetchedPage(readRecorded('municibid', ACTIVE), 'https://municibid.com/Search/Results'))).toThrow(ParseError);
  });

  it('re-checks a known lot on its listing page', () => {
    const env = adapterEnv(municibidAdapter, testConfig());
    expect(municibidAdapter.detailStep!({ externalId: '84516049', originalUrl: 'https://municibid.com/Listing/Details/84516049' }, env)).toEqual({
      label: 'detail',
      url: 'https://municibid.com/Listing/Details/84516049',
      externalId: '84516049',
    });
    expect(municibidAdapter.obeyRobots).toBe(true);
  });

  it('follows redirects between the apex and www hosts only, or only the override host', () => {
    expect(adapterHosts(municibidAdapter, testConfig())).toEqual(['municibid.com', 'www.municibid.com']);
    expect(adapterHosts(municibidAdapter, testConfig({ SOURCE_BASE_URLS: 'municibid=http://127.0.0.1:9' }))).toEqual(['127.0.0.1:9']);
  });
});

// Municibid's redesigned site (Next.js, data in flight rows): recorded pages kept in the
// repository under tests/fixtures/sites/municibid-next/ (origin in its SOURCE.md).
const NEXT_BROWSE = 'browse_desks_chairs_active.html';
const NEXT_EMPTY = 'browse_empty_page.html';
const NEXT_ACTIVE = 'detail_active_86233903.html';
const NEXT_UNSUCCESSFUL = 'detail_closed_unsuccessful_86003942.html';
const NEXT_NOT_FOUND = 'detail_not_found.html';
const nextPage = (file: string, path: string, label: 'list' | 'detail' = 'list') =>
  fetchedPage(readRepoRecorded('municibid-next', file), `https://municibid.com${path}`, label, label === 'list' ? { page: 1 } : {}, '2026-10-09T16:45:00Z');

describe('Municibid adapter on the new site (Next.js flight rows)', () => {
  it('reads a browse page\'s rows as whole open listings, field by field', () => {
    const { listings, next } = parseMunicibidSearch(nextPage(NEXT_BROWSE, '/browse'));
    expect(listings.map((l) => l.externalId)).toEqual(['86351268', '85608644']);
    for (const l of listings) expectWholeListing(l);
    const [desks, cubicles] = listings;
    expect(desks).toMatchObject({
      title: 'Adjustable height school desks - lot of 300',
      // The URL with its slug comes from the page's JSON-LD ItemList.
      url: 'https://municibid.com/listing/86351268/adjustable-height-school-desks-lot-of-300',
      city: 'Doylestown',
      state: 'PA',
      country: 'US',
      currency: 'USD',
      bidCount: 0,
      currentBid: null,
      askingPrice: 125,
      status: 'open',
      seller: 'Central Bucks School District',
      images: ['https://storagemunicibidpro.blob.core.windows.net/assets/media/f9e5a6e3-103e-4a09-ba7e-3e1eeb583fcb_thumbcrop.jpg'],
    });
    // endsAtUtc has no zone designator: it is UTC, not the reader's local time.
    expect(desks!.endsAt).toEqual(new Date('2026-10-16T13:15:00Z'));
    expect(cubicles).toMatchObject({ title: 'Cubicle Desks - qty of 2', city: 'Linesville', state: 'PA', askingPrice: 10, seller: 'Conneaut School District' });
    expect(cubicles!.endsAt).toEqual(new Date('2026-10-16T13:45:00Z'));
    // The 404 template's "closing soon" cards (86057168…) are not this page's lots; one page only.
    expect(listings.some((l) => l.externalId === '86057168')).toBe(false);
    expect(next).toEqual([]);
  });

  it('reads an empty browse page ("No listings found.") as empty, not as a changed layout', () => {
    const page = nextPage(NEXT_EMPTY, '/browse');
    const result = parseMunicibidSearch(page);
    expect(result).toEqual({ listings: [], next: [], empty: true });
    // 6.8 KB of content and no lots: without the notice the pipeline would take it for a changed layout.
    expect(isSilentContentPage(page.step, result, page.body)).toBe(false);
    expect(isSilentContentPage(page.step, { ...result, empty: undefined }, page.body)).toBe(true);
  });

  it('reads an active listing\'s bid box: current bid, bids, status, UTC end, gallery', () => {
    const [l] = parseMunicibidListing(nextPage(NEXT_ACTIVE, '/listing/86233903', 'detail')).updates!;
    expectWholeListing(l as ScrapedListing);
    expect(l).toMatchObject({ externalId: '86233903', title: 'padded folding chairs', url: 'https://municibid.com/listing/86233903', currentBid: 195, askingPrice: null, bidCount: 1, status: 'open', soldPrice: null });
    expect(l!.endsAt).toEqual(new Date('2026-10-20T12:29:00Z'));
    expect(l!.images).toEqual([
      'https://storagemunicibidpro.blob.core.windows.net/assets/media/45538190-7a6d-ab28-2099-4041a5e18c8f_largesize.jpg',
      'https://storagemunicibidpro.blob.core.windows.net/assets/media/1c7d89fa-8704-5075-b1b6-72ebf49f026d_largesize.jpg',
      'https://storagemunicibidpro.blob.core.windows.net/assets/media/c953104a-3f20-0161-65e4-314f45b0af56_largesize.jpg',
    ]);
    // The related auctions are other lots (Mansfield, MA): never this lot's location or seller.
    for (const key of ['city', 'state', 'seller']) expect(l).not.toHaveProperty(key);
    // No reserve on this lot (isNoReserve): reserveMet is null, not false.
    expect(l!.reserveMet).toBeNull();
  });

  it('reads a closed unsuccessful listing as closed, not sold, with its reserve not met', () => {
    const [l] = parseMunicibidListing(nextPage(NEXT_UNSUCCESSFUL, '/listing/86003942', 'detail')).updates!;
    expect(l).toMatchObject({ externalId: '86003942', title: 'Meeting Room Chairs', status: 'closed', soldPrice: null, bidCount: 0, currentBid: null, askingPrice: 25 });
    expect(l!.endsAt).toEqual(new Date('2026-10-08T17:06:00Z'));
    expect(l!.images).toHaveLength(3);
    expect(l!.reserveMet).toBe(false);
    expect((l!.raw as { bidBox: { initial: { status: string } } }).bidBox.initial.status).toBe('Unsuccessful');
  });

  it('recognises a removed listing as not found, although every page carries the 404 template', () => {
    expect(() => parseMunicibidListing(nextPage(NEXT_NOT_FOUND, '/listing/86000001', 'detail'))).toThrow(NotFoundError);
    // The template alone is not "not found": an active page has it too and parses.
    expect(readRepoRecorded('municibid-next', NEXT_ACTIVE)).toContain('We could not find that page');
  });

  it('refuses pages of the wrong kind or a changed layout with a ParseError', () => {
    // A listing page is not a browse page, and the reverse.
    expect(() => parseMunicibidSearch(nextPage(NEXT_ACTIVE, '/browse'))).toThrow(ParseError);
    expect(() => parseMunicibidListing(nextPage(NEXT_BROWSE, '/listing/86351268', 'detail'))).toThrow(ParseError);
    // Rows renamed by a redesign: no listing rows and no empty notice.
    const renamed = readRepoRecorded('municibid-next', NEXT_BROWSE).replaceAll('\\"listing\\":{', '\\"item\\":{');
    expect(() => parseMunicibidSearch(fetchedPage(renamed, 'https://municibid.com/browse'))).toThrow(/no listing rows/);
    // A bid status it does not know is a layout change, not a guess.
    const status = readRepoRecorded('municibid-next', NEXT_ACTIVE).replace('\\"status\\":\\"Active\\"', '\\"status\\":\\"Paused\\"');
    expect(() => parseMunicibidListing(fetchedPage(status, 'https://municibid.com/listing/86233903', 'detail'))).toThrow(/unknown bid status/);
  });

  it('follows the browse pager\'s "Next" link (zero-based page query)', () => {
    const paged = readRepoRecorded('municibid-next', NEXT_BROWSE).replace(
      ',false,null]}]]}]]}]\\n"])',
      ',false,[\\"$\\",\\"nav\\",null,{\\"className\\":\\"browse-pager\\",\\"children\\":[[\\"$\\",\\"$L24\\",null,{\\"href\\":{\\"pathname\\":\\"/browse\\",\\"query\\":{\\"category\\":\\"29720497\\",\\"page\\":\\"1\\"}},\\"className\\":\\"browse-pager__nav\\",\\"children\\":\\"Next \\u2192\\"}]]}]]}]]}]]}]\\n"])',
    );
    expect(paged).not.toBe(readRepoRecorded('municibid-next', NEXT_BROWSE));
    const { next } = parseMunicibidSearch(fetchedPage(paged, 'https://municibid.com/browse', 'list', { page: 1 }));
    expect(next).toEqual([{ label: 'list', url: 'https://municibid.com/browse?category=29720497&page=1', page: 2 }]);
  });

  it('starts on /browse and re-checks a lot where it was found (new or old address)', () => {
    const env = adapterEnv(municibidAdapter, testConfig());
    expect(municibidAdapter.start(env)).toEqual([{ label: 'list', url: 'https://municibid.com/browse', page: 1 }]);
    expect(municibidAdapter.detailStep!({ externalId: '86233903', originalUrl: 'https://municibid.com/listing/86233903/padded-folding-chairs' }, env)!.url).toBe('https://municibid.com/listing/86233903');
    expect(municibidAdapter.detailStep!({ externalId: '84516049', originalUrl: 'https://municibid.com/Listing/Details/84516049' }, env)!.url).toBe('https://municibid.com/Listing/Details/84516049');
  });
});
