// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TEST_USER, installFakeApi, renderApp, setupDom, signIn, type FakeResponse } from '../../../testing/render-app.js';
import { chartPoints } from './price-history-chart.js';
import { comparablePrice, confidencePercent, earlyBidNote, marketLevelLine, priceVersusFairValue, valuesAsOf } from './valuation-card.js';
import { dealSubtitle } from './deal-detail.js';

setupDom();

function detail(overrides: Record<string, unknown> = {}) {
  return {
    id: 42,
    slug: 'caterpillar-320-42',
    make_model: 'Caterpillar 320',
    title: 'Caterpillar 320 Excavator',
    price: 84500,
    current_price: 84500,
    currency: 'USD',
    location: 'Dallas, TX',
    description: 'Runs well.\nNew tracks.',
    images: ['http://127.0.0.1/img/1.jpg', 42, 'http://127.0.0.1/img/2.jpg', null, 'http://127.0.0.1/img/3.jpg'],
    image_count: 3,
    auction_end_date: new Date(Date.now() + 2 * 86_400_000 + 4 * 3_600_000 + 60_000).toISOString(),
    original_url: 'http://127.0.0.1/lot/42',
    status: 'open',
    bid_count: 3,
    category: { id: 1, name: 'Excavators' },
    auction_site: { id: 2, name: 'GSA Auctions' },
    deal_score: 812,
    deal_level: 'excellent',
    year: 2016,
    hours: 5400,
    condition: 'Good',
    valuation: {
      as_of: '2026-11-25',
      fair_value: 103000,
      low: 92000,
      high: 114000,
      confidence: 0.72,
      claim: '$84,500 — about 18% under similar sales; 9 in 10 sold for more',
      note: 'Newer and fewer hours than these sales, so valued above them.',
      comparables: [
        { title: '2015 Caterpillar 320', price: 99000, original_price: 99000, adjusted_price: 99000, sold_at: '2026-09-14T00:00:00Z', source: 'West Auctions', url: 'http://127.0.0.1/sold/1' },
        { title: '2017 Caterpillar 320', price: 108000, original_price: 108000, adjusted_price: 108000, sold_at: '2026-08-02T00:00:00Z', source: 'West Auctions', url: null },
        { title: '2004 Caterpillar 320C', price: 58300, original_price: 41000, adjusted_price: 58300, sold_at: '2012-02-21T00:00:00Z', source: 'Fast Iron auction records', url: null },
      ],
    },
    score_reason: null,
    price_history: [
      { observed_at: '2026-11-10T00:00:00Z', price: 70000 },
      { observed_at: '2026-11-12T00:00:00Z', price: null },
      { observed_at: '2026-11-15T00:00:00Z', price: 84500 },
    ],
    ...overrides,
  };
}

function detailApi(answer: FakeResponse, premium = false) {
  signIn();
  return installFakeApi((req) => {
    if (req.path === '/api/auth/profile/') return { body: TEST_USER };
    if (req.path === '/api/subscriptions/status/') return { body: { is_premium: premium } };
    if (req.path.startsWith('/api/auctions/detail/')) return answer;
    return { status: 404, body: { detail: 'Not found.' } };
  });
}

describe('deal detail states', () => {
  it("loading: 'Loading auction details...'", async () => {
    detailApi('pending');
    renderApp('/deal/caterpillar-320-42');
    expect(await screen.findByText('Loading auction details...')).toBeTruthy();
  });

  it("error: 'Error Loading Deal' with the message and Back to Dashboard", async () => {
    detailApi({ status: 503, statusText: 'Service Unavailable', body: { detail: 'down' } });
    renderApp('/deal/caterpillar-320-42');
    expect(await screen.findByRole('heading', { name: 'Error Loading Deal' })).toBeTruthy();
    expect(screen.getByText('API request failed: 503 Service Unavailable')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Dashboard' }).getAttribute('href')).toBe('/dashboard');
  });

  it("not found: 'Deal Not Found'", async () => {
    const calls = detailApi({ status: 404, body: { detail: 'Not found.' } });
    renderApp('/deal/no-such-lot');
    expect(await screen.findByRole('heading', { name: 'Deal Not Found' })).toBeTruthy();
    expect(screen.getByText("The equipment deal you're looking for doesn't exist.")).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toBeTruthy();
    expect(calls.find((c) => c.path.startsWith('/api/auctions/detail/'))?.path).toBe('/api/auctions/detail/no-such-lot/');
  });

  it('success: carousel, title, subtitle, score, price, time left, details, description, original link, valuation; chart locked for free users', async () => {
    const calls = detailApi({ body: { data: detail() } });
    renderApp('/deal/caterpillar-320-42', { from: '/dashboard?category=1&page=2' });
    expect(await screen.findByRole('heading', { name: 'Caterpillar 320', level: 1 })).toBeTruthy();
    expect(calls.find((c) => c.path.startsWith('/api/auctions/detail/'))?.headers.authorization).toBe('Bearer access-1');
    expect(screen.getByText('2016 • 5,400 hours • Good')).toBeTruthy();
    expect(screen.getByText('82 • Excellent Deal')).toBeTruthy();
    expect(screen.getByTestId('deal-price').textContent).toBe('$84,500');
    expect(screen.getByText('2d 4h left')).toBeTruthy();
    expect(screen.getByText('3 images available')).toBeTruthy();
    expect(screen.getByRole('img', { name: /image 1 of 3/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next image' }));
    expect(screen.getByRole('img', { name: /image 2 of 3/ }).getAttribute('src')).toBe('http://127.0.0.1/img/2.jpg');
    fireEvent.error(screen.getByRole('img', { name: /image 2 of 3/ }));
    expect(screen.getByText('Image unavailable')).toBeTruthy();
    expect(screen.getByText('Image 2 of 3')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Previous image' }));
    expect(screen.getByRole('img', { name: /image 1 of 3/ })).toBeTruthy();

    const details = screen.getByRole('heading', { name: 'Equipment Details' }).closest('div')!.parentElement!;
    expect(within(details).getByText('Dallas, TX')).toBeTruthy();
    expect(within(details).getByText('Auction Ends')).toBeTruthy();
    expect(within(details).getByText('Excavators')).toBeTruthy();
    expect(within(details).getByText('GSA Auctions')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Description' })).toBeTruthy();
    expect(screen.getByText(/Runs well\./)).toBeTruthy();
    const original = screen.getByRole('link', { name: /View Original Auction/ });
    expect(original.getAttribute('href')).toBe('http://127.0.0.1/lot/42');
    expect(original.getAttribute('target')).toBe('_blank');
    expect(screen.getAllByRole('link', { name: 'Back to Dashboard' })[0]!.getAttribute('href')).toBe('/dashboard?category=1&page=2');

    expect(screen.getByText('$103,000')).toBeTruthy();
    // the deal in one sentence with numbers, as the API words it
    expect(screen.getByTestId('deal-claim').textContent).toBe('$84,500 — about 18% under similar sales; 9 in 10 sold for more');
    expect(screen.getByTestId('valuation-note').textContent).toBe('Newer and fewer hours than these sales, so valued above them.');
    expect(screen.getByText('18% below fair value')).toBeTruthy();
    expect(screen.getByText(/^Ends in 2d 4h: bids usually rise before the close/)).toBeTruthy();
    expect(screen.getByText('$92,000 – $114,000')).toBeTruthy();
    expect(screen.getByText('72%')).toBeTruthy();
    expect(screen.getByRole('link', { name: /2015 Caterpillar 320/ }).getAttribute('href')).toBe('http://127.0.0.1/sold/1');
    expect(screen.getByText('2017 Caterpillar 320')).toBeTruthy();
    // comparables: sale date, the price then and in today's dollars; the valuation's date; the buyer page
    const prices = screen.getAllByTestId('comparable-price').map((e) => e.textContent);
    expect(prices).toEqual(['$99,000', '$108,000', '$41,000 in Feb 2012 → $58,300 today']);
    expect(screen.getByText(/Sold Feb 21, 2012 · Fast Iron auction records/)).toBeTruthy();
    expect(screen.getByTestId('values-as-of').textContent).toMatch(/^Values as of Nov 25, 2026/);
    const help = screen.getByRole('link', { name: /How the deal score works/ });
    expect(help.getAttribute('href')).toBe('/docs/deal-score.md');
    expect(screen.queryByTestId('score-reason')).toBeNull();

    const locked = await screen.findByTestId('price-history-locked');
    expect(within(locked).getByText('Price history charts are a Premium feature')).toBeTruthy();
    expect(within(locked).getByRole('link', { name: 'Upgrade to Premium' }).getAttribute('href')).toBe('/account?tab=billing');
    expect(within(locked).getByText(/2 price observations/)).toBeTruthy();
  });

  it('premium users see the chart itself', async () => {
    detailApi({ body: { data: detail() } }, true);
    renderApp('/deal/caterpillar-320-42');
    await screen.findByRole('heading', { name: 'Caterpillar 320', level: 1 });
    await waitFor(() => expect(screen.queryByTestId('price-history-locked')).toBeNull());
    expect(screen.getByRole('img', { name: /Price history: 2 observations, from \$70,000 on Nov 10 to \$84,500 on Nov 15/ })).toBeTruthy();
  });

  it("fallbacks: 'Price not available', 'Location not available', 'No end date', 'No images available', no description, not valued, under a day warns", async () => {
    detailApi({
      body: {
        data: detail({
          price: null,
          location: null,
          images: [],
          description: '',
          valuation: null,
          price_history: [],
          deal_score: null,
          year: null,
          hours: null,
          condition: null,
          original_url: '',
          auction_end_date: null,
        }),
      },
    });
    renderApp('/deal/42');
    await screen.findByRole('heading', { name: 'Caterpillar 320', level: 1 });
    expect(screen.getByTestId('deal-price').textContent).toBe('Price not available');
    expect(screen.getByText('Location not available')).toBeTruthy();
    expect(screen.getAllByText('No end date').length).toBeGreaterThan(0);
    expect(screen.getByText('No images available')).toBeTruthy();
    expect(screen.getByText('50 • Fair Deal')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Description' })).toBeNull();
    expect(screen.queryByRole('link', { name: /View Original Auction/ })).toBeNull();
    expect(screen.getByText(/has not been valued yet/)).toBeTruthy();
    expect(screen.getByText('No price changes recorded yet.')).toBeTruthy();
  });

  it('a null score shows its reason where the score would be, and in the valuation', async () => {
    detailApi({ body: { data: detail({ deal_score: null, deal_level: null, valuation: null, score_reason: 'Not enough sales of this type yet' }) } });
    renderApp('/deal/42');
    await screen.findByRole('heading', { name: 'Caterpillar 320', level: 1 });
    expect(screen.getByTestId('score-reason').textContent).toBe('No score: Not enough sales of this type yet');
    expect(screen.queryByText(/Fair Deal/)).toBeNull();
    expect(screen.getByText('No deal score: Not enough sales of this type yet.')).toBeTruthy();
    expect(screen.queryByText(/has not been valued yet/)).toBeNull();
  });

  it('a valued listing without a score (no price yet) keeps its valuation and says why', async () => {
    detailApi({ body: { data: detail({ price: null, deal_score: null, deal_level: null, score_reason: 'No price to compare yet' }) } });
    renderApp('/deal/42');
    await screen.findByRole('heading', { name: 'Caterpillar 320', level: 1 });
    expect(screen.getByTestId('score-reason').textContent).toBe('No score: No price to compare yet');
    expect(screen.getByText('$103,000')).toBeTruthy();
    expect(screen.getByText('No deal score: No price to compare yet.')).toBeTruthy();
  });

  it("ended and under-a-day badges; the listing's currency", async () => {
    detailApi({ body: { data: detail({ auction_end_date: new Date(Date.now() + 7 * 3_600_000 + 60_000).toISOString(), currency: 'CAD', images: ['http://127.0.0.1/a.jpg'] }) } });
    renderApp('/deal/42');
    const badge = await screen.findByText('7h left');
    expect(badge.closest('[data-warning]')).toBeTruthy();
    expect(screen.getByTestId('deal-price').textContent).toBe('CA$84,500');
    expect(screen.queryByText(/images available/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Next image' })).toBeNull();
  });
});

describe('detail helpers', () => {
  it('subtitle joins the known values', () => {
    expect(dealSubtitle({ year: 2016, hours: 5400, condition: 'Good' })).toBe('2016 • 5,400 hours • Good');
    expect(dealSubtitle({ year: null, hours: 120, condition: null })).toBe('120 hours');
  });
  it("comparables read '$41,000 in Feb 2012 → $58,300 today'; one price when nothing was adjusted; the valuation's date", () => {
    expect(comparablePrice({ price: 58300, original_price: 41000, adjusted_price: 58300, sold_at: '2012-02-21T00:00:00Z' })).toBe('$41,000 in Feb 2012 → $58,300 today');
    expect(comparablePrice({ price: 60000, original_price: 60000.2, adjusted_price: 60000, sold_at: '2026-10-01T00:00:00Z' })).toBe('$60,000');
    // scores stored before today's dollars carry one price
    expect(comparablePrice({ price: 41000, sold_at: '2012-02-21T00:00:00Z' })).toBe('$41,000');
    expect(comparablePrice({ price: 58300, original_price: 41000, sold_at: null })).toBe('$58,300');
    expect(valuesAsOf('2026-11-25')).toBe('Values as of Nov 25, 2026');
    expect(valuesAsOf('2026-01-01')).toBe('Values as of Jan 1, 2026');
    expect(valuesAsOf(null)).toBeNull();
    // the month of the latest sales the market level rests on (carried flat after it)
    expect(marketLevelLine('2023-05')).toBe('Market level of May 2023, the latest sales we hold.');
    expect(marketLevelLine('2023-5')).toBeNull();
    expect(marketLevelLine(null)).toBeNull();
    expect(valuesAsOf('garbage')).toBeNull();
  });
  it('confidence and price versus fair value', () => {
    expect(confidencePercent(0.724)).toBe(72);
    expect(confidencePercent(null)).toBeNull();
    expect(priceVersusFairValue(84500, 103000)).toBe('18% below fair value');
    expect(priceVersusFairValue(120000, 100000)).toBe('20% above fair value');
    expect(priceVersusFairValue(null, 100000)).toBeNull();
  });
  it('an early low bid is explained; not near the end, not over value, not without an end', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const inHours = (h: number) => new Date(now.getTime() + h * 3_600_000).toISOString();
    expect(earlyBidNote(50_000, 100_000, inHours(24 * 8 + 19), now)).toBe(
      'Ends in 8d 19h: bids usually rise before the close, so a low bid this early counts for less in the score. The score is updated as the end nears.',
    );
    expect(earlyBidNote(50_000, 100_000, inHours(5), now)).toBeNull();
    expect(earlyBidNote(50_000, 100_000, inHours(-1), now)).toBeNull();
    expect(earlyBidNote(120_000, 100_000, inHours(48), now)).toBeNull();
    expect(earlyBidNote(50_000, 100_000, null, now)).toBeNull();
    expect(earlyBidNote(null, 100_000, inHours(48), now)).toBeNull();
  });

  it('chart points skip unpriced observations and sort by time', () => {
    const { points, min, max } = chartPoints([
      { observed_at: '2026-11-15T00:00:00Z', price: 84500 },
      { observed_at: '2026-11-12T00:00:00Z', price: null },
      { observed_at: 'garbage', price: 1 },
      { observed_at: '2026-11-10T00:00:00Z', price: 70000 },
    ]);
    expect(points.map((p) => p.price)).toEqual([70000, 84500]);
    expect([min, max]).toEqual([70000, 84500]);
    expect(points[0]!.x).toBeLessThan(points[1]!.x);
    expect(points[0]!.y).toBeGreaterThan(points[1]!.y);
  });
});
