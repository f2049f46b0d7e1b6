import { describe, expect, it } from 'vitest';
import { fastResponseSerializer, responseJsonSchema } from '../../services/api/plugins/fast-serializer.js';
import { detailResponseSchema, listResponseSchema, type DealDetail, type ListingCard } from '../../services/listings/listing-schemas.js';

const card: ListingCard = {
  id: 7,
  slug: 'caterpillar-320-7',
  make_model: 'Caterpillar 320 "GC" <b>',
  year: 2016,
  price: 41250.5,
  current_price: null,
  deal_score: 812,
  currency: 'USD',
  location: 'Houston, TX',
  auction_end_date: '2026-12-01T15:00:00.000Z',
  first_image: null,
  image_count: 0,
  category: { id: 1, name: 'Excavators' },
  auction_site: { id: 3, name: 'West Auctions' },
  original_url: 'https://example.test/lot/7?x=1&y=2',
  good_bid_limit: 6200,
};
const nullCard: ListingCard = { ...card, id: 8, year: null, price: null, current_price: 900, deal_score: null, location: null, auction_end_date: null, first_image: 'https://img.test/1.jpg' };
const list = { data: { items: [card, nullCard], pagination: { current_page: 1, total_pages: 1, total_count: 2, has_next: false, has_previous: false } } };

const detail: { data: DealDetail } = {
  data: {
    id: 7, slug: 's', make_model: 'm', title: 't', price: null, current_price: 5, currency: 'USD', location: null,
    description: 'line\nwith "quotes" and \\ backslash \u2028', images: ['a', 'b'], image_count: 2, auction_end_date: null,
    original_url: 'u', status: 'open', bid_count: 0, category: { id: 1, name: 'c' }, auction_site: { id: 2, name: 's' },
    deal_score: null, deal_level: null, score_reason: 'Not enough sales of this type yet', year: null, hours: 1200, condition: null,
    valuation: { as_of: '2026-11-25', market_as_of: '2023-05', fair_value: 1, low: null, high: 2, confidence: 0.5, claim: '$1 — about 60% under similar sales; 99 in 100 sold for more', note: null, comparables: [{ title: 'x', price: 1.5, original_price: 1, adjusted_price: 1.5, sold_at: '2024-01-01', source: 'f', url: null }] },
    bid_limits: null,
    price_history: [{ observed_at: '2026-01-01T00:00:00.000Z', price: null }],
  },
};

function compile(schema: unknown, verify: boolean) {
  return fastResponseSerializer({ verify })({ schema, method: 'GET', url: '/x', httpStatus: '200' } as never);
}

describe('fast response serializer', () => {
  it('writes exactly what JSON.stringify writes for valid list and detail responses, nulls included', () => {
    for (const verify of [true, false]) {
      expect(JSON.parse(compile(listResponseSchema, verify)(list))).toEqual(list);
      expect(JSON.parse(compile(detailResponseSchema, verify)(detail))).toEqual(detail);
    }
    expect(JSON.parse(compile(detailResponseSchema, false)({ data: { ...detail.data, valuation: null } }))).toEqual({ data: { ...detail.data, valuation: null } });
  });

  it('compiles nullable scalars to a type list (no run-time anyOf), keeping nullable objects as anyOf', () => {
    const json = JSON.stringify(responseJsonSchema(listResponseSchema));
    expect(json).toContain('"type":["integer","null"]');
    expect(json).toContain('"type":["string","null"]');
    expect(JSON.stringify(responseJsonSchema(detailResponseSchema))).toContain('"anyOf"');
  });

  it('rejects a response that breaks the contract when verifying (as outside production)', () => {
    const broken = { data: { ...list.data, items: [{ ...card, make_model: null }] } };
    expect(() => compile(listResponseSchema, true)(broken)).toThrow();
    const missing = { data: { items: [card] } };
    expect(() => compile(listResponseSchema, true)(missing)).toThrow();
    // Unverified, fast-json-stringify would have written "" — why tests run with verification on.
    expect(JSON.parse(compile(listResponseSchema, false)(broken)).data.items[0].make_model).toBe('');
  });
});
