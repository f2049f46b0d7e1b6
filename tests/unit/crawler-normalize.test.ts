import { describe, expect, it } from 'vitest';
import { normalizeCondition, normalizeListing, parseEndTime } from '../../services/shared/lots/normalize-listing.js';
import { absoluteUrl, cleanLine, cleanText, parseCount, parseMoney } from '../../services/shared/lots/text.js';

const page = 'https://auctions.example.com/lots/1';

describe('untrusted text', () => {
  it('strips markup, decodes entities, removes invisible characters and bounds length', () => {
    expect(cleanLine('<b>2016 CAT</b> 320FL &amp; <script>alert(1)</script>Excavator')).toBe('2016 CAT 320FL & alert(1) Excavator');
    expect(cleanLine('a\u202eb\u0000c\u200bd')).toBe('abcd');
    expect(cleanLine('x'.repeat(500), 100)).toHaveLength(100);
    expect(cleanText('<p>One</p><p>Two<br>Three</p><style>p{}</style><!-- c -->')).toBe('One\nTwo\nThree');
    expect(cleanText('<img src=x onerror=alert(1)>hello')).toBe('hello');
  });

  it('decodes every HTML entity, not only a short list: names, numbers, legacy forms, escaped markup stays text', () => {
    // Names the old hand table lacked (&sup2;, &Uuml;, &frac13;, &hArr;, &NotEqualTilde;) and a legacy form without ";".
    expect(cleanLine('20 m&sup2; &Uuml;bersicht &frac13; &hArr; &NotEqualTilde; 5&nbsp;ton &copy 2024')).toBe('20 m² Übersicht ⅓ ⇔ ≂̸ 5 ton © 2024');
    expect(cleanLine('Bobcat&#x2019;s &#8220;S650&#8221; &eacute;')).toBe('Bobcat’s “S650” é');
    // Decoded markup is stripped, never kept as markup.
    expect(cleanLine('&lt;img src=x onerror=alert(1)&gt;Loader')).toBe('Loader');
    // An unknown name stays as written.
    expect(cleanLine('AT&T &bogus; bucket')).toBe('AT&T &bogus; bucket');
  });

  it('keeps only absolute http(s) URLs', () => {
    expect(absoluteUrl('/images/1.jpg', page)).toBe('https://auctions.example.com/images/1.jpg');
    expect(absoluteUrl('javascript:alert(1)', page)).toBeNull();
    expect(absoluteUrl('data:image/png;base64,AAAA', page)).toBeNull();
    expect(absoluteUrl('https://cdn.example.com/a.jpg#x', page)).toBe('https://cdn.example.com/a.jpg');
  });

  it('reads money and counts, refusing nonsense', () => {
    expect(parseMoney('$42,500.00')).toBe(42500);
    expect(parseMoney('-5')).toBeNull();
    expect(parseMoney('call')).toBeNull();
    expect(parseCount('1,234 hrs')).toBe(1234);
    expect(parseCount('Hour meter not reading')).toBeNull();
  });
});

describe('normalizeListing', () => {
  it('normalises a lot: title parsing, state code, condition, price rule, UTC end, images, hash', () => {
    const listing = normalizeListing(
      {
        externalId: ' 123 ',
        title: '2016 CAT 320FL Excavator',
        url: '/lots/123',
        description: '<p>Clean &amp; ready</p>',
        hours: '4,210',
        condition: 'Used - good running order',
        state: 'Texas',
        city: ' Houston ',
        askingPrice: '5000',
        currentBid: '$61,500',
        bidCount: 14,
        buyersPremiumPct: '10',
        endsAt: '2026-12-01T18:00:00-06:00',
        images: ['/img/1.jpg', '/img/1.jpg', 'javascript:x', 'https://cdn.example.com/2.jpg'],
      },
      page,
    );
    expect(listing).toMatchObject({
      externalId: '123',
      make: 'Caterpillar',
      model: '320FL',
      modelFamily: '320',
      year: 2016,
      hours: 4210,
      condition: 'Good',
      categoryId: 1,
      state: 'TX',
      city: 'Houston',
      price: 61500,
      priceUsd: 61500,
      currentBid: 61500,
      askingPrice: 5000,
      buyersPremiumPct: 10,
      status: 'open',
      originalUrl: 'https://auctions.example.com/lots/123',
      images: ['https://auctions.example.com/img/1.jpg', 'https://cdn.example.com/2.jpg'],
      description: 'Clean & ready',
    });
    expect(listing.auctionEndAt?.toISOString()).toBe('2026-12-02T00:00:00.000Z');
    expect(listing.contentHash).toMatch(/^[0-9a-f]{40}$/);
  });

  it('uses the asking price when there are no bids, and converts other currencies for sorting', () => {
    const listing = normalizeListing({ externalId: '9', title: 'Generator', url: page, askingPrice: 1000, currentBid: 0, bidCount: 0, currency: 'cad' }, page);
    expect(listing).toMatchObject({ price: 1000, currentBid: null, currency: 'CAD', priceUsd: 730 });
  });

  it('gives sold lots a final price and changes the hash when the bid changes', () => {
    const base = { externalId: '1', title: 'Dozer', url: page, currentBid: 100, bidCount: 1 };
    const a = normalizeListing(base, page);
    const b = normalizeListing({ ...base, currentBid: 150 }, page);
    expect(a.contentHash).not.toBe(b.contentHash);
    expect(normalizeListing({ ...base, status: 'sold' }, page).soldPrice).toBe(100);
  });

  it('maps conditions to the six values or null, and end times to plausible UTC dates', () => {
    expect(normalizeCondition('unused')).toBe('New');
    expect(normalizeCondition('For parts or repair')).toBe('Parts Only');
    expect(normalizeCondition('mystery')).toBeNull();
    expect(parseEndTime(1785524400000)?.toISOString()).toBe('2026-07-31T19:00:00.000Z');
    expect(parseEndTime(1785524400)?.toISOString()).toBe('2026-07-31T19:00:00.000Z');
    expect(parseEndTime('not a date')).toBeNull();
    expect(parseEndTime('1900-01-01')).toBeNull();
  });
});
