// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CATEGORIES, TEST_USER, card, installFakeApi, listResponse, renderApp, setupDom, signIn, type FakeResponse } from '../../../testing/render-app.js';

setupDom();

function dashboardApi(list: (query: URLSearchParams) => FakeResponse) {
  signIn();
  return installFakeApi((req) => {
    if (req.path === '/api/auth/profile/') return { body: TEST_USER };
    if (req.path === '/api/subscriptions/status/') return { body: { is_premium: false } };
    if (req.path === '/api/auctions/categories/') return { body: CATEGORIES };
    if (req.path === '/api/auctions/list/') return list(req.query);
    return { status: 404, body: { detail: 'Not found.' } };
  });
}

const listCalls = (calls: { path: string; query: URLSearchParams }[]) => calls.filter((c) => c.path === '/api/auctions/list/').map((c) => Object.fromEntries(c.query));

describe('dashboard states', () => {
  it("loading: 'Loading auctions...'", async () => {
    dashboardApi(() => 'pending');
    renderApp('/dashboard');
    expect(await screen.findByText('Loading auctions...')).toBeTruthy();
  });

  it("error: 'Error loading auctions' with the message and Try Again, which reloads", async () => {
    let fail = true;
    const calls = dashboardApi(() => (fail ? { status: 500, statusText: 'Internal Server Error', body: { detail: 'boom' } } : { body: listResponse([card()]) }));
    renderApp('/dashboard');
    expect(await screen.findByText('Error loading auctions')).toBeTruthy();
    expect(screen.getByText('API request failed: 500 Internal Server Error')).toBeTruthy();
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByText('Caterpillar 320 Excavator')).toBeTruthy();
    expect(listCalls(calls)).toHaveLength(2);
  });

  it("empty: 'No equipment found'", async () => {
    dashboardApi(() => ({ body: listResponse([]) }));
    renderApp('/dashboard');
    expect(await screen.findByText('No equipment found')).toBeTruthy();
    expect(screen.getByText('Try adjusting your filters to see more results.')).toBeTruthy();
    expect(screen.getByText('0 deals found')).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Pagination' })).toBeNull();
  });

  it('empty on a new installation: says the first crawl is running, or that no source is enabled', async () => {
    let status = { enabled_sources: ['GSA Auctions'], first_crawl_running: true, has_listings: false };
    signIn();
    installFakeApi((req) => {
      if (req.path === '/api/auth/profile/') return { body: TEST_USER };
      if (req.path === '/api/subscriptions/status/') return { body: { is_premium: false } };
      if (req.path === '/api/auctions/categories/') return { body: CATEGORIES };
      if (req.path === '/api/auctions/list/') return { body: listResponse([]) };
      if (req.path === '/api/crawl-status/') return { body: status };
      return { status: 404, body: { detail: 'Not found.' } };
    });
    const view = renderApp('/dashboard');
    expect(await screen.findByText('The first crawl of GSA Auctions is running: deals appear here within minutes.')).toBeTruthy();
    expect(screen.getByText('No equipment found')).toBeTruthy();
    view.unmount();

    status = { enabled_sources: [], first_crawl_running: false, has_listings: false };
    const unfiltered = renderApp('/dashboard');
    expect(await screen.findByText('No auction site is being watched yet: an administrator enables sources (CRAWL_SOURCES).')).toBeTruthy();
    unfiltered.unmount();

    renderApp('/dashboard?search=dozer');
    expect(await screen.findByText('No equipment found')).toBeTruthy();
    // Filtered: the spec's text alone (the filters explain the empty result).
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('success: heading, count and cards with every field of the spec', async () => {
    const calls = dashboardApi(() => ({
      body: listResponse(
        [
          card(),
          card({ id: 2, slug: 'deere-310sj-2', make_model: 'John Deere 310SJ', price: null, deal_score: null, first_image: null, image_count: 2, auction_end_date: null, location: null }),
          card({ id: 3, slug: 'komatsu-d61-3', make_model: 'Komatsu D61', deal_score: 350, first_image: null, image_count: 0, auction_end_date: new Date(Date.now() - 1000).toISOString() }),
          card({ id: 4, slug: 'bobcat-s650-4', make_model: 'Bobcat S650', deal_score: 655, price: 23999.5, auction_end_date: new Date(Date.now() + 5 * 3_600_000 + 60_000).toISOString() }),
        ],
        { total_count: 4 },
      ),
    }));
    renderApp('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Equipment Deals' })).toBeTruthy();
    expect(await screen.findByText('4 deals found')).toBeTruthy();
    const cards = screen.getAllByTestId('deal-card');
    expect(cards).toHaveLength(4);
    const [cat, deere, komatsu, bobcat] = cards.map((c) => within(c));
    expect(cat!.getByText('87 • Excellent Deal')).toBeTruthy();
    expect(cat!.getByText('$84,500')).toBeTruthy();
    expect(cat!.getByText('3d 5h left')).toBeTruthy();
    expect(cat!.getByText('Dallas, TX')).toBeTruthy();
    expect(cat!.getByText('Excavators')).toBeTruthy();
    expect(cat!.getByText('GSA Auctions')).toBeTruthy();
    expect(cat!.getByRole('img', { name: 'Caterpillar 320 Excavator' }).getAttribute('src')).toBe('http://127.0.0.1/img/1.jpg');
    expect(cat!.getByRole('link', { name: /View details/ }).getAttribute('href')).toBe('/deal/caterpillar-320-excavator-1');
    const share = cat!.getByRole('link', { name: /original listing/ });
    expect(share.getAttribute('href')).toBe('http://127.0.0.1/lot/1');
    expect(share.getAttribute('target')).toBe('_blank');
    expect(share.getAttribute('rel')).toContain('noopener');
    expect(deere!.getByText('50 • Fair Deal')).toBeTruthy();
    expect(deere!.getByText('Price on request')).toBeTruthy();
    expect(deere!.getByText('No image available')).toBeTruthy();
    expect(deere!.getByText('2 images pending')).toBeTruthy();
    expect(deere!.getByText('No end date')).toBeTruthy();
    expect(komatsu!.getByText('35 • Poor Deal')).toBeTruthy();
    expect(komatsu!.getByText('Auction Ended')).toBeTruthy();
    expect(komatsu!.queryByText(/pending/)).toBeNull();
    expect(bobcat!.getByText('66 • Good Deal')).toBeTruthy();
    expect(bobcat!.getByText('$24,000')).toBeTruthy();
    expect(bobcat!.getByText('5h left').closest('[data-warning]')).toBeTruthy();
    expect(listCalls(calls)[0]).toEqual({ sort_by: 'deal_score_high', page: '1', page_size: '15' });
    expect(calls.find((c) => c.path === '/api/auctions/list/')?.headers.authorization).toBeUndefined();
    expect(screen.getByRole('list', { name: 'Deals' }).className).toContain('md:grid-cols-2');
    expect(screen.getByRole('list', { name: 'Deals' }).className).toContain('xl:grid-cols-3');
  });
});

describe('dashboard filters, sort and pages', () => {
  function pagedApi() {
    return dashboardApi((q) => {
      const page = Number(q.get('page'));
      return {
        body: listResponse([card({ id: page, slug: `lot-${page}`, make_model: `Lot on page ${page}` })], {
          current_page: page,
          total_pages: 3,
          total_count: 31,
          has_next: page < 3,
          has_previous: page > 1,
        }),
      };
    });
  }

  it("pages with Previous/Next and 'Page X of Y'", async () => {
    const calls = pagedApi();
    const { router } = renderApp('/dashboard');
    expect(await screen.findByText('Page 1 of 3')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Previous' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Page 2 of 3')).toBeTruthy();
    expect(screen.getByText('Lot on page 2')).toBeTruthy();
    expect(router.state.location.search).toBe('?page=2');
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Page 3 of 3')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Next' }) as HTMLButtonElement).disabled).toBe(true);
    expect(listCalls(calls).map((q) => q.page)).toEqual(['1', '2', '3']);
  });

  it('category applies at once; Apply Filters sends whole-number prices, location and search; sort and filters go back to page 1; Clear All resets', async () => {
    const calls = pagedApi();
    const { router } = renderApp('/dashboard?page=2');
    expect(await screen.findByText('Page 2 of 3')).toBeTruthy();
    const category = screen.getByLabelText('Category') as HTMLSelectElement;
    await waitFor(() => expect(within(category).getAllByRole('option').map((o) => o.textContent)).toEqual(['All Categories', 'Excavators', 'Bulldozers', 'Other']));
    fireEvent.change(category, { target: { value: '2' } });
    await waitFor(() => expect(listCalls(calls).at(-1)).toMatchObject({ category: '2', page: '1' }));

    fireEvent.change(screen.getByLabelText('Min Price'), { target: { value: '10000.9' } });
    fireEvent.change(screen.getByLabelText('Max Price'), { target: { value: '90000' } });
    fireEvent.change(screen.getByLabelText('Location'), { target: { value: 'TX' } });
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search' }), { target: { value: 'deere 310' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() =>
      expect(listCalls(calls).at(-1)).toEqual({ category: '2', min_price: '10000', max_price: '90000', location: 'TX', search: 'deere 310', sort_by: 'deal_score_high', page: '1', page_size: '15' }),
    );

    fireEvent.click(await screen.findByRole('button', { name: 'Next' }));
    await waitFor(() => expect(listCalls(calls).at(-1)?.page).toBe('2'));
    fireEvent.change(screen.getByLabelText('Sort by'), { target: { value: 'price_low' } });
    await waitFor(() => expect(listCalls(calls).at(-1)).toMatchObject({ sort_by: 'price_low', page: '1', category: '2' }));
    expect(within(screen.getByLabelText('Sort by')).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Deal Score (High to Low)',
      'Deal Score (Low to High)',
      'Price (Low to High)',
      'Price (High to Low)',
      'Distance (Nearest First)',
      'Delivered (Cheapest)',
    ]);
    // Nearest first and cheapest delivered need a ZIP code (the API refuses them without one): not offered without one.
    for (const name of ['Distance (Nearest First)', 'Delivered (Cheapest)']) {
      expect((within(screen.getByLabelText('Sort by')).getByRole('option', { name }) as HTMLOptionElement).disabled, name).toBe(true);
    }

    // Near a ZIP code, within a radius: both sent and kept in the URL; the radius waits for a ZIP code.
    const within300 = screen.getByLabelText('Within') as HTMLSelectElement;
    expect(within300.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Near ZIP'), { target: { value: '50309' } });
    expect(within300.disabled).toBe(false);
    fireEvent.change(within300, { target: { value: '300' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toMatchObject({ near: '50309', radius_miles: '300', page: '1' }));
    expect(router.state.location.search).toContain('near=50309&radius_miles=300');

    // The price delivered: at most $60,000, worth the trip, cheapest delivered first — sent and kept in the URL.
    const maxDelivered = screen.getByLabelText('Max delivered $') as HTMLInputElement;
    const worth = screen.getByLabelText('Worth the trip') as HTMLInputElement;
    expect(maxDelivered.disabled).toBe(false);
    fireEvent.change(maxDelivered, { target: { value: '60000' } });
    fireEvent.click(worth);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toMatchObject({ near: '50309', max_delivered: '60000', worth_the_trip: 'true', page: '1' }));
    fireEvent.change(screen.getByLabelText('Sort by'), { target: { value: 'delivered' } });
    await waitFor(() => expect(listCalls(calls).at(-1)).toMatchObject({ sort_by: 'delivered', max_delivered: '60000' }));
    expect(router.state.location.search).toContain('max_delivered=60000&worth_the_trip=true');
    // Without the ZIP code they are neither offered nor sent.
    fireEvent.change(screen.getByLabelText('Near ZIP'), { target: { value: '' } });
    expect(maxDelivered.disabled).toBe(true);
    expect(worth.disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).not.toHaveProperty('near'));
    expect(listCalls(calls).at(-1)).not.toHaveProperty('max_delivered');
    expect(listCalls(calls).at(-1)).not.toHaveProperty('worth_the_trip');
    expect(listCalls(calls).at(-1)?.sort_by).toBe('deal_score_high');
    fireEvent.change(screen.getByLabelText('Near ZIP'), { target: { value: '50309' } });
    fireEvent.change(screen.getByLabelText('Within'), { target: { value: '300' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    fireEvent.change(screen.getByLabelText('Sort by'), { target: { value: 'price_low' } });
    await waitFor(() => expect(listCalls(calls).at(-1)).toMatchObject({ near: '50309', sort_by: 'price_low' }));

    const before = listCalls(calls).length;
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(listCalls(calls).length).toBe(before + 1));

    fireEvent.click(screen.getByRole('button', { name: 'Clear All' }));
    await waitFor(() => expect(listCalls(calls).at(-1)).toEqual({ sort_by: 'price_low', page: '1', page_size: '15' }));
    expect(router.state.location.search).toBe('?sort_by=price_low');
    expect((screen.getByLabelText('Min Price') as HTMLInputElement).value).toBe('');
  });
});
