// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TEST_USER, installFakeApi, renderApp, setupDom, signIn, type FakeRequest, type FakeResponse } from '../../../testing/render-app.js';
import { alertFormErrors, alertPayload, EMPTY_ALERT_FORM } from './alert-form.js';
import { nearText } from '../alert-options.js';

setupDom();

const FREE = { is_premium: false, product_name: null, cancel_at_period_end: false, cancel_at: null, current_period_end: null, premium_until: null };
const ALERT = { id: 3, equipment_type: 'Excavators', price_min: 20000, price_max: 60000, state: 'TX', condition: 'Good', delivery_method: 'email', is_active: true, created_at: '2026-11-21T06:00:00Z', min_deal_score: null, deal_level: 'good', include_unscored: false, keywords: null, frequency: 'instant' };

function alertsApi(alerts: Array<Record<string, unknown>>, extra: (req: FakeRequest) => FakeResponse | undefined = () => undefined) {
  let nextId = 10;
  return installFakeApi((req) => {
    const answer = extra(req);
    if (answer) return answer;
    if (req.path === '/api/auth/profile/') return { body: TEST_USER };
    if (req.path === '/api/subscriptions/status/') return { body: FREE };
    if (req.path === '/api/alerts/notifications/') return { body: { data: { items: [], has_more: false } } };
    if (req.path === '/api/alerts/' && req.method === 'GET') return { body: { data: { items: alerts } } };
    if (req.path === '/api/alerts/' && req.method === 'POST') {
      const created = { ...ALERT, ...(req.body as object), id: nextId++, is_active: true };
      alerts.unshift(created);
      return { status: 201, body: { data: created } };
    }
    const m = /^\/api\/alerts\/(\d+)\/$/.exec(req.path);
    if (m && req.method === 'PATCH') {
      const a = alerts.find((x) => x.id === Number(m[1]))!;
      Object.assign(a, req.body);
      return { body: { data: a } };
    }
    if (m && req.method === 'DELETE') {
      alerts.splice(alerts.findIndex((x) => x.id === Number(m[1])), 1);
      return { status: 204 };
    }
    return { status: 404, body: { detail: 'Not found.' } };
  });
}

describe('alerts page', () => {
  it('empty state, plan limit and SMS as premium for free users', async () => {
    signIn();
    alertsApi([]);
    renderApp('/alerts');
    expect(await screen.findByRole('heading', { name: 'Price Alerts' })).toBeTruthy();
    expect(screen.getByText('Get notified when equipment matching your criteria becomes available')).toBeTruthy();
    expect(await screen.findByText('No alerts yet')).toBeTruthy();
    expect(screen.getByText('Create your first alert to get notified about great deals')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Your Alerts (0)' })).toBeTruthy();
    expect(screen.getByTestId('plan-limit').textContent).toContain('Free plan: up to 5 alerts (0 of 5 used), by email. SMS alerts are a Premium feature.');
    expect(await screen.findByText('No notifications sent yet.')).toBeTruthy();
  });

  it('table row: price range, location, condition, delivery, switch and delete with their toasts', async () => {
    signIn();
    const calls = alertsApi([{ ...ALERT }, { ...ALERT, id: 4, equipment_type: 'Cranes', price_min: null, price_max: 5000, state: null, condition: null }]);
    renderApp('/alerts');
    const row = (await screen.findByRole('rowheader', { name: 'Excavators' })).closest('tr')!;
    expect(within(row).getByText('$20,000 - $60,000')).toBeTruthy();
    expect(within(row).getByText('Texas')).toBeTruthy();
    expect(within(row).getByText('Good')).toBeTruthy();
    expect(within(row).getByText('Email')).toBeTruthy();
    const cranes = screen.getByRole('rowheader', { name: 'Cranes' }).closest('tr')!;
    expect(within(cranes).getByText('Below $5,000')).toBeTruthy();
    expect(within(cranes).getAllByText('Any')).toHaveLength(2);
    const columns = screen.getAllByRole('columnheader').map((c) => c.textContent);
    expect(columns).toEqual(['Equipment Type', 'Price Range', 'Location', 'Condition', 'Delivery', 'Status', 'Actions']);

    const toggle = within(row).getByRole('switch', { name: 'Alert for Excavators active' });
    expect(toggle.getAttribute('aria-checked')).toBe('true');
    fireEvent.click(toggle);
    expect(await screen.findByText('Alert Disabled')).toBeTruthy();
    expect(screen.getByText('Your alert for Excavators has been disabled.')).toBeTruthy();
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('false'));
    expect(calls.find((c) => c.method === 'PATCH')!.body).toEqual({ is_active: false });
    fireEvent.click(toggle);
    expect(await screen.findByText('Your alert for Excavators has been enabled.')).toBeTruthy();

    fireEvent.click(within(row).getByRole('button', { name: 'Delete alert for Excavators' }));
    expect(await screen.findByText('Your alert for Excavators has been deleted.')).toBeTruthy();
    expect(screen.getByText('Alert Deleted')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('rowheader', { name: 'Excavators' })).toBeNull());
    expect(screen.getByRole('heading', { name: 'Your Alerts (1)' })).toBeTruthy();
  });

  it("Add Alert toggles the form; equipment type required; creates, toasts, resets and closes", async () => {
    signIn();
    const calls = alertsApi([]);
    renderApp('/alerts');
    fireEvent.click(await screen.findByRole('button', { name: 'Add Alert' }));
    expect(screen.getByRole('heading', { name: 'Create New Alert' })).toBeTruthy();
    expect((screen.getByLabelText('Max Price') as HTMLInputElement).placeholder).toBe('999999');
    expect((screen.getByRole('option', { name: 'SMS (Premium)' }) as HTMLOptionElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Please select an equipment type', { selector: 'p' })).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Bulldozers' } });
    fireEvent.change(screen.getByLabelText('Location'), { target: { value: 'CO' } });
    fireEvent.change(screen.getByLabelText('Min Price'), { target: { value: '15000.75' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Alert Created')).toBeTruthy();
    expect(screen.getByText("You'll be notified when equipment matching your criteria becomes available.")).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ equipment_type: 'Bulldozers', state: 'CO', price_min: 15000, price_max: null, condition: null, delivery_method: 'email', deal_level: 'good', include_unscored: false });
    expect(screen.queryByRole('heading', { name: 'Create New Alert' })).toBeNull();
    expect(await screen.findByRole('rowheader', { name: 'Bulldozers' })).toBeTruthy();
    expect(screen.getByText('Above $15,000')).toBeTruthy();
  });

  it("shows the server's plan-limit message", async () => {
    signIn();
    alertsApi([], (req) => (req.method === 'POST' ? { status: 403, body: { detail: 'Your free plan allows up to 5 alerts. Upgrade to Premium for unlimited alerts.' } } : undefined));
    renderApp('/alerts');
    fireEvent.click(await screen.findByRole('button', { name: 'Add Alert' }));
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Cranes' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Your free plan allows up to 5 alerts. Upgrade to Premium for unlimited alerts.')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Create New Alert' })).toBeTruthy();
  });

  it('lists what was sent', async () => {
    signIn();
    alertsApi([], (req) =>
      req.path === '/api/alerts/notifications/'
        ? { body: { data: { has_more: false, items: [{ id: 1, alert_id: 3, equipment_type: 'Excavators', event: 'match', channel: 'email', frequency: 'instant', status: 'sent', error: null, price: 41000, deal_score: 880, created_at: '2026-11-21T06:30:00Z', sent_at: '2026-11-21T06:30:05Z', listing: { id: 9, slug: 'cat-320-9', title: '2015 Caterpillar 320', url: 'http://127.0.0.1/lot/9' } }] } } }
        : undefined,
    );
    renderApp('/alerts');
    const link = await screen.findByRole('link', { name: '2015 Caterpillar 320' });
    expect(link.getAttribute('href')).toBe('/deal/cat-320-9');
    expect(screen.getByText(/New match for your Excavators alert · \$41,000/)).toBeTruthy();
    expect(screen.getByText('sent')).toBeTruthy();
  });

  it('deals only by default; the level and the unscored opt-in are sent; the list says why', async () => {
    signIn();
    const calls = alertsApi([], (req) =>
      req.path === '/api/alerts/notifications/'
        ? {
            body: {
              data: {
                has_more: false,
                items: [
                  { id: 2, alert_id: 3, equipment_type: 'Excavators', event: 'level_up', channel: 'email', frequency: 'daily', rolled_into_digest: true, status: 'pending', error: null, price: 41000, deal_score: 880, criteria: 'Excavators · Below $500,000 · any location · any condition · good deals or better', deal_level: 'Excellent Deal', fair_value: 60000, value_low: 50000, value_high: 75000, auction_end_at: null, created_at: '2026-11-21T06:30:00Z', sent_at: null, listing: { id: 9, slug: 'cat-320-9', title: '2015 Caterpillar 320', url: 'http://127.0.0.1/lot/9' } },
                ],
              },
            },
          }
        : undefined,
    );
    renderApp('/alerts');
    expect(await screen.findByText(/Better deal for your Excavators alert/)).toBeTruthy();
    expect(screen.getByText('Excellent Deal · fair value $60,000 (range $50,000 - $75,000)')).toBeTruthy();
    expect(screen.getByText('Why: Excavators · Below $500,000 · any location · any condition · good deals or better')).toBeTruthy();
    expect(screen.getByText('Daily limit of instant messages reached: in the next daily digest.')).toBeTruthy();

    fireEvent.click(await screen.findByRole('button', { name: 'Add Alert' }));
    expect((screen.getByLabelText('Deals') as HTMLSelectElement).value).toBe('good');
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Excavators' } });
    fireEvent.change(screen.getByLabelText('Deals'), { target: { value: 'excellent' } });
    fireEvent.click(screen.getByLabelText(/Include listings without a score/));
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Alert Created')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ equipment_type: 'Excavators', deal_level: 'excellent', include_unscored: true });
    expect(await screen.findByText('Excellent deals only, and unscored')).toBeTruthy();
  });

  it('premium users can set a minimum deal score and keywords: checked as the API does, sent in the POST, shown in the row', async () => {
    signIn();
    const calls = alertsApi([{ ...ALERT, id: 5, equipment_type: 'Cranes', min_deal_score: 75, keywords: 'grove rt' }], (req) =>
      req.path === '/api/subscriptions/status/' ? { body: { ...FREE, is_premium: true, product_name: 'Pro' } } : undefined,
    );
    renderApp('/alerts');
    // An existing alert's premium filters are shown in its row.
    const cranes = (await screen.findByRole('rowheader', { name: 'Cranes' })).closest('tr')!;
    expect(within(cranes).getByText('Deal score 75+')).toBeTruthy();
    expect(within(cranes).getByText('Keywords: grove rt')).toBeTruthy();

    await screen.findByText('Premium plan: unlimited alerts, delivered by email or SMS.');
    fireEvent.click(screen.getByRole('button', { name: 'Add Alert' }));
    const score = screen.getByLabelText(/^Minimum Deal Score/) as HTMLInputElement;
    const keywords = screen.getByLabelText(/^Keywords/) as HTMLInputElement;
    expect(screen.getByLabelText('Deals')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Excavators' } });

    // The API's rules and messages: a whole number 0–100; at most 10 words of 40 characters.
    fireEvent.change(score, { target: { value: '101' } });
    fireEvent.change(keywords, { target: { value: 'a b c d e f g h i j k' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Enter a whole number from 0 to 100.', { selector: 'p' })).toBeTruthy();
    expect(screen.getByText('Use at most 10 keywords of at most 40 characters each (200 characters in all).', { selector: 'p' })).toBeTruthy();
    expect(score.getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(score, { target: { value: '7.5' } });
    fireEvent.change(keywords, { target: { value: `cat ${'x'.repeat(41)}` } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Enter a whole number from 0 to 100.', { selector: 'p' })).toBeTruthy();
    expect(screen.getByText('Use at most 10 keywords of at most 40 characters each (200 characters in all).', { selector: 'p' })).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    fireEvent.change(score, { target: { value: ' 70 ' } });
    fireEvent.change(keywords, { target: { value: '  cat   320 thumb ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Alert Created')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      equipment_type: 'Excavators',
      state: null,
      price_min: null,
      price_max: null,
      condition: null,
      delivery_method: 'email',
      deal_level: 'good',
      include_unscored: false,
      min_deal_score: 70,
      keywords: 'cat 320 thumb',
    });
    const row = (await screen.findByRole('rowheader', { name: 'Excavators' })).closest('tr')!;
    expect(within(row).getByText('Deal score 70+')).toBeTruthy();
    expect(within(row).getByText('Keywords: cat 320 thumb')).toBeTruthy();
  });

  it('premium users who leave the premium filters empty send the level only', async () => {
    signIn();
    const calls = alertsApi([], (req) => (req.path === '/api/subscriptions/status/' ? { body: { ...FREE, is_premium: true } } : undefined));
    renderApp('/alerts');
    await screen.findByText('Premium plan: unlimited alerts, delivered by email or SMS.');
    fireEvent.click(screen.getByRole('button', { name: 'Add Alert' }));
    expect(screen.getByLabelText(/^Minimum Deal Score/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Graders' } });
    fireEvent.change(screen.getByLabelText('Deals'), { target: { value: 'excellent' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Alert Created')).toBeTruthy();
    const body = calls.find((c) => c.method === 'POST')!.body as Record<string, unknown>;
    expect(body).toMatchObject({ equipment_type: 'Graders', deal_level: 'excellent' });
    expect(body).not.toHaveProperty('min_deal_score');
    expect(body).not.toHaveProperty('keywords');
  });

  it('free users see the deal level only, not the premium filters', async () => {
    signIn();
    alertsApi([]);
    renderApp('/alerts');
    await screen.findByText(/Free plan: up to 5 alerts/);
    fireEvent.click(await screen.findByRole('button', { name: 'Add Alert' }));
    expect(screen.getByLabelText('Deals')).toBeTruthy();
    expect(screen.queryByLabelText(/Minimum Deal Score/)).toBeNull();
    expect(screen.queryByLabelText(/Keywords/)).toBeNull();
    expect(screen.queryByText(/every word must appear in the listing/)).toBeNull();
  });

  it('alertPayload: premium filters only for premium and only when set; alertFormErrors uses the API messages', () => {
    const filled = { ...EMPTY_ALERT_FORM, equipmentType: 'Cranes', minDealScore: '0', keywords: 'Grove, RT-880' };
    expect(alertPayload(filled)).not.toHaveProperty('min_deal_score');
    expect(alertPayload(filled)).not.toHaveProperty('keywords');
    expect(alertPayload(filled, true)).toMatchObject({ min_deal_score: 0, keywords: 'Grove, RT-880' });
    expect(alertPayload({ ...filled, minDealScore: '', keywords: ' , ' }, true)).not.toHaveProperty('keywords');
    expect(alertFormErrors({ ...filled, minDealScore: '-1', keywords: 'x'.repeat(201) }, true)).toEqual({
      minDealScore: 'Enter a whole number from 0 to 100.',
      keywords: 'Use at most 10 keywords of at most 40 characters each (200 characters in all).',
    });
    // A free user's form is not judged on fields it does not show.
    expect(alertFormErrors({ ...filled, minDealScore: '-1' })).toEqual({});
    expect(alertFormErrors({ ...EMPTY_ALERT_FORM })).toEqual({ equipmentType: 'Please select an equipment type' });
  });

  it("near a ZIP: prefilled from the profile, sent with the radius, and the row says how far", async () => {
    const user = { ...TEST_USER, zip: '50309' };
    signIn(user);
    const calls = alertsApi([], (req) => (req.path === '/api/auth/profile/' ? { body: user } : undefined));
    renderApp('/alerts');
    fireEvent.click(await screen.findByRole('button', { name: 'Add Alert' }));
    const zip = screen.getByLabelText(/^Near ZIP/) as HTMLInputElement;
    expect(zip.value).toBe('50309');
    const within_ = screen.getByLabelText('Within') as HTMLSelectElement;
    expect([...within_.options].map((o) => o.value)).toEqual(expect.arrayContaining(['', '50', '100', '150', '300', '500']));
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Excavators' } });
    fireEvent.change(within_, { target: { value: '150' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Alert Created')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      equipment_type: 'Excavators',
      state: null,
      price_min: null,
      price_max: null,
      condition: null,
      delivery_method: 'email',
      deal_level: 'good',
      include_unscored: false,
      near_zip: '50309',
      radius_miles: 150,
    });
    const row = (await screen.findByRole('rowheader', { name: 'Excavators' })).closest('tr')!;
    // No state: the distance is the location, not "Any".
    expect(within(row).getByText('within 150 mi of 50309')).toBeTruthy();
    expect(within(row).getAllByText('Any')).toHaveLength(1); // the condition's
  });

  it('a typed ZIP replaces the profile\'s; a ZIP alone is sent without a radius', async () => {
    signIn();
    const calls = alertsApi([]);
    renderApp('/alerts');
    fireEvent.click(await screen.findByRole('button', { name: 'Add Alert' }));
    const zip = screen.getByLabelText(/^Near ZIP/) as HTMLInputElement;
    expect(zip.value).toBe('');
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Cranes' } });
    fireEvent.change(zip, { target: { value: ' 95202 ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Alert Created')).toBeTruthy();
    const body = calls.find((c) => c.method === 'POST')!.body as Record<string, unknown>;
    expect(body).toMatchObject({ equipment_type: 'Cranes', near_zip: '95202' });
    expect(body).not.toHaveProperty('radius_miles');
    const row = (await screen.findByRole('rowheader', { name: 'Cranes' })).closest('tr')!;
    expect(within(row).getByText('any distance from 95202')).toBeTruthy();
  });

  it('a radius without a ZIP, or a ZIP that is not one, is not sent: inline errors as the API gives them', async () => {
    signIn();
    const calls = alertsApi([]);
    renderApp('/alerts');
    fireEvent.click(await screen.findByRole('button', { name: 'Add Alert' }));
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Excavators' } });
    const within_ = screen.getByLabelText('Within') as HTMLSelectElement;
    fireEvent.change(within_, { target: { value: '100' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Add a ZIP code to measure the distance from.', { selector: 'p' })).toBeTruthy();
    expect(within_.getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    const zip = screen.getByLabelText(/^Near ZIP/) as HTMLInputElement;
    fireEvent.change(zip, { target: { value: '5030' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Enter a US ZIP code (5 digits).', { selector: 'p' })).toBeTruthy();
    expect(zip.getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    fireEvent.change(zip, { target: { value: '50309' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Alert Created')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ near_zip: '50309', radius_miles: 100 });
  });

  it('the list shows the distance under the state', async () => {
    signIn();
    alertsApi([{ ...ALERT, near_zip: '50309', radius_miles: 150 }, { ...ALERT, id: 4, equipment_type: 'Cranes', near_zip: null, radius_miles: null }]);
    renderApp('/alerts');
    const row = (await screen.findByRole('rowheader', { name: 'Excavators' })).closest('tr')!;
    expect(within(row).getByText('Texas')).toBeTruthy();
    expect(within(row).getByText('within 150 mi of 50309')).toBeTruthy();
    const cranes = screen.getByRole('rowheader', { name: 'Cranes' }).closest('tr')!;
    expect(within(cranes).queryByText(/ mi of /)).toBeNull();
  });

  it('worth the trip: enabled only with a ZIP, sent with it, and the row says so', async () => {
    signIn();
    const calls = alertsApi([]);
    renderApp('/alerts');
    fireEvent.click(await screen.findByRole('button', { name: 'Add Alert' }));
    const trip = screen.getByLabelText('Only deals worth the trip') as HTMLInputElement;
    expect(trip.disabled).toBe(true);
    expect(screen.getByText('Enter a ZIP code to estimate the haul from.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Equipment Type'), { target: { value: 'Excavators' } });
    fireEvent.change(screen.getByLabelText(/^Near ZIP/), { target: { value: '50309' } });
    expect(trip.disabled).toBe(false);
    fireEvent.click(trip);
    expect(trip.checked).toBe(true);
    fireEvent.change(screen.getByLabelText('Within'), { target: { value: '300' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Alert' }));
    expect(await screen.findByText('Alert Created')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ near_zip: '50309', radius_miles: 300, worth_the_trip: true });
    const row = (await screen.findByRole('rowheader', { name: 'Excavators' })).closest('tr')!;
    expect(within(row).getByText('within 300 mi of 50309, worth the trip')).toBeTruthy();
  });

  it('alertPayload: worth the trip only with a ZIP; the list words it', () => {
    const base = { ...EMPTY_ALERT_FORM, equipmentType: 'Cranes', worthTheTrip: true };
    expect(alertPayload(base)).not.toHaveProperty('worth_the_trip');
    expect(alertPayload({ ...base, nearZip: '50309' })).toMatchObject({ near_zip: '50309', worth_the_trip: true });
    expect(alertPayload({ ...base, nearZip: '50309', worthTheTrip: false })).not.toHaveProperty('worth_the_trip');
    expect(nearText({ near_zip: '50309', radius_miles: null, worth_the_trip: true })).toBe('from 50309, worth the trip');
    expect(nearText({ near_zip: '50309', radius_miles: 150, worth_the_trip: false })).toBe('within 150 mi of 50309');
  });

  it('alertPayload / alertFormErrors: ZIP and radius', () => {
    const base = { ...EMPTY_ALERT_FORM, equipmentType: 'Cranes' };
    expect(alertPayload(base)).not.toHaveProperty('near_zip');
    expect(alertPayload({ ...base, nearZip: '50309', radiusMiles: '300' })).toMatchObject({ near_zip: '50309', radius_miles: 300 });
    expect(alertFormErrors({ ...base, radiusMiles: '50' })).toEqual({ radiusMiles: 'Add a ZIP code to measure the distance from.' });
    expect(alertFormErrors({ ...base, nearZip: 'abcde', radiusMiles: '50' })).toEqual({ nearZip: 'Enter a US ZIP code (5 digits).' });
    expect(alertFormErrors({ ...base, nearZip: '50309', radiusMiles: '50' })).toEqual({});
  });

  it('alertPayload: any-location / any-condition mean no filter; prices whole numbers, empty not set', () => {
    expect(alertPayload({ ...EMPTY_ALERT_FORM, equipmentType: 'Cranes', priceMax: '$1,200' })).toEqual({ equipment_type: 'Cranes', state: null, condition: null, price_min: null, price_max: 1200, delivery_method: 'email', deal_level: 'good', include_unscored: false });
  });
});
