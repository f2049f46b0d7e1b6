import { describe, expect, it } from 'vitest';
import { ParseError } from '../../services/crawler/adapter.js';
import { parseRbCategoryPage, parseRbRecords } from '../../services/crawler/adapters/rbauction.js';
import { normalizeListing } from '../../services/shared/lots/normalize-listing.js';
import { expectWholeListing, fetchedPage, readRecorded } from '../support/recorded-sites.js';

type Wrapper = { subcategories: { url: string; price_elements: unknown[] }[] };
const wrapper = JSON.parse(readRecorded('rbauction', 'nextdata-cp-sold-records_excavators_GabriFarace_data.json')) as Wrapper;
const dataUrl = (category: string, from = 0) => `https://www.rbauction.com/_next/data/b1/en-US/cp/${category}.json?listingStatuses=Sold&from=${from}`;

/** One category's recorded records inside the Next.js data envelope they came from. */
function categoryData(index: number, total?: number) {
  const sub = wrapper.subcategories[index]!;
  const category = sub.url.split('/cp/')[1]!;
  const body = JSON.stringify({ pageProps: { data: { results: { totalAmount: total ?? sub.price_elements.length, records: sub.price_elements } } } });
  return parseRbRecords(fetchedPage(body, dataUrl(category), 'list', { page: 1 }));
}

describe('Ritchie Bros. adapter on the 298 recorded sold records', () => {
  it('reads every record of the five categories as a whole sold listing without a price', () => {
    let count = 0;
    for (let i = 0; i < wrapper.subcategories.length; i++) {
      const { listings } = categoryData(i);
      expect(listings).toHaveLength(wrapper.subcategories[i]!.price_elements.length);
      for (const l of listings) {
        expectWholeListing(l);
        expect(l.status).toBe('sold');
        expect(l.currentBid ?? null).toBeNull();
        expect(l.soldPrice ?? null).toBeNull();
      }
      count += listings.length;
    }
    expect(count).toBe(298);
  });

  it('reads the unused AGT mini excavator field by field', () => {
    const l = categoryData(0).listings.find((x) => x.externalId === '10620581')!;
    expect(l.title).toBe('2023 AGT QS12R Mini Excavator (Unused)');
    expect(l).toMatchObject({ make: 'AGT', model: 'QS12R', year: 2023, hours: 7, city: 'Tipton', state: 'CA', country: 'US', currency: 'USD' });
    expect(l.url).toBe('https://www.rbauction.com/cp/mini-excavator-6-6t');
    expect(l.endsAt).toEqual(new Date('2023-11-09T17:55:45Z'));
    expect(l.images).toEqual(['https://cdn.ironpla.net/i/14387/514/3896b35a-2646-4ebe-8fc7-812d1cb08163.jpg']);
    expect(l.category).toBe('Mini Excavator: <6.6t');
  });

  it('reads a Canadian lot (no year stated, end as epoch ms) and a Volvo tracked excavator', () => {
    const kubota = categoryData(0).listings.find((x) => x.externalId === '10886679')!;
    expect(kubota).toMatchObject({ title: 'Kubota KH045 Mini Excavator', make: 'Kubota', model: 'KH045', year: null, hours: 2582, city: 'Camrose', state: null, country: 'CA' });
    expect(normalizeListing(kubota, dataUrl('mini-excavator-6-6t')).auctionEndAt?.toISOString()).toBe(new Date(1710789360000).toISOString());
    const volvo = categoryData(1).listings.find((x) => x.externalId === '10965914')!;
    expect(volvo).toMatchObject({ title: '2016 Volvo EC350EL Tracked Excavator', make: 'Volvo', model: 'EC350E L', year: 2016, hours: 5709, city: 'Mills River', state: 'NC' });
    expect(volvo.url).toBe('https://www.rbauction.com/cp/tracked-excavator');
  });

  it('asks for the next slice while records remain', () => {
    expect(categoryData(1, 500).next).toEqual([{ label: 'list', url: dataUrl('tracked-excavator', 60), page: 2 }]);
    expect(categoryData(1).next).toEqual([]);
  });

  it('reads the facets-only search answer as nothing to list', () => {
    const body = readRecorded('rbauction', 'api-search-aggregations_GabriFarace_response.json');
    expect(parseRbRecords(fetchedPage(body, 'https://www.rbauction.com/api/search'))).toEqual({ listings: [], next: [] });
  });

  it('finds the build id on a category page, and fails other pages with a ParseError', () => {
    const html = '<script id="__NEXT_DATA__" type="application/json">{"props":{},"page":"/cp/[slug]","buildId":"AbC-12_x"}</script>';
    expect(parseRbCategoryPage(fetchedPage(html, 'https://www.rbauction.com/cp/tracked-excavator'), 'https://www.rbauction.com').next).toEqual([
      { label: 'list', url: 'https://www.rbauction.com/_next/data/AbC-12_x/en-US/cp/tracked-excavator.json?listingStatuses=Sold&from=0', page: 1 },
    ]);
    expect(() => parseRbCategoryPage(fetchedPage('<html></html>', 'https://www.rbauction.com/cp/x'), 'https://www.rbauction.com')).toThrow(ParseError);
    expect(() => parseRbRecords(fetchedPage('{"pageProps":{}}', dataUrl('x')))).toThrow(ParseError);
  });
});
