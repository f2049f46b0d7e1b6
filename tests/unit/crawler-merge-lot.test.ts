import { describe, expect, it } from 'vitest';
import { mergeLot, normalizeListing, type ScrapedListing } from '../../services/shared/lots/normalize-listing.js';

const page = 'https://auctions.example.com/search?page=1';
const now = new Date('2026-11-21T06:00:00Z');

const card: ScrapedListing = {
  externalId: 'lot-1',
  title: '2016 CAT 320FL Excavator',
  url: '/lots/1',
  city: 'Houston',
  state: 'Texas',
  currency: 'USD',
  status: 'open',
  endsAt: '2026-12-01T18:00:00Z',
  images: ['/img/thumb.jpg'],
};

describe('mergeLot', () => {
  it('gives the same listing and hash as normalising the lot anew when the response carries every field it ever had', () => {
    const stored = normalizeListing(card, page, now);
    const merged = mergeLot(stored, card, page, now);
    expect(merged).toEqual(stored);
    expect(merged.contentHash).toBe(stored.contentHash);
  });

  it('merges a bid-info row: the bid, bid count and price change; everything it does not carry keeps its value', () => {
    const stored = normalizeListing(card, page, now);
    const merged = mergeLot(stored, { externalId: 'lot-1', currentBid: 61500, bidCount: 14, askingPrice: 50000 }, 'https://auctions.example.com/bid-info', now);
    expect(merged).toMatchObject({ currentBid: 61500, bidCount: 14, askingPrice: 50000, price: 61500, priceUsd: 61500 });
    expect(merged).toMatchObject({ title: stored.title, make: 'Caterpillar', model: '320FL', year: 2016, city: 'Houston', state: 'TX', images: stored.images, originalUrl: stored.originalUrl, auctionEndAt: stored.auctionEndAt });
    expect(merged.contentHash).not.toBe(stored.contentHash);
  });

  it('a later full page without a price keeps the merged price (no flip-flop), and an explicit change overwrites', () => {
    const withBid = mergeLot(normalizeListing(card, page, now), { externalId: 'lot-1', currentBid: 100, bidCount: 2 }, page, now);
    const recrawl = mergeLot(withBid, card, page, now);
    expect(recrawl.contentHash).toBe(withBid.contentHash);
    expect(recrawl.price).toBe(100);
    const moved = mergeLot(withBid, { ...card, city: 'Dallas', currentBid: null }, page, now);
    expect(moved).toMatchObject({ city: 'Dallas', currentBid: null, price: null });
  });

  it('a gallery replaces the images in its order; an absent gallery keeps them', () => {
    const stored = normalizeListing(card, page, now);
    const gallery = mergeLot(stored, { externalId: 'lot-1', images: ['https://cdn.example.com/b.jpg', 'https://cdn.example.com/a.jpg'] }, page, now);
    expect(gallery.images).toEqual(['https://cdn.example.com/b.jpg', 'https://cdn.example.com/a.jpg']);
    expect(mergeLot(gallery, { externalId: 'lot-1', status: 'open' }, page, now).images).toEqual(gallery.images);
  });

  it('a closing update makes a sold lot with its final price from the merged bid', () => {
    const stored = mergeLot(normalizeListing(card, page, now), { externalId: 'lot-1', currentBid: 900, bidCount: 3 }, page, now);
    expect(mergeLot(stored, { externalId: 'lot-1', status: 'sold' }, page, now)).toMatchObject({ status: 'sold', soldPrice: 900, price: 900 });
    expect(mergeLot(stored, { externalId: 'lot-1', status: 'sold', soldPrice: 950 }, page, now).soldPrice).toBe(950);
  });

  it('a carried title re-derives make, model and year as for a new lot; without a title they stay', () => {
    const stored = normalizeListing(card, page, now);
    expect(mergeLot(stored, { externalId: 'lot-1', title: '2018 Komatsu PC210 Excavator' }, page, now)).toMatchObject({ make: 'Komatsu', year: 2018 });
    expect(mergeLot(stored, { externalId: 'lot-1', description: 'runs' }, page, now)).toMatchObject({ make: 'Caterpillar', year: 2016, description: 'runs' });
  });
});
