// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TEST_USER, installFakeApi, renderApp, setupDom, signIn, type FakeRequest, type FakeResponse } from '../../../testing/render-app.js';

setupDom();

const FREE = { is_premium: false, product_name: null, cancel_at_period_end: false, cancel_at: null, current_period_end: null, premium_until: null };
const PREMIUM = { is_premium: true, product_name: 'Pro', cancel_at_period_end: false, cancel_at: null, current_period_end: '2026-12-21T00:00:00Z', premium_until: '2026-12-21T00:00:00Z' };
const PLANS = { plans: [{ id: 'pro-monthly', name: 'Pro', price: 49, billing_cycle: 'month', features: ['Unlimited alerts', 'Email and SMS notifications'] }] };

function accountApi(extra: (req: FakeRequest) => FakeResponse | undefined = () => undefined) {
  return installFakeApi((req) => {
    const answer = extra(req);
    if (answer) return answer;
    if (req.path === '/api/auth/profile/') return { body: TEST_USER };
    if (req.path === '/api/subscriptions/status/') return { body: FREE };
    if (req.path === '/api/subscriptions/plans/') return { body: PLANS };
    return { status: 404, body: { detail: 'Not found.' } };
  });
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('account: profile', () => {
  it("shows the profile read-only with 'Not provided', edits, cancels back to the saved values", async () => {
    signIn();
    accountApi();
    renderApp('/account');
    expect(await screen.findByRole('heading', { name: 'Account Settings' })).toBeTruthy();
    expect(screen.getByText('Manage your profile and subscription')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Profile' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByText('Dana')).toBeTruthy();
    expect(screen.getAllByText('Not provided')).toHaveLength(4); // phone, city, address, ZIP code
    fireEvent.click(screen.getByRole('button', { name: 'Edit Profile' }));
    type('First Name', 'Changed');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByText('Dana')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Edit Profile' }));
    expect((screen.getByLabelText('First Name') as HTMLInputElement).value).toBe('Dana');
  });

  it("saves with PUT ('Updating...'), re-fetches the profile and toasts 'Profile Updated'", async () => {
    signIn();
    let profile = { ...TEST_USER };
    const calls = accountApi((req) => {
      if (req.path === '/api/auth/profile/' && req.method === 'PUT') {
        profile = { ...profile, ...(req.body as object) };
        return { body: profile, delayMs: 30 };
      }
      if (req.path === '/api/auth/profile/') return { body: profile };
      return undefined;
    });
    renderApp('/account');
    fireEvent.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    fireEvent.change(screen.getByLabelText(/^City/), { target: { value: 'Austin' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('button', { name: 'Updating...' })).toBeTruthy();
    expect(await screen.findByText('Profile Updated')).toBeTruthy();
    expect(screen.getByText('Your profile information has been updated successfully.')).toBeTruthy();
    expect(screen.getByText('Austin')).toBeTruthy();
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.body).toEqual({ first_name: 'Dana', last_name: 'Reyes', email: 'dana@example.com', phone: '', city: 'Austin', address: '', zip: '' });

    // Where the buyer is: a ZIP code, checked on the client, sent with the profile.
    fireEvent.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    fireEvent.change(screen.getByLabelText(/^ZIP Code/), { target: { value: '5030' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Enter a US ZIP code (5 digits)')).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/^ZIP Code/), { target: { value: '50309' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').at(-1)!.body).toMatchObject({ zip: '50309' }));
    expect(calls.filter((c) => c.path === '/api/auth/profile/' && c.method === 'GET').length).toBeGreaterThanOrEqual(2);
  });

  it("validates required fields on the client and shows the server's message on failure", async () => {
    signIn();
    const calls = accountApi((req) =>
      req.method === 'PUT' ? { status: 400, body: { email: ['A user with that email already exists.'], detail: 'A user with that email already exists.' } } : undefined,
    );
    renderApp('/account');
    fireEvent.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    type('Email', 'not-an-email');
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Enter a valid email address', { selector: 'p' })).toBeTruthy();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    type('Email', 'taken@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Update Failed')).toBeTruthy();
    expect(screen.getAllByText('A user with that email already exists.').length).toBeGreaterThanOrEqual(2);
  });
});

describe('account: security', () => {
  it('checks match and length on the client, shows strength, sends the server form, clears on success', async () => {
    signIn();
    const calls = accountApi((req) => (req.path === '/api/auth/password/change/' ? { body: { detail: 'New password has been saved.' }, delayMs: 30 } : undefined));
    renderApp('/account?tab=security');
    expect(await screen.findByRole('heading', { name: 'Change Password' })).toBeTruthy();
    expect(screen.getByText('Password must be at least 8 characters long')).toBeTruthy();
    type('Current Password', 'Old-pass-1');
    type('New Password', 'short');
    expect(screen.getByText('Password strength: Weak')).toBeTruthy();
    type('Confirm New Password', 'other');
    fireEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('New passwords do not match', { selector: 'p' })).toBeTruthy();
    type('Confirm New Password', 'short');
    fireEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('New password must be at least 8 characters long', { selector: 'p' })).toBeTruthy();
    expect(calls.some((c) => c.path === '/api/auth/password/change/')).toBe(false);
    type('New Password', 'Much-Better-42');
    expect(screen.getByText('Password strength: Strong')).toBeTruthy();
    type('Confirm New Password', 'Much-Better-42');
    fireEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByRole('button', { name: 'Changing Password...' })).toBeTruthy();
    expect(await screen.findByText('Password Changed')).toBeTruthy();
    expect(calls.find((c) => c.path === '/api/auth/password/change/')!.body).toEqual({ old_password: 'Old-pass-1', new_password1: 'Much-Better-42', new_password2: 'Much-Better-42' });
    expect((screen.getByLabelText('New Password') as HTMLInputElement).value).toBe('');
  });

  it("shows the server's field error and 'Password Change Failed'", async () => {
    signIn();
    accountApi((req) => (req.path === '/api/auth/password/change/' ? { status: 400, body: { old_password: ['Your old password was entered incorrectly.'], detail: 'Your old password was entered incorrectly.' } } : undefined));
    renderApp('/account?tab=security');
    type(await screen.findByLabelText('Current Password').then(() => 'Current Password'), 'wrong-one');
    type('New Password', 'Much-Better-42');
    type('Confirm New Password', 'Much-Better-42');
    fireEvent.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('Password Change Failed')).toBeTruthy();
    expect(screen.getByText('Your old password was entered incorrectly.', { selector: 'p.text-red-700' })).toBeTruthy();
  });

  it('Clear Form empties the fields; arrow keys move between tabs', async () => {
    signIn();
    accountApi();
    renderApp('/account?tab=security');
    type(await screen.findByLabelText('Current Password').then(() => 'Current Password'), 'abc');
    fireEvent.click(screen.getByRole('button', { name: 'Clear Form' }));
    expect((screen.getByLabelText('Current Password') as HTMLInputElement).value).toBe('');
    fireEvent.keyDown(screen.getByRole('tab', { name: 'Security' }), { key: 'ArrowRight' });
    expect(await screen.findByRole('heading', { name: 'Current Subscription' })).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('tab', { name: 'Billing & Subscription' }));
  });
});

describe('account: billing', () => {
  it("tab=billing: Free, 'No active plan', upgrade with the first plan's price; 503 → 'Checkout Failed'", async () => {
    signIn();
    const calls = accountApi((req) => (req.path === '/api/subscriptions/create-checkout/' ? { status: 503, body: { detail: 'Billing is not configured.' } } : undefined));
    renderApp('/account?tab=billing');
    const card = (await screen.findByRole('heading', { name: 'Current Subscription' })).closest('div')!.parentElement!;
    await waitFor(() => expect(within(card).getByText('No active plan')).toBeTruthy());
    expect(within(card).getAllByText('Free').length).toBe(2);
    expect(within(card).getByText('no subscription')).toBeTruthy();
    const cancel = screen.getByRole('button', { name: 'Cancel Subscription' }) as HTMLButtonElement;
    expect(cancel.disabled).toBe(true);
    fireEvent.click(await screen.findByRole('button', { name: 'Upgrade to Premium - $49/month' }));
    expect(await screen.findByText('Checkout Failed')).toBeTruthy();
    expect(screen.getByText('Billing is not configured.')).toBeTruthy();
    const body = calls.find((c) => c.path === '/api/subscriptions/create-checkout/')!.body as Record<string, string>;
    expect(body.plan_id).toBe('pro-monthly');
    expect(body.success_url).toMatch(/\/account\?checkout=success$/);
    expect(body.cancel_url).toMatch(/\/account\?checkout=cancelled$/);
  });

  it("premium: product badge, 'Renews', cancel → 'Cancellation Scheduled' and status reloaded", async () => {
    signIn();
    let status: Record<string, unknown> = PREMIUM;
    const calls = accountApi((req) => {
      if (req.path === '/api/subscriptions/status/') return { body: status };
      if (req.path === '/api/subscriptions/cancel/') {
        status = { ...PREMIUM, cancel_at_period_end: true, cancel_at: '2026-12-21T00:00:00Z' };
        return { body: { detail: 'Subscription will be cancelled at the end of the billing period.' } };
      }
      return undefined;
    });
    renderApp('/account?tab=billing');
    expect(await screen.findByText('Renews December 21, 2026')).toBeTruthy();
    expect(screen.getByText('Pro')).toBeTruthy();
    expect(screen.getByText('Active')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Upgrade to Premium/ })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel Subscription' }));
    expect(await screen.findByText('Subscription will be cancelled at the end of the billing period.')).toBeTruthy();
    const scheduled = (await screen.findByRole('button', { name: 'Cancellation Scheduled' })) as HTMLButtonElement;
    expect(scheduled.disabled).toBe(true);
    expect(screen.getByText('Cancels at December 21, 2026')).toBeTruthy();
    expect(calls.filter((c) => c.path === '/api/subscriptions/status/').length).toBeGreaterThanOrEqual(2);
  });

  it('checkout=success polls the status until premium', async () => {
    signIn();
    let polls = 0;
    accountApi((req) => (req.path === '/api/subscriptions/status/' ? { body: ++polls >= 2 ? PREMIUM : FREE } : undefined));
    renderApp('/account?checkout=success');
    expect(await screen.findByText('Thank you! Confirming your payment...')).toBeTruthy();
    expect(await screen.findByText('Thank you! Your Premium subscription is active.', {}, { timeout: 6000 })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Billing & Subscription' }).getAttribute('aria-selected')).toBe('true');
    const seen = polls;
    await new Promise((r) => setTimeout(r, 2500));
    expect(polls).toBe(seen);
  });

  it('checkout=cancelled says nothing was charged; a status failure is only logged', async () => {
    signIn();
    accountApi((req) => (req.path === '/api/subscriptions/status/' ? { status: 500, body: { detail: 'boom' } } : undefined));
    renderApp('/account?checkout=cancelled');
    expect(await screen.findByText('Checkout was cancelled. You have not been charged.')).toBeTruthy();
    await waitFor(() => expect(screen.getByText('No active plan')).toBeTruthy());
    expect(screen.queryByText('boom')).toBeNull();
  });
});

describe('account: alert delivery (issue #22)', () => {
  it('shows a suppressed address with why, and re-enables it', async () => {
    signIn();
    let suppressed = true;
    const status = () => ({
      data: {
        email: { address: TEST_USER.email, suppressed, reason: suppressed ? 'bounce' : null, detail: null, since: suppressed ? '2026-11-20T08:00:00Z' : null },
        sms: { phone: null, opted_out: false, last_failure: null, last_failure_at: null },
      },
    });
    const calls = accountApi((req) => {
      if (req.path === '/api/alerts/suppressions/') return { body: status() };
      if (req.path === '/api/alerts/suppressions/email/' && req.method === 'DELETE') {
        suppressed = false;
        return { body: status() };
      }
      return undefined;
    });
    renderApp('/account');
    expect(await screen.findByText('Suppressed')).toBeTruthy();
    expect(screen.getByText('Suppressed since Nov 20, 2026: e-mails to it bounced.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Re-enable e-mail alerts' }));
    expect(await screen.findByText('Receiving alerts')).toBeTruthy();
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/alerts/suppressions/email/')).toBe(true);
    expect(screen.queryByRole('button', { name: 'Re-enable e-mail alerts' })).toBeNull();
  });
});
