/** Profile GET/PUT and password change over the real API. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { bearer, registerUser, STRONG_PASSWORD, uniqueEmail } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';

let app: ApiApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, close } = await createTestApp({ env: { AUTH_IP_RATE_LIMIT: '1000', AUTH_ACCOUNT_RATE_LIMIT: '1000' } }));
});
afterAll(async () => close?.());

const putProfile = (token: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'PUT', url: '/api/auth/profile/', headers: bearer(token), payload });
const changePassword = (token: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url: '/api/auth/password/change/', headers: bearer(token), payload });
const login = (email: string, password: string) => app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email, password } });

describe('PUT /api/auth/profile/', () => {
  it('updates the six fields and answers the profile; GET shows the same', async () => {
    const user = await registerUser(app, { phone: '555', city: 'Boise' });
    const email = uniqueEmail('moved');
    const res = await putProfile(user.access_token, { first_name: 'Dee', last_name: 'Mills', email, phone: '+1 208 555 0199', city: 'Denver', address: '9 Elm' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ...user.user, first_name: 'Dee', last_name: 'Mills', email, phone: '+1 208 555 0199', city: 'Denver', address: '9 Elm' });
    const get = await app.inject({ method: 'GET', url: '/api/auth/profile/', headers: bearer(user.access_token) });
    expect(get.json()).toEqual(res.json());
    // The new address signs in.
    expect((await login(email, STRONG_PASSWORD)).statusCode).toBe(200);
  });

  it('keeps where the buyer is: a known ZIP code; omitted keeps it, empty clears it, a bad one is a 400', async () => {
    const user = await registerUser(app);
    expect(user.user).toMatchObject({ zip: '' });
    const base = { first_name: 'Zed', last_name: 'Zip', email: user.user.email };
    expect((await putProfile(user.access_token, { ...base, zip: '50309' })).json()).toMatchObject({ zip: '50309' });
    expect((await putProfile(user.access_token, { ...base, city: 'Des Moines' })).json()).toMatchObject({ zip: '50309', city: 'Des Moines' });
    const bad = await putProfile(user.access_token, { ...base, zip: '00000' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ zip: ['zip: Enter a US ZIP code (5 digits).'], detail: 'zip: Enter a US ZIP code (5 digits).' });
    expect((await putProfile(user.access_token, { ...base, zip: '' })).json()).toMatchObject({ zip: '' });
  });

  it('clears optional fields sent empty or left out', async () => {
    const user = await registerUser(app, { phone: '555', city: 'Boise', address: '1 Road' });
    const res = await putProfile(user.access_token, { first_name: 'Dana', last_name: 'Miller', email: user.user.email, phone: '', city: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ phone: '', city: '', address: '' });
  });

  it('refuses missing required fields, bad e-mails and over-long values', async () => {
    const user = await registerUser(app);
    const missing = await putProfile(user.access_token, { phone: '1' });
    expect(missing.statusCode).toBe(400);
    expect(Object.keys(missing.json())).toEqual(expect.arrayContaining(['email', 'first_name', 'last_name', 'detail']));
    const bad = await putProfile(user.access_token, { first_name: 'A', last_name: 'B', email: 'nope', address: 'x'.repeat(10_000) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().email[0]).toMatch(/valid email/);
    expect(bad.json().address[0]).toMatch(/no more than 500/);
  });

  it("refuses another account's e-mail", async () => {
    const taken = await registerUser(app);
    const user = await registerUser(app);
    const res = await putProfile(user.access_token, { first_name: 'A', last_name: 'B', email: taken.user.email.toUpperCase() });
    expect(res.statusCode).toBe(400);
    expect(res.json().email).toEqual(['A user is already registered with this e-mail address.']);
  });

  it('needs a signed-in user', async () => {
    const res = await app.inject({ method: 'PUT', url: '/api/auth/profile/', payload: { first_name: 'A', last_name: 'B', email: 'a@b.co' } });
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /api/auth/password/change/', () => {
  const NEW_PASSWORD = 'Excavator-Moonrise-77';

  it('changes the password; keeps this session; signs out every other session', async () => {
    const user = await registerUser(app);
    const other = (await login(user.user.email, STRONG_PASSWORD)).json();
    const res = await changePassword(user.access_token, { old_password: STRONG_PASSWORD, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ detail: 'New password has been saved.' });

    expect((await app.inject({ method: 'GET', url: '/api/auth/profile/', headers: bearer(user.access_token) })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/api/auth/token/refresh/', payload: { refresh: user.refresh_token } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/auth/profile/', headers: bearer(other.access_token) })).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/api/auth/token/refresh/', payload: { refresh: other.refresh_token } })).statusCode).toBe(401);

    expect((await login(user.user.email, STRONG_PASSWORD)).statusCode).toBe(400);
    expect((await login(user.user.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('refuses a wrong old password', async () => {
    const user = await registerUser(app);
    const res = await changePassword(user.access_token, { old_password: 'not-it-at-all', new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      old_password: ['Your old password was entered incorrectly. Please enter it again.'],
      detail: 'Your old password was entered incorrectly. Please enter it again.',
    });
  });

  it('applies the password rules to new_password1 and the match to new_password2', async () => {
    const user = await registerUser(app);
    const weak = await changePassword(user.access_token, { old_password: STRONG_PASSWORD, new_password1: 'short', new_password2: 'short' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().new_password1).toContain('This password is too short. It must contain at least 8 characters.');
    const differ = await changePassword(user.access_token, { old_password: STRONG_PASSWORD, new_password1: NEW_PASSWORD, new_password2: `${NEW_PASSWORD}x` });
    expect(differ.statusCode).toBe(400);
    expect(differ.json().new_password2).toEqual(["The two password fields didn't match."]);
    const missing = await changePassword(user.access_token, {});
    expect(missing.statusCode).toBe(400);
    expect(Object.keys(missing.json())).toEqual(expect.arrayContaining(['old_password', 'new_password1', 'new_password2']));
    // Nothing changed.
    expect((await login(user.user.email, STRONG_PASSWORD)).statusCode).toBe(200);
  });

  it('needs a signed-in user', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/auth/password/change/', payload: { old_password: 'a', new_password1: 'b', new_password2: 'b' } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
  });
});
